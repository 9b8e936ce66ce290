"""axe-core on every page a player can open, in all four languages, at phone size (issue 34): the
lobby, the rules, the tutorial, the account page, the leaderboard, the daily puzzle, a player's page,
a tournament's page,
the form that creates one (a guest's hint; an account's form, with a refusal shown) and the 404 page.
(The game, replay and duel pages are swept in test_direct_play.py, the fair-play pages in
test_fairplay_browser.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from test_direct_play import LANGS, new_context, serious_violations
from test_tournament_browser import organiser, tournament_on

from conftest import ServerProcess, sign_in

PHONE = {"width": 390, "height": 844}
#: Each page and what shows it is drawn (the page's own content, not the shell).
PAGES = {
    "/": "[data-testid=new-solo]",
    "/rules": ".rules dt",
    "/tutorial": "[data-card]",
    "/account": "[data-testid=display-name]",
    "/leaderboard": "[data-testid=leaderboard-draft]",
    "/puzzle/daily": "[data-testid=my-hand] [data-select]",
    "/t/new": "[data-testid=new-tournament] [data-testid=t-create-guest]",
    "/no-such-page": "[data-testid=not-found]",
}


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_is_axe_clean_at_phone_size(server: ServerProcess, browser: Any, lang: str) -> None:
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python (dev extra) is not installed")
    context = new_context(browser, lang, viewport=PHONE, has_touch=True)
    page = context.new_page()
    found: dict[str, list[str]] = {}
    for path, ready in PAGES.items():
        page.goto(server.url + path)
        page.wait_for_selector(ready)
        found[path] = serious_violations(page)
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    page.goto(server.url + f"/p/{me['identity']}")
    page.wait_for_selector("main h1, main h2")
    found["/p/<handle>"] = serious_violations(page)
    page.goto(server.url + f"/t/{tournament_on(server)}")
    page.wait_for_selector("[data-testid=tournament] [data-testid=t-countdown]")
    found["/t/<id>"] = serious_violations(page)
    sign_in(context, server, organiser(server))
    page.goto(server.url + "/t/new")
    page.fill("#tf-minutes", "5")
    page.click("[data-testid=tf-submit]")  # no name, too short: the refusal beside its field
    page.wait_for_selector("[data-testid=tf-error]")
    found["/t/new (an account)"] = serious_violations(page)
    context.close()
    assert {path: problems for path, problems in found.items() if problems} == {}
