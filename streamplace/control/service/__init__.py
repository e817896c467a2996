"""autoscale as a service: Prometheus metrics and a health endpoint (``--metrics-port``),
and the operator's ScalingReport events (``--events``)."""
