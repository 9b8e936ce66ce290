"""Tooling to load the web app, apart from what serves it (a server never imports this package):
the bot benchmark of ``clash bench --web`` (``bench.py``), the load test with Locust
(docs/performance.md, "Capacity with Locust": the scenario ``locustfile.py`` and its driver,
``python -m clashofdecks.web.loadtest``) and the server processes both start (``serveprocs.py``).
``clash bench --web`` asks for the ``loadtest`` extra, whose dependencies the load test needs."""
