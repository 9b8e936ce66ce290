"""Fair play and names in Chromium (docs/web.md, "Fair play in rated games", "Names"): two strangers at
phone size, one German and one Japanese, type their names just before "play now" and are paired; each
page shows both names with their unique handles, each seat's presence and the abort button, in its own
language only; one player leaves and comes back (away, then connected); the player to move idles until
the clock ends the game (test clock: ``CLASH_TEST_CLOCK_FILE``, no waiting), which ended before each
player's first turn, so it is aborted and unrated, said in each page's language.  A rated game resigned
in the setup is aborted and unrated too, "you" win or lose, the report sent from the game-over box is
stored, and the leaderboard shows each unlisted guest its own standing and what it takes to appear. A
friend duel offering hints: the invitee names itself and agrees on the invite page. axe-core finds
nothing serious on these pages; phone screenshots go to ``CLASH_SCREENSHOT_DIR``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import PHONE, fast_context, shots_dir
from test_clocks import T0, FileClock
from test_direct_play import serious_violations

from clashofdecks.web import reports
from clashofdecks.web.store import open_store
from conftest import ServerProcess

#: Japanese script (kana and kanji): none on the German page but the Japanese player's own name.
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FileClock:
    c = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(c.path))
    return c


@pytest.fixture
def server(tmp_path: Path, clock: FileClock) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path / "web", "--rate", "200", "--agent-workers", "0").start()
    yield proc
    proc.stop()


def _page(browser: Any, lang: str) -> Any:
    ctx = fast_context(browser, viewport=PHONE)
    ctx.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())  # the confirmations (resign, report) are answered yes
    return page


def _axe() -> bool:
    import importlib.util

    return importlib.util.find_spec("axe_playwright_python") is not None


def _play_now(server: ServerProcess, pages: list[tuple[Any, str]]) -> str:
    """Each page opens the lobby, types its name and taps "play now" at once; both open one game."""
    for page, _name in pages:
        page.goto(server.url + "/")
        page.wait_for_selector("[data-testid=play-now]")
    for page, name in pages:
        page.fill("[data-testid=name]", name)
        page.click("[data-testid=play-now]")  # no pause: the name typed just now must count
    games = []
    for page, _name in pages:
        page.wait_for_url("**/g/*", timeout=30000)
        page.wait_for_selector("#game[data-index]")
        games.append(page.url.split("/g/")[1].split("#")[0])
    assert games[0] == games[1]
    return str(games[0])


def _connected(page: Any, seats: tuple[int, ...] = (0, 1), state: str = "connected") -> None:
    for seat in seats:
        page.wait_for_selector(f"[data-testid=presence-{seat}][data-presence={state}]", timeout=30000)


def test_strangers_named_just_before_play_now_each_in_their_language_idle_until_time(
    server: ServerProcess, clock: FileClock, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    errors: list[str] = []
    de, ja = _page(browser, "de"), _page(browser, "ja")
    for p in (de, ja):
        p.on("pageerror", lambda e: errors.append(str(e)))
    found: dict[str, list[str]] = {}
    try:
        game = _play_now(server, [(de, "Anna"), (ja, "ゆき")])
        for p in (de, ja):
            _connected(p)
            text = p.inner_text("#game")
            assert "Anna" in text and "ゆき" in text  # both names, on both pages
            assert p.locator("[data-testid=abort]").count() == 1  # rated, not begun: abort offered
            for seat in (0, 1):  # rated: the unique handle beside each name
                p.wait_for_selector(f"[data-testid=handle-{seat}]")
                assert p.inner_text(f"[data-testid=handle-{seat}]").strip().startswith("@guest-")
        # No hint in a rated game while it runs, and the button says why.
        why = de.get_attribute("[data-testid=hint]", "title")
        assert why == "Keine Tipps in einer laufenden gewerteten Partie"
        assert "Du bist Anna" in de.inner_text(".status-facts")  # each seat is named as its player typed
        assert "あなたはゆきです" in ja.inner_text(".status-facts")
        german = de.inner_text("body").replace("ゆき", "")
        assert not JAPANESE.search(german), JAPANESE.findall(german)[:10]
        assert "verbunden" in german and "Abbrechen" in german
        assert "接続中" in ja.inner_text("body") and "中止" in ja.inner_text("body")
        de.screenshot(path=str(shots / "fairplay-rated-game-de-phone.png"))
        ja.screenshot(path=str(shots / "fairplay-rated-game-ja-phone.png"))
        if _axe():
            found["game de"], found["game ja"] = serious_violations(de), serious_violations(ja)

        # The Japanese player leaves: away on the German page; back: connected again.
        ja_seat = int(ja.get_attribute("#game", "data-seat") or "0")
        ja.goto(server.url + "/")
        _connected(de, (ja_seat,), "away")
        assert "abwesend" in de.inner_text("[data-testid=clocks]")
        ja.goto(server.url + f"/g/{game}")
        _connected(ja)
        _connected(de, (ja_seat,))

        # The player to move idles: the clock alone ends the game (5+3: five minutes and more).
        clock.set(T0 + 400)
        for p in (de, ja):
            p.wait_for_selector("[data-testid=game-over]", timeout=60000)
            p.wait_for_selector("[data-testid=aborted-note][data-code=before_first_turns]")
            assert p.locator("[data-testid=rated-note]").count() == 0  # aborted: not rated
        assert "Abgebrochen, nicht gewertet." in de.inner_text("[data-testid=aborted-note]")
        assert "レーティング対象外" in ja.inner_text("[data-testid=aborted-note]")
        german = de.inner_text("body").replace("ゆき", "")
        assert not JAPANESE.search(german), JAPANESE.findall(german)[:10]
        de.screenshot(path=str(shots / "fairplay-aborted-de-phone.png"))
        ja.screenshot(path=str(shots / "fairplay-aborted-ja-phone.png"))
        if _axe():
            found["over de"], found["over ja"] = serious_violations(de), serious_violations(ja)
    finally:
        for p in (de, ja):
            p.context.close()
    assert not errors, errors
    assert not any(found.values()), found


def test_a_rated_game_resigned_in_the_setup_is_aborted_and_the_report_is_stored(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    errors: list[str] = []
    de, ja = _page(browser, "de"), _page(browser, "ja")
    for p in (de, ja):
        p.on("pageerror", lambda e: errors.append(str(e)))
    found: dict[str, list[str]] = {}
    try:
        game = _play_now(server, [(de, "Bruno"), (ja, "はな")])
        de.click("[data-testid=resign]")  # in the setup: nobody has finished a turn
        for p in (de, ja):
            p.wait_for_selector("[data-testid=aborted-note][data-code=before_first_turns]", timeout=30000)
        assert de.inner_text("[data-testid=game-over] .big") == "Du hast verloren"
        assert ja.inner_text("[data-testid=game-over] .big") == "あなたの勝ち！"
        status, board = server.get("/api/leaderboard?format=draft&include=provisional")
        assert status == 200 and board["players"] == []  # nobody's rating moved

        ja.click("[data-testid=report]")
        ja.select_option("[data-testid=report-reason]", "stalling")
        ja.fill("[data-testid=report-note]", "gave up at once")
        ja.screenshot(path=str(shots / "fairplay-report-ja-phone.png"))
        if _axe():
            found["report ja"] = serious_violations(ja)
        ja.click("[data-testid=report-send]")
        ja.wait_for_selector("[data-testid=report-sent]")
        de.click("[data-testid=report]")
        de.screenshot(path=str(shots / "fairplay-report-de-phone.png"))
        if _axe():
            found["report de"] = serious_violations(de)
        # The leaderboard shows each reader's own standing, unlisted: a guest, what it takes to appear.
        for p, lang in ((de, "de"), (ja, "ja")):
            p.goto(server.url + "/leaderboard?format=draft")
            p.wait_for_selector("[data-testid=my-standing] [data-testid=how-to-appear]")
            assert p.locator("[data-testid=guest-standing]").count() == 1
            p.screenshot(path=str(shots / f"fairplay-leaderboard-{lang}-phone.png"), full_page=True)
            if _axe():
                found[f"leaderboard {lang}"] = serious_violations(p)
        assert "Konto" in de.inner_text("[data-testid=my-standing]")
    finally:
        for p in (de, ja):
            p.context.close()
    store = open_store(f"sqlite:///{server.data_dir / 'web.sqlite3'}")
    try:
        kept = reports.reports_of(store.engine, game)
    finally:
        store.close()
    assert len(kept) == 1 and kept[0][2] == "stalling: gave up at once", kept
    assert not errors, errors
    assert not any(found.values()), found


def test_the_invitee_names_itself_and_agrees_to_hints_on_the_invite_page(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    host, friend = _page(browser, "ja"), _page(browser, "de")
    try:
        host.goto(server.url + "/")
        host.check("[data-testid=friend-hints]")
        host.click("[data-testid=new-duel-friend]")
        link = host.locator("[data-testid=invite-link]").input_value()
        assert link.endswith("&hints=1")
        friend.goto(link)
        friend.wait_for_selector("[data-testid=invite-panel]")
        friend.fill("[data-testid=invite-name]", "Klara")
        friend.check("[data-testid=invite-hints]")
        friend.screenshot(path=str(shots / "fairplay-invite-de-phone.png"))
        found = serious_violations(friend) if _axe() else []
        friend.click("[data-testid=join-game]")
        friend.wait_for_selector("#game[data-index]")
        for p in (host, friend):
            p.wait_for_function("() => document.querySelector('#game').innerText.includes('Klara')")
        # The host typed no name: the German page calls it "Spieler 1" or "Spieler 2", not in Japanese.
        assert not JAPANESE.search(friend.inner_text("body"))
    finally:
        for p in (host, friend):
            p.context.close()
    assert not found, found


REGISTER_JS = """([username, password]) => fetch('/api/account/register', {method: 'POST',
  headers: {'Content-Type': 'application/json'},
  body: JSON.stringify({username, password})}).then((r) => r.status)"""


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_an_account_chooses_its_handle_on_the_account_page(
    server: ServerProcess, browser: Any, tmp_path: Path, lang: str
) -> None:
    shots = shots_dir(tmp_path)
    page = _page(browser, lang)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("[data-testid=play-now]")
        assert page.evaluate(REGISTER_JS, [f"chooser_{lang}", "a long enough password"]) == 200
        page.goto(server.url + "/account")
        page.wait_for_selector("[data-testid=choose-handle]")
        old = page.inner_text("[data-testid=handle]")
        page.fill("[data-testid=choose-handle]", f"Fox_{lang}")
        page.screenshot(path=str(shots / f"fairplay-handle-{lang}-phone.png"), full_page=True)
        found = serious_violations(page) if _axe() else []
        page.click("[data-testid=save-handle]")
        page.wait_for_selector(f"[data-testid=handle]:text-is('fox_{lang}')")
        assert page.locator("[data-testid=choose-handle]").count() == 0  # once
        page.goto(server.url + f"/p/{old}")  # the old address leads to the new one
        page.wait_for_selector(f"[data-testid=player-page][data-handle=fox_{lang}]")
        assert page.url.endswith(f"/p/fox_{lang}")
    finally:
        page.context.close()
    assert not found, found
