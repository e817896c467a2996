"""Heuristics, one module per family; each returns a feasible plan or says it failed."""
