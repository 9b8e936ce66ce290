"""Clocks and the campaign in Chromium (docs/web.md, "Clocks", "The solo campaign"): a real-time duel
lost on time, a correspondence duel resumed after the server was killed and started again, the
campaign opening level 1 after a win at level 0.  Time moves by the test-only
``CLASH_TEST_CLOCK_FILE`` (no sleeps).  Screenshots go to ``CLASH_SCREENSHOT_DIR``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_browser import DESKTOP, PHONE, fast_context, shots_dir
from test_clocks import T0, FileClock
from test_direct_play import serious_violations

from clashofdecks.web import workers
from clashofdecks.web.games import record_of_row
from clashofdecks.web.store import open_store
from conftest import Client, ServerProcess


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FileClock:
    c = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(c.path))
    return c


def _axe() -> bool:
    """Whether axe-core (the dev extra's ``axe-playwright-python``) is installed for the checks."""
    import importlib.util

    return importlib.util.find_spec("axe_playwright_python") is not None


def _session_of(ctx: Any) -> str:
    return str(next(c["value"] for c in ctx.cookies() if c["name"] == "clash_session"))


def _game_id(page: Any) -> str:
    page.wait_for_selector("#game[data-index]")
    return str(page.url.split("/g/")[1].split("#")[0])


def _friend_duel(proc: ServerProcess, browser: Any, control: str) -> tuple[Any, Any, str]:
    """The host (desktop) starts a friend duel with ``control`` from the lobby; the friend (phone)
    opens the invite.  Both pages then show both clocks, one running."""
    host_ctx = fast_context(browser, viewport=DESKTOP)
    friend_ctx = fast_context(browser, viewport=PHONE)
    host = host_ctx.new_page()
    host.goto(proc.url + "/")
    host.select_option("[data-testid=time-control]", control)
    host.click("[data-testid=new-duel-friend]")
    link = host.locator("[data-testid=invite-link]").input_value()
    game = _game_id(host)
    friend = friend_ctx.new_page()
    friend.goto(link)
    for page in (host, friend):
        page.wait_for_selector(f"[data-testid=clocks][data-control='{control}'] [data-running=true]")
    return host, friend, game


def _play_one(page: Any) -> None:
    index = page.get_attribute("#game", "data-index")
    page.locator("[data-testid=moves] [data-action]").first.click()
    page.wait_for_function("(i) => document.querySelector('#game').dataset.index !== i", arg=index)


def _to_move_page(host: Any, friend: Any) -> Any:
    """The page of the player to move (``#game`` carries the page's seat and the seat to move), once
    its move list is drawn."""
    host.wait_for_selector("#game[data-to-move]")
    to_move = host.get_attribute("#game", "data-to-move")
    page = host if host.get_attribute("#game", "data-seat") == to_move else friend
    page.wait_for_selector("[data-testid=moves] [data-action]")
    return page


def test_a_realtime_duel_is_lost_on_time(tmp_path: Path, browser: Any, clock: FileClock) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        host, friend, _game = _friend_duel(proc, browser, "3+2")
        shots = shots_dir(tmp_path)
        mover = _to_move_page(host, friend)
        seat = int(mover.get_attribute("#game", "data-to-move"))
        assert mover.get_attribute(f"[data-testid=clock-{seat}]", "data-running") == "true"
        assert mover.locator(f"[data-testid=clock-{1 - seat}] .clock-time").inner_text() == "3:00"
        if _axe():
            assert serious_violations(host) == [] and serious_violations(friend) == []
        host.screenshot(path=str(shots / "clocks-realtime-desktop.png"), full_page=True)
        friend.screenshot(path=str(shots / "clocks-realtime-phone.png"), full_page=True)
        clock.set(T0 + 181)  # past the running player's three minutes
        for page in (host, friend):
            page.wait_for_selector("[data-testid=game-over]")
            assert page.get_attribute("[data-testid=game-over]", "data-winner") == str(1 - seat)
        reason = host.locator("[data-testid=reason]").inner_text()
        assert "ran out of time" in reason, reason
        assert host.locator(f"[data-testid=clock-{seat}] .clock-time").inner_text() == "0:00"
        friend.screenshot(path=str(shots / "clocks-lost-on-time-phone.png"), full_page=True)
        host.screenshot(path=str(shots / "clocks-lost-on-time-desktop.png"), full_page=True)
    finally:
        proc.stop()


def test_a_correspondence_duel_resumes_after_a_server_restart(
    tmp_path: Path, browser: Any, clock: FileClock
) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        host, friend, game = _friend_duel(proc, browser, "1d")
        for _ in range(3):
            _play_one(_to_move_page(host, friend))
        mover = _to_move_page(host, friend)
        waiting = friend if mover is host else host
        seat = int(mover.get_attribute("#game", "data-to-move"))
        index = mover.get_attribute("#game", "data-index")
        proc.stop(kill=True)
        clock.set(T0 + 5 * 3600)
        proc.start()  # the same port: the pages reconnect by themselves
        for page in (host, friend):
            # The page counts the running clock down from the frame's time left (19 h after 5 h).
            page.wait_for_function(
                "(s) => /^(19 h 0 min|18 h 59 min)$/.test("
                "(document.querySelector(`[data-testid=clock-${s}] .clock-time`) || {}).textContent)",
                arg=seat,
            )
            assert page.get_attribute("#game", "data-index") == index
        # "My games" marks the game where it is this player's turn, with the time left.
        mover.goto(proc.url + "/")
        mark = mover.locator(f"[data-testid=my-games] li[data-game='{game}'] [data-testid=your-turn]")
        mark.wait_for()
        assert "19 h" in mark.inner_text()
        if _axe():
            assert serious_violations(mover) == []
        waiting.goto(proc.url + "/")
        waiting.wait_for_selector(f"[data-testid=my-games] li[data-game='{game}']")
        assert (
            waiting.locator(f"[data-testid=my-games] li[data-game='{game}'] [data-testid=your-turn]").count()
            == 0
        )
        shots = shots_dir(tmp_path)
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            mover.set_viewport_size(viewport)
            mover.screenshot(path=str(shots / f"clocks-your-turn-{size}.png"), full_page=True)
        mover.click(f"[data-testid=my-games] li[data-game='{game}'] [data-testid=resume-link]")
        mover.wait_for_selector("[data-testid=clocks][data-control='1d']")
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            mover.set_viewport_size(viewport)
            mover.screenshot(path=str(shots / f"clocks-correspondence-{size}.png"), full_page=True)
        _play_one(mover)  # the game goes on after the restart
    finally:
        proc.stop()


def _play_to_the_end(proc: ServerProcess, game: str, session: str, rng: random.Random) -> int | None:
    """Play the solo seat with the greedy agent (the test reads the game's record from the store,
    seed and all, as the server's own AI workers do) and return the winner."""
    store = open_store(f"sqlite:///{proc.data_dir / 'web.sqlite3'}")
    c = Client(proc, game, [], session=session)
    try:
        while c.state["result"] is None:
            if not c.state["legal"]:
                c.wait_state()
                continue
            row = store.load_game(game)
            assert row is not None and len(row.actions) == c.state["index"]
            action = workers.agent_action(record_of_row(row).to_dict(), "greedy", rng.randrange(1 << 30))
            c.act(action)
        winner = c.state["result"]["winner"]
        return None if winner is None else int(winner)
    finally:
        c.close()
        store.close()


def test_the_campaign_opens_level_1_after_a_win_at_level_0(tmp_path: Path, browser: Any) -> None:
    proc = ServerProcess(tmp_path, "--rate", "1000", "--agent-workers", "0").start()
    rng = random.Random(5)
    try:
        ctx = fast_context(browser, viewport=DESKTOP)
        page = ctx.new_page()
        page.goto(proc.url + "/")
        page.wait_for_selector("[data-testid=campaign-next][data-level='0']")
        assert page.get_attribute("[data-testid=campaign-level][data-level='1']", "data-open") == "false"
        session = _session_of(ctx)
        for _attempt in range(12):  # the greedy agent wins level 0 about every other game
            page.click("[data-testid=campaign-next]")
            game = _game_id(page)
            page.goto(proc.url + "/rules")  # the game is played over the test's own socket
            if _play_to_the_end(proc, game, session, rng) == 0:
                break
            page.goto(proc.url + "/")
            page.wait_for_selector("[data-testid=campaign-level][data-level='0'][data-best=lost]")
        else:
            pytest.fail("no win at level 0 in 12 games")
        page.goto(proc.url + "/")
        page.wait_for_selector("[data-testid=campaign-level][data-level='0'][data-best=won]")
        assert page.get_attribute("[data-testid=campaign-level][data-level='1']", "data-open") == "true"
        assert page.get_attribute("[data-testid=campaign-level][data-level='2']", "data-open") == "false"
        shots = shots_dir(tmp_path)
        page.locator("[data-testid=campaign]").screenshot(path=str(shots / "campaign-desktop.png"))
        phone = fast_context(browser, viewport=PHONE)
        phone.add_cookies([{"name": "clash_session", "value": session, "url": proc.url, "httpOnly": True}])
        p2 = phone.new_page()
        p2.goto(proc.url + "/")
        p2.wait_for_selector("[data-testid=campaign-next][data-level='1']")
        p2.screenshot(path=str(shots / "campaign-phone.png"), full_page=True)
        if _axe():
            assert serious_violations(p2) == []
        page.click("[data-testid=campaign-next][data-level='1']")  # one click to the next level
        game = _game_id(page)
        store = open_store(f"sqlite:///{proc.data_dir / 'web.sqlite3'}")
        row = store.load_game(game)
        store.close()
        from clashofdecks.options import Threat

        assert row is not None and row.kind == "solo" and row.setup["threat"] == Threat.level(1).to_dict()
        # The same campaign for the player's page.
        me = page.evaluate("() => fetch('/api/me').then((r) => r.json())")
        status, theirs = proc.get(f"/api/players/{me['identity']}/campaign")
        assert status == 200 and theirs["next"] == 1 and theirs["levels"][0]["best"] == "won"
    finally:
        proc.stop()
