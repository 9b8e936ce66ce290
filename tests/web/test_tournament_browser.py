"""The tournament page in Chromium (issue 39): listed on the lobby, opened from there, joined and
left with its button, its countdown shown; the form that creates one (/t/new), and what a guest sees
instead.  (The standings of played tournaments are checked
through the API in test_tournaments_server.py; the page is axe-checked in test_axe_pages.py.)"""

from __future__ import annotations

import itertools
import time
from typing import Any

from test_direct_play import new_context
from test_identity import server_session

from conftest import ServerProcess, sign_in

_accounts = itertools.count()


def organiser(server: ServerProcess) -> str:
    """The session of a new account."""
    username = f"organiser{next(_accounts)}"
    guest = server.guest()
    assert (
        server.post(
            "/api/account/register", {"username": username, "password": "correct horse"}, session=guest
        )[0]
        == 200
    )
    return server_session(server, username, "correct horse")


def tournament_on(server: ServerProcess, **body: Any) -> str:
    """A new tournament made by a new account (an arena starting in ten minutes unless ``body`` says)."""
    session = organiser(server)
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


def _listed(server: ServerProcess) -> set[str]:
    return {t["id"] for t in server.get("/api/tournaments")[1]["tournaments"]}


def test_an_account_creates_an_arena_with_the_form_and_lands_on_its_page(
    server: ServerProcess, browser: Any
) -> None:
    before = _listed(server)
    context = new_context(browser, "en", viewport={"width": 390, "height": 844})
    sign_in(context, server, organiser(server))
    page = context.new_page()
    page.goto(server.url + "/")
    page.click("[data-testid=tournaments-panel] [data-testid=t-create]")
    page.fill("#tf-name", "Phone arena")
    assert page.is_hidden("#tf-rounds")  # an arena has minutes, not rounds
    page.select_option("#tf-time_control", "5+3")
    page.fill("#tf-minutes", "30")
    page.fill("#tf-starts_in", "15")
    page.check("#tf-bots_allowed")
    sent = time.time()
    page.click("[data-testid=tf-submit]")
    page.wait_for_selector("[data-testid=tournament] [data-testid=t-countdown]")
    answered = time.time()
    (tid,) = _listed(server) - before
    assert page.url == f"{server.url}/t/{tid}"
    made = server.get(f"/api/tournaments/{tid}")[1]
    assert (made["name"], made["kind"], made["time_control"], made["minutes"], made["bots_allowed"]) == (
        "Phone arena",
        "arena",
        "5+3",
        30,
        True,
    )
    assert sent + 15 * 60 - 1 <= made["starts_at"] <= answered + 15 * 60 + 1  # 15 minutes after the click
    context.close()


def test_a_bad_value_shows_the_servers_reason_beside_its_field_and_creates_nothing(
    server: ServerProcess, browser: Any
) -> None:
    before = _listed(server)
    context = new_context(browser, "de", viewport={"width": 390, "height": 844})
    sign_in(context, server, organiser(server))
    page = context.new_page()
    page.goto(server.url + "/t/new")
    page.fill("#tf-name", "Zu kurz")
    page.fill("#tf-minutes", "5")  # an arena lasts 10 to 360 minutes
    page.click("[data-testid=tf-submit]")
    error = page.wait_for_selector("[data-field=minutes] [data-testid=tf-error]")
    assert error.inner_text() == "Eine Arena dauert 10 bis 360 Minuten, als ganze Zahl."
    assert page.get_attribute("#tf-minutes", "aria-invalid") == "true"
    page.select_option("#tf-kind", "swiss")
    page.fill("#tf-rounds", "3")
    page.select_option("#tf-start_mode", "at")
    page.fill("#tf-starts_at", "2000-01-01T10:00")  # in the past
    page.click("[data-testid=tf-submit]")
    error = page.wait_for_selector("[data-field=starts_at] [data-testid=tf-error]")
    assert "30 Tagen" in error.inner_text()
    assert page.locator("[data-testid=tf-error]").count() == 1  # the earlier refusal is gone
    assert page.url == server.url + "/t/new"
    assert _listed(server) == before
    context.close()


def test_changing_the_language_keeps_what_was_typed_in_the_form(server: ServerProcess, browser: Any) -> None:
    context = new_context(browser, "en", viewport={"width": 390, "height": 844})
    sign_in(context, server, organiser(server))
    page = context.new_page()
    page.goto(server.url + "/t/new")
    page.fill("#tf-name", "Sunday swiss")
    page.select_option("#tf-kind", "swiss")
    page.fill("#tf-rounds", "4")
    page.check("#tf-bots_allowed")
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_selector("html[lang=fr] #tf-name")
    assert page.input_value("#tf-name") == "Sunday swiss"
    assert page.input_value("#tf-kind") == "swiss"
    assert page.is_visible("#tf-rounds") and page.is_hidden("#tf-minutes")  # the kind's inputs shown again
    assert page.input_value("#tf-rounds") == "4"
    assert page.is_checked("#tf-bots_allowed")
    context.close()


def test_a_guest_is_told_why_not_and_where_to_make_an_account(server: ServerProcess, browser: Any) -> None:
    context = new_context(browser, "en", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(server.url + "/")
    hint = page.wait_for_selector("[data-testid=tournaments-panel] [data-testid=t-create-guest]")
    assert "created by accounts" in hint.inner_text()
    assert page.locator("[data-testid=tournaments-panel] [data-testid=t-create]").count() == 0
    page.goto(server.url + "/t/new")
    page.wait_for_selector("[data-testid=new-tournament] [data-testid=t-create-guest]")
    assert page.locator("[data-testid=tform]").count() == 0
    page.click("[data-testid=t-sign-up]")
    page.wait_for_selector("[data-testid=register]")
    assert page.url == server.url + "/account"
    context.close()
