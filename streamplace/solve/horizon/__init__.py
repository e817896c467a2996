"""The program over a horizon of windows: each vertex's parallelism in each window, the
fewest slot-seconds and restarts that carry a forecast load, within a rescale budget
(docs/models.md, "Planning ahead")."""
