"""The page speaks protocol version 2 (docs/web.md, "Protocol versions") in a real Chromium: its
``hello`` asks for it, it gets deltas after each move, and a page whose socket went away mid-game
while the opponent moved shows, once it has reconnected and played on from deltas, the very board
and frame of a page opened afresh (a full frame); a delta that does not fit makes it ask ``resync``."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_browser import DESKTOP, click_one_action, fast_context, index_of, wait_change

from conftest import ServerProcess

pytest.importorskip("playwright", reason="the web extra (with Playwright) is not installed")

#: The page's frame on screen as the server sent it: without what the page adds (``receivedAt``)
#: and what depends on how it came (the answer to ``hello`` carries the log; a delta the last events).
FRAME_ON_SCREEN = """async () => {
  const { state } = await import('/static/store.js');
  const { receivedAt, log, open_seats, events, ...frame } = state.frame;
  return JSON.stringify(frame);
}"""


#: The page has a state again (after a delta that did not fit), another than the one it had.
NEW_STATE_SHOWN = """() => window.store.base && window.store.base !== window.before
  && !window.store.resyncing && !window.store.animating && !window.store.frames.length"""


class Wire:
    """The messages one page sends and receives on its game sockets."""

    def __init__(self, page: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        ws.on("framereceived", lambda payload: self.received.append(json.loads(payload)))

    def types(self) -> list[str]:
        return [f["type"] for f in self.received]


def moves(page: Any, rng: random.Random, count: int) -> int:
    """Up to ``count`` decisions of this page by clicking while it is to move; how many it made."""
    made = 0
    while made < count and not page.locator("[data-testid=game-over]").count():
        if not click_one_action(page, rng):
            break
        made += 1
    return made


def play_until(pages: list[Any], rng: random.Random, index: int) -> None:
    for _ in range(500):
        if index_of(pages[0]) >= index or pages[0].locator("[data-testid=game-over]").count():
            return
        if not any(moves(p, rng, 1) for p in pages):
            pages[0].wait_for_timeout(100)
    raise AssertionError(f"the duel did not reach action {index}")


def same_as_a_fresh_page(context: Any, page: Any, url: str) -> None:
    """A new page of the same player, which gets the game as one full frame, shows what ``page``
    shows from its deltas: the same frame and the same board."""
    fresh = context.new_page()
    fresh.goto(url)
    fresh.wait_for_function(
        "(i) => Number(document.querySelector('#game')?.dataset.index) === i", arg=index_of(page)
    )
    assert json.loads(page.evaluate(FRAME_ON_SCREEN)) == json.loads(fresh.evaluate(FRAME_ON_SCREEN))
    assert page.inner_text("[data-testid=board]") == fresh.inner_text("[data-testid=board]")
    fresh.close()


def test_the_page_plays_over_protocol_2_and_a_reconnect_mid_game_shows_the_right_board(
    server: ServerProcess, browser: Any
) -> None:
    host_ctx = fast_context(browser, viewport=DESKTOP)
    guest_ctx = fast_context(browser, viewport=DESKTOP)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    errors: list[str] = []
    for page in (host, guest):
        page.on("pageerror", lambda e: errors.append(str(e)))
    wire = Wire(guest)
    host.goto(server.url + "/")
    host.select_option("#friend-format", "precon")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    guest.goto(invite.input_value())
    guest.wait_for_selector("[data-testid=to-move]")
    url = guest.url
    rng = random.Random(7)
    play_until([host, guest], rng, 12)
    while not host.locator("[data-action]").count():  # the host is to move when the guest goes
        assert moves(guest, rng, 1) == 1
    hellos = [m for m in wire.sent if m["type"] == "hello"]
    assert [m.get("protocol") for m in hellos] == [2]
    assert wire.types().count("delta") >= 10 and wire.types().count("state") == 1

    # The guest's socket goes away, and the page does not reconnect by itself yet.
    guest.evaluate(
        "async () => { const { state } = await import('/static/store.js');"
        " const ws = state.ws; state.ws = null; ws.close(); }"
    )
    guest.wait_for_selector("[data-testid=notice]")
    shown = index_of(guest)
    # The host moves meanwhile.
    host_moved = moves(host, rng, 3)
    assert host_moved >= 1 and index_of(host) == shown + host_moved and index_of(guest) == shown
    # The page reconnects as it does after a lost connection: hello again, the game as it stands.
    guest.evaluate("async () => { const { connect } = await import('/static/messages.js'); connect(); }")
    guest.wait_for_function(
        "(i) => Number(document.querySelector('#game').dataset.index) === i", arg=index_of(host)
    )
    hellos = [m for m in wire.sent if m["type"] == "hello"]
    assert [m.get("protocol") for m in hellos] == [2, 2]
    same_as_a_fresh_page(guest_ctx, guest, url)
    # Played on from deltas after the reconnect: still the board a fresh page shows.
    deltas_before = wire.types().count("delta")
    play_until([host, guest], rng, index_of(host) + 8)
    assert wire.types().count("delta") > deltas_before
    same_as_a_fresh_page(guest_ctx, guest, url)
    assert not errors, errors
    host_ctx.close()
    guest_ctx.close()


def test_a_delta_that_does_not_fit_makes_the_page_ask_for_the_whole_state(
    server: ServerProcess, browser: Any
) -> None:
    """The server's deltas always fit; one made not to (a path to remove that is not there, slipped
    in by the test on the wire) is not shown: the page asks ``resync`` and shows the whole state;
    when the resync is refused (the test answers an error in the server's place), the page opens a
    new socket, whose ``hello`` brings the whole state."""
    context = fast_context(browser, viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    routes: list[Any] = []
    sent: list[dict[str, Any]] = []
    refuse_resync = False

    def route(ws: Any) -> None:  # the page's socket, through the test: what it sends is recorded
        routes.append(ws)
        to_server = ws.connect_to_server()

        def from_page(message: str) -> None:
            sent.append(json.loads(message))
            if refuse_resync and sent[-1]["type"] == "resync":
                ws.send(json.dumps({"type": "error", "code": "rate_limited", "message": "slow down"}))
            else:
                to_server.send(message)

        ws.on_message(from_page)
        to_server.on_message(lambda message: ws.send(message))

    page.route_web_socket("**/ws", route)
    page.goto(server.url + "/")
    page.select_option("#solo-format", "precon")
    page.select_option("#solo-deck", "1")
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action^='play ']")
    assert [m.get("protocol") for m in sent if m["type"] == "hello"] == [2]
    page.evaluate("async () => { window.store = (await import('/static/store.js')).state; }")
    before = index_of(page)
    page.evaluate("() => { window.before = window.store.base; }")
    routes[-1].send(json.dumps({"type": "delta", "changed": {"index": 999}, "removed": [["no", "such"]]}))
    # The answer to ``resync`` shown: the page asked, and takes deltas again.
    page.wait_for_function(NEW_STATE_SHOWN)
    assert [m["type"] for m in sent if m["type"] == "resync"] == ["resync"]
    assert index_of(page) == before  # never 999: the delta that did not fit was not shown
    page.click("[data-action^='play ']")
    wait_change(page, before)
    assert index_of(page) == before + 1
    same_as_a_fresh_page(context, page, page.url)

    refuse_resync = True
    page.evaluate("() => { window.before = window.store.base; }")
    routes[-1].send(json.dumps({"type": "delta", "changed": {}, "removed": [["no", "such"]]}))
    page.wait_for_function(NEW_STATE_SHOWN)
    assert [m.get("protocol") for m in sent if m["type"] == "hello"] == [2, 2] and len(routes) == 2
    assert index_of(page) == before + 1
    refuse_resync = False
    page.click("[data-action^='play '], [data-action=end]")
    wait_change(page, before + 1)
    same_as_a_fresh_page(context, page, page.url)
    assert not errors, errors
    context.close()
