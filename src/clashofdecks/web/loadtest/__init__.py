"""The web app's load test with Locust (docs/performance.md, "Capacity with Locust"): the scenario
(``locustfile.py``, needs the ``loadtest`` extra) and its driver (``python -m
clashofdecks.web.loadtest``)."""
