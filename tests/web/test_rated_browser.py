"""Rated play in the browser with four contexts (four people): two strangers press "play now", are
paired into one rated duel, play it to the end by clicking and both ratings change; a rematch; two
accounts with 10 rated games (seeded in the store) are on the leaderboard; the new pages' screenshots
at phone and desktop size go to ``CLASH_SCREENSHOT_DIR``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import DESKTOP, PHONE, fast_context, play_to_end, shots_dir
from test_direct_play import serious_violations

from clashofdecks.web.store import open_store
from conftest import ServerProcess

ME_JS = "() => fetch('/api/me').then((r) => r.json()).then((b) => b.identity)"
REGISTER_JS = """([username, password]) => fetch('/api/account/register', {method: 'POST',
  headers: {'Content-Type': 'application/json'},
  body: JSON.stringify({username, password})}).then((r) => r.status)"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The leaderboard below is seeded with ratings that have no games behind them, so the rule of
    distinct opponents (web/fairplay.py, tested in test_web_store.py) is off for this server."""
    proc = ServerProcess(
        tmp_path_factory.mktemp("web"), "--rate", "200", "--limit", "leaderboard_opponents=0"
    ).start()
    yield proc
    proc.stop()


def _game_of(page: Any) -> str:
    page.wait_for_url("**/g/*", timeout=30000)
    page.wait_for_selector("#game[data-index]")
    return str(page.url.split("/g/")[1].split("#")[0])


def test_strangers_play_now_a_rated_game_then_rematch_and_accounts_lead(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    errors: list[str] = []
    contexts = [fast_context(browser, viewport=v) for v in (DESKTOP, PHONE, DESKTOP, PHONE)]
    a, b, c, d = (ctx.new_page() for ctx in contexts)
    for p in (a, b, c, d):
        p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # Two strangers: each a new guest of its own browser.
        for p in (a, b):
            p.goto(server.url + "/")
            p.wait_for_selector("[data-testid=play-now]")
        a.select_option("[data-testid=play-now-format]", "draft")
        a.click("[data-testid=play-now]")
        a.wait_for_selector("[data-testid=play-now-leave]")
        a.screenshot(path=str(shots / "play-now-waiting-desktop.png"))
        found = {"lobby waiting": serious_violations(a)}
        b.click("[data-testid=play-now]")
        game = _game_of(a)
        assert _game_of(b) == game
        handle_a, handle_b = a.evaluate(ME_JS), b.evaluate(ME_JS)
        assert handle_a != handle_b
        play_to_end([a, b], random.Random(5))
        for p in (a, b):
            p.wait_for_selector("[data-testid=rated-note]")
        status, board = server.get("/api/leaderboard?format=draft&include=provisional")
        assert status == 200
        by_handle = {p["handle"]: p for p in board["players"]}
        assert by_handle[handle_a]["games"] == by_handle[handle_b]["games"] == 1
        # Both ratings moved from a new player's 1000 (a draw lowers both players' uncertainty too).
        assert by_handle[handle_a]["rating"] != 1000 and by_handle[handle_b]["rating"] != 1000
        a.screenshot(path=str(shots / "rated-game-over-desktop.png"))

        # A rematch: offered by one, accepted by the other; both pages open the same new game.
        a.click("[data-testid=rematch]")
        b.wait_for_selector("[data-testid=notice]")
        b.click("[data-testid=rematch]")
        b.wait_for_function("(old) => !location.pathname.endsWith(old)", arg=game)
        a.wait_for_function("(old) => !location.pathname.endsWith(old)", arg=game)
        rematch = _game_of(a)
        assert _game_of(b) == rematch != game
        assert a.locator("[data-testid=resign]").count() == 1  # a seat of the new game, not a spectator
        assert b.locator("[data-testid=spectator]").count() == 0

        # Two accounts with 10 rated games each (seeded in the store) appear on the leaderboard.
        handles: list[str] = []
        for p, name in ((c, "ranked_one"), (d, "ranked_two")):
            p.goto(server.url + "/")
            p.wait_for_selector("[data-testid=play-now]")
            assert p.evaluate(REGISTER_JS, [name, "a long enough password"]) == 200
            handles.append(p.evaluate(ME_JS))
        store = open_store(f"sqlite:///{server.data_dir / 'web.sqlite3'}")
        try:
            for handle, (mu, wins) in zip(handles, ((31.0, 8), (28.0, 6)), strict=True):
                row = store.identity_by_handle(handle)
                assert row is not None
                store.set_rating(row.id, "draft", mu, 2.5, 10, wins, 10 - wins)
        finally:
            store.close()
        for p, viewport in ((c, "desktop"), (d, "phone")):
            p.goto(server.url + "/leaderboard?format=draft")
            p.wait_for_selector("[data-testid=leaderboard]")
            shown = p.locator("[data-testid=leaderboard-row]").evaluate_all(
                "(rows) => rows.map((r) => r.dataset.handle)"
            )
            assert shown[:2] == handles  # best first; the provisional strangers are not listed
            assert handle_a not in shown and handle_b not in shown
            p.screenshot(path=str(shots / f"leaderboard-{viewport}.png"), full_page=True)
            found[f"leaderboard {viewport}"] = serious_violations(p)
        # The longest headers (French, German) still fit a phone: the page never scrolls sideways.
        for lang in ("fr", "de", "en"):
            d.evaluate("(lang) => localStorage.setItem('clash.lang', lang)", lang)
            d.goto(server.url + "/leaderboard?format=draft")
            d.wait_for_selector(f"html[lang={lang}] [data-testid=leaderboard]")
            width = d.evaluate("() => document.documentElement.scrollWidth")
            assert width <= d.viewport_size["width"], f"the {lang} leaderboard scrolls sideways ({width}px)"
        # The player page of a stranger: rating, its history as a plot, results, games.
        for p, viewport in ((c, "desktop"), (d, "phone")):
            p.goto(server.url + f"/p/{handle_a}")
            p.wait_for_selector("[data-testid=rating-history]")
            assert p.locator("[data-testid=player-rating][data-format=draft]").count() == 1
            assert p.locator("[data-testid=player-campaign] li").count() == 6  # levels 0-5 of the campaign
            width = p.evaluate("() => document.documentElement.scrollWidth")
            assert width <= p.viewport_size["width"], "the player page scrolls sideways"
            p.screenshot(path=str(shots / f"player-page-{viewport}.png"), full_page=True)
            found[f"player page {viewport}"] = serious_violations(p)
        assert errors == []
        assert found == {k: [] for k in found}, found
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_friend_duel_chosen_rated_by_both_is_rated(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    host_ctx, friend_ctx = fast_context(browser, viewport=DESKTOP), fast_context(browser, viewport=PHONE)
    try:
        host, friend = host_ctx.new_page(), friend_ctx.new_page()
        host.goto(server.url + "/")
        host.check("[data-testid=friend-rated]")
        host.click("[data-testid=new-duel-friend]")
        link = host.locator("[data-testid=invite-link]").input_value()
        assert link.endswith("&rated=1")
        friend.goto(link)
        friend.wait_for_selector("[data-testid=rated-offer]")
        friend.screenshot(path=str(shots / "rated-offer-phone.png"))
        assert serious_violations(friend) == []
        friend.click("[data-testid=accept-rated]")
        friend.wait_for_selector("#game[data-index]")
        assert friend.locator("[data-testid=spectator]").count() == 0
        friend.on("dialog", lambda dialog: dialog.accept())
        friend.click("[data-testid=resign]")
        # Resigned in the setup: aborted and not rated (the abort rule, test_fair_play.py).
        for p in (host, friend):
            p.wait_for_selector("[data-testid=aborted-note]")
        assert friend.locator("[data-testid=rated-note]").count() == 0
        loser = friend.evaluate(ME_JS)
        status, board = server.get("/api/leaderboard?format=draft&include=provisional")
        assert status == 200
        assert all(p["handle"] != loser for p in board["players"])
    finally:
        host_ctx.close()
        friend_ctx.close()
