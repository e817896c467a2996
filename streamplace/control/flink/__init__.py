"""A running Flink job over the JobManager's REST API: read it (``job``, ``window``,
``observe``), judge it (``offered``, ``drift``) and change it (``rescale``)."""
