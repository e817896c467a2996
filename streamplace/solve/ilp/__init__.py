"""Integer programs: one module per formulation; each returns a model and a decoder."""
