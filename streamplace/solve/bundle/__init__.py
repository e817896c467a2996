"""Several applications placed on one infrastructure (docs/models.md sec. 2, "Several
applications together"): one integer program over all of them (``joint``), or one after
another in priority order, each beside those placed before it (``priority``)."""
