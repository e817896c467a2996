"""SBON's model: its heuristics and the exhaustive exact method."""
