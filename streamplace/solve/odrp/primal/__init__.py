"""Better ODRP plans found beside the solver: a local search on F and a large-neighbourhood
search, run on a thread of their own while HiGHS solves."""
