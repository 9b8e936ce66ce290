"""Bot accounts in the browser (docs/web.md, "Bots"), at phone size in German and Japanese: a person ticks
"also meet bots", presses "play now" and is matched with a bot account waiting in the queue, whose seat
bears the bot badge; the bots' leaderboard and a bot's player page show the badge and the owner.  The
screenshots go to ``CLASH_SCREENSHOT_DIR``; the pages are axe clean."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_bot_accounts import PASSWORD, Queuer, _account, _bot
from test_browser import PHONE, fast_context, shots_dir
from test_direct_play import serious_violations

from clashofdecks.web.store import open_store
from conftest import ServerProcess, sign_in


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # The bot's rating below is seeded without games behind it: the distinct-opponents rule is off.
    proc = ServerProcess(tmp_path_factory.mktemp("web"), "--limit", "leaderboard_opponents=0").start()
    yield proc
    proc.stop()


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_a_person_who_ticks_bots_meets_one_and_sees_it_marked(
    server: ServerProcess, browser: Any, tmp_path: Path, lang: str
) -> None:
    shots = shots_dir(tmp_path)
    owner, owner_handle, _u = _account(server)
    bot_session, bot_handle = _bot(server, owner)
    context = fast_context(browser, viewport=PHONE)
    context.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    bot = Queuer(server, bot_session)
    found: dict[str, Any] = {}
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("[data-testid=play-now]")
        page.select_option("[data-testid=play-now-format]", "precon")
        page.check("[data-testid=play-now-bots]")
        page.screenshot(path=str(shots / f"play-now-bots-phone-{lang}.png"))
        found["lobby"] = serious_violations(page)
        page.click("[data-testid=play-now]")
        page.wait_for_selector("[data-testid=play-now-leave]")
        assert bot.queue("precon")["status"] == "waiting"
        assert bot.recv()["type"] == "matched"
        page.wait_for_url("**/g/*", timeout=30000)
        page.wait_for_selector("[data-testid=bot-badge]")
        page.screenshot(path=str(shots / f"bot-game-phone-{lang}.png"))
        store = open_store(f"sqlite:///{server.data_dir / 'web.sqlite3'}")
        try:
            row = store.identity_by_handle(bot_handle)
            assert row is not None and row.is_bot
            store.set_rating(row.id, "precon", 30.0, 2.5, 12, 8, 4)
        finally:
            store.close()
        page.goto(server.url + "/leaderboard?format=precon&list=bots")
        page.wait_for_selector("[data-testid=leaderboard]")
        listed = page.locator("[data-testid=leaderboard-row]").evaluate_all(
            "(r) => r.map((x) => x.dataset.handle)"
        )
        assert bot_handle in listed
        assert page.locator(f"[data-handle='{bot_handle}'] [data-testid=bot-badge]").count() == 1
        page.screenshot(path=str(shots / f"leaderboard-bots-phone-{lang}.png"), full_page=True)
        found["leaderboard"] = serious_violations(page)
        page.click("[data-testid=leaderboard-list-people]")
        page.wait_for_selector("[data-testid=leaderboard-list-people][aria-current=page]")
        assert page.locator(f"[data-handle='{bot_handle}']").count() == 0  # people only
        page.goto(server.url + f"/p/{bot_handle}")
        page.wait_for_selector("[data-testid=player-page] [data-testid=bot-badge]")
        assert owner_handle in page.locator("[data-testid=bot-owner]").inner_text()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the bot's page scrolls sideways"
        page.screenshot(path=str(shots / f"bot-player-page-phone-{lang}.png"), full_page=True)
        found["player page"] = serious_violations(page)
        assert errors == []
        assert found == {k: [] for k in found}, found
    finally:
        bot.close()
        context.close()


def test_an_owner_marks_a_bot_on_the_account_page_and_sees_its_token_once(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    owner, _owner_handle, _u = _account(server)
    played, _played_handle, played_username = _account(server)
    server.new_game(session=played, kind="solo", format="precon", deck=1)
    _fresh_session, fresh_handle, fresh_username = _account(server)
    context = fast_context(browser, viewport=PHONE)
    context.add_init_script("localStorage.setItem('clash.lang', 'ja')")
    sign_in(context, server, owner)
    page = context.new_page()
    try:
        page.goto(server.url + "/account")
        page.fill("[data-testid=bot-username]", played_username)
        page.fill("[data-testid=bot-password]", PASSWORD)
        page.click("[data-testid=mark-bot]")
        refusal = page.wait_for_selector("[data-testid=form-error]").inner_text()
        assert "対局済み" in refusal  # web.err_played_already, in the page's language
        page.fill("[data-testid=bot-username]", fresh_username)
        page.fill("[data-testid=bot-password]", PASSWORD)
        page.click("[data-testid=mark-bot]")
        token = page.wait_for_selector("[data-testid=bot-token] code").inner_text()
        assert fresh_handle in page.locator("[data-testid=bot-token]").inner_text()
        page.screenshot(path=str(shots_dir(tmp_path) / "bot-token-phone-ja.png"), full_page=True)
        status, me = server.get("/api/me", session=token)
        assert status == 200 and me["identity"] == fresh_handle and me["bot"] is True
    finally:
        context.close()
