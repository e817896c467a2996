"""The control layer: what reads, judges and changes a running job.

It sits between ``cli/`` (which parses, calls and renders) and ``solve/`` and ``io/``
(which plan and turn bytes into models): ``control/flink/`` talks to a running Flink job
(observe, the counter window, the offered load, the drift check, the rescale), and
``control/autoscale/`` is the loop, one unit per role: options, collect, evaluate, decide,
execute.
"""
