"""The frameworks' own placements and DS2's rule: the baselines every model is compared with."""
