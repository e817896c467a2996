"""``autoscale``: one unit per role, as the Flink autoscaler keeps them: ``options``
(defined once), ``collect`` (a complete reading or none), ``evaluate`` (the observed
instance and what triggers a rescale), ``decide`` (the new parallelism), ``execute`` (the
change sent and waited for), ``decision`` (the typed line each step writes), ``loop``."""
