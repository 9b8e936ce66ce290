"""The page's scripts are ES modules (docs/web.md, "Code"): the server sends them with a JavaScript
type (a browser refuses to run a module script of any other type) and the page loads them as they
are, main.js as its one script.  Their structure and unit tests are tests/js/ (`make js-check`)."""

from __future__ import annotations

import re
import urllib.request
from importlib import resources

from conftest import ServerProcess

STATIC = resources.files("clashofdecks.web").joinpath("static")


def test_every_module_is_served_as_javascript(server: ServerProcess) -> None:
    with urllib.request.urlopen(server.url + "/", timeout=30) as r:
        html = r.read().decode()
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="module" src="/static/main.js">']
    modules = sorted(p.name for p in STATIC.iterdir() if p.name.endswith(".js"))
    assert "main.js" in modules and "store.js" in modules
    for name in modules:
        with urllib.request.urlopen(f"{server.url}/static/{name}", timeout=30) as r:
            assert r.headers["Content-Type"].startswith("text/javascript"), name
            assert r.read().decode() == STATIC.joinpath(name).read_text(encoding="utf-8")
