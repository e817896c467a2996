"""Benoit et al.'s placement heuristics and the annealing over groups."""
