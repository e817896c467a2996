"""The one backend seam: a solver-neutral linear model, the formulation contract, and the
backends that solve it (HiGHS in-process, CBC through PuLP). No module outside this package
imports a solver."""
