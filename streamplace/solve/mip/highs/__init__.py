"""HiGHS in-process: bulk arrays in, a thread that can always be stopped, one status map."""
