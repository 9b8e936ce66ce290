"""The tournament page in Chromium (issue 39): listed on the lobby, opened from there, joined and
left with its button, its countdown shown.  (The standings of played tournaments are checked
through the API in test_tournaments_server.py; the page is axe-checked in test_axe_pages.py.)"""

from __future__ import annotations

import itertools
from typing import Any

from test_direct_play import new_context
from test_identity import server_session

from conftest import ServerProcess

_accounts = itertools.count()


def tournament_on(server: ServerProcess, **body: Any) -> str:
    """A new tournament made by a new account (an arena starting in ten minutes unless ``body`` says)."""
    username = f"organiser{next(_accounts)}"
    guest = server.guest()
    assert (
        server.post(
            "/api/account/register", {"username": username, "password": "correct horse"}, session=guest
        )[0]
        == 200
    )
    session = server_session(server, username, "correct horse")
    wanted = {"name": "Friday arena", "kind": "arena", "minutes": 30, "starts_in": 600, **body}
    status, answer = server.post("/api/tournaments", wanted, session=session)
    assert status == 200, answer
    return str(answer["id"])


def test_the_lobby_lists_a_tournament_whose_page_joins_and_withdraws(
    server: ServerProcess, browser: Any
) -> None:
    tid = tournament_on(server)
    context = new_context(browser, "en", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(server.url + "/")
    page.click(f"[data-testid=tournaments-panel] a[href='/t/{tid}']")
    page.wait_for_selector("[data-testid=tournament] [data-testid=standings-empty]")
    assert page.inner_text("[data-testid=t-countdown]").startswith("Starts in")
    assert page.inner_text("[data-testid=t-you]") == "You are not in this tournament."
    page.click("[data-testid=t-join]")
    page.wait_for_selector("[data-testid=standing-row]")
    assert page.inner_text("[data-testid=t-you]") == "You are in: the first pairing comes at the start."
    page.click("[data-testid=t-withdraw]")
    page.wait_for_selector("[data-testid=t-join]")
    assert "withdrawn" in page.inner_text("[data-testid=standing-row]")
    context.close()
