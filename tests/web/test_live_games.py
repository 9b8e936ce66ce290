"""The game server's shape (issue 35): one object per live game, its messages handled in order, a
failure in one game leaving every other game as it was, and no module reaching into another's
private names.  In process, on SQLite: a fake socket stands for a page."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.websockets import WebSocketState

from clashofdecks.web.connection import Connection
from clashofdecks.web.games import NewGame
from clashofdecks.web.live_game import LiveGame
from clashofdecks.web.protocol import RateLimiter
from clashofdecks.web.routes_common import Limits
from clashofdecks.web.routes_socket import SocketRoute
from clashofdecks.web.server import GameServer, ServerConfig
from clashofdecks.web.store import IdentityRow
from conftest import run_async

WEB = Path(__file__).resolve().parents[2] / "src" / "clashofdecks" / "web"
OWNER = "o" * 32
INVITEE = "i" * 32


def test_no_module_of_the_web_package_imports_another_s_private_name() -> None:
    """``from .x import _name`` across modules is how the route modules used to reach into
    ``server.py`` (16 private names); what a module shares it names without an underscore."""
    found = []
    for path in sorted(WEB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                private = [
                    a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
                ]
                if private:
                    found.append(
                        f"{path.relative_to(WEB)}: from {'.' * node.level}{node.module} import {private}"
                    )
    assert found == []


class FakeSocket:
    """A page's WebSocket that keeps what it is sent."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


def _page(identity: str | None = OWNER) -> tuple[Connection, FakeSocket]:
    ws = FakeSocket()
    return Connection(ws, RateLimiter(1000.0, 1000.0), identity=identity), ws  # type: ignore[arg-type]


async def _say(route: SocketRoute, page: Connection, text: str) -> None:
    """``text`` from the page, handled, and every frame it caused sent to the page."""
    await route._message(page, text)
    await page.flush()


async def _started(server: GameServer) -> None:
    """The server started, with the identities the tests' pages are (a game's end writes theirs)."""
    await server.start()
    for who in (OWNER, INVITEE):
        row = IdentityRow(who, f"guest-{who[:8]}", "")
        await server.run_db(lambda s, row=row: s.create_identity(row, "h" + row.id))  # type: ignore[misc]


async def _hot_seat(server: GameServer) -> LiveGame:
    live, _tokens = await server.table.create_game(NewGame(kind="hotseat", format="precon", seed=7), OWNER)
    return live


def _act(live: LiveGame) -> str:
    session = live.session
    action = session.legal_actions(session.to_move)[0]
    return json.dumps({"type": "act", "action": action, "index": len(session.steps)})


def test_a_failure_in_one_game_leaves_every_other_game_as_it_was(tmp_path: Path) -> None:
    """Game A's write fails unexpectedly: its page is told ``server_error`` (nothing changed) and A
    alone is dropped from memory; game B, whose move was held up behind nothing of A's, moves on; A
    reloads from the store, exactly where it was, and plays on."""

    async def play() -> None:
        server = GameServer(ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", agent_workers=0))
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            a, b = await _hot_seat(server), await _hot_seat(server)
            page_a, ws_a = _page()
            page_b, ws_b = _page()
            await _say(route, page_a, json.dumps({"type": "hello", "game": a.id, "tokens": []}))
            await _say(route, page_b, json.dumps({"type": "hello", "game": b.id, "tokens": []}))
            assert ws_a.sent[-1]["type"] == "state" and ws_b.sent[-1]["type"] == "state"

            held = asyncio.Event()
            go_on = asyncio.Event()

            async def broken_write(*_args: Any, **_kw: Any) -> None:
                held.set()
                await go_on.wait()  # A's handling hangs here, holding A's lock...
                raise RuntimeError("the disk is on fire")

            a.write = broken_write  # type: ignore[method-assign]
            moving_a = asyncio.create_task(route._message(page_a, _act(a)))
            await held.wait()
            assert a.lock.locked()
            await _say(route, page_b, _act(b))  # ...while B's move goes through
            assert ws_b.sent[-1]["type"] == "state" and ws_b.sent[-1]["index"] == 1
            go_on.set()
            await moving_a
            assert ws_a.sent[-1] == {
                "type": "error",
                "code": "server_error",
                "message": "the server could not do that; nothing changed",
            }
            assert a.id not in server.table.games and server.table.games[b.id] is b and not b.lock.locked()

            again, ws_again = _page()
            await _say(route, again, json.dumps({"type": "hello", "game": a.id, "tokens": []}))
            reloaded = server.table.games[a.id]
            assert reloaded is not a and ws_again.sent[-1]["index"] == 0  # nothing of the failed move
            await _say(route, again, _act(reloaded))
            assert ws_again.sent[-1]["type"] == "state" and ws_again.sent[-1]["index"] == 1
            await _say(route, page_b, _act(b))
            assert ws_b.sent[-1]["index"] == 2
        finally:
            await server.stop()

    run_async(play(), timeout=120)


def _server(tmp_path: Path, **options: Any) -> GameServer:
    return GameServer(
        ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", agent_workers=0, **options)
    )


class NeverReads(FakeSocket):
    """A page that never reads: its first frame is never taken off the wire, the rest pile up."""

    def __init__(self) -> None:
        super().__init__()
        self.closed: tuple[int, str] | None = None
        self.stuck = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.stuck.set()
        await asyncio.Event().wait()  # the network's buffers are full: this send never ends

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")
        self.application_state = WebSocketState.DISCONNECTED


def test_a_page_that_never_reads_is_closed_and_holds_nobody_up(tmp_path: Path) -> None:
    """A spectator whose page reads nothing: its frames wait in a queue of ``send_queue_frames``; one
    more and the socket is closed with code 4008, its frames dropped; the players' moves and frames
    never wait for it."""

    async def play() -> None:
        server = _server(tmp_path, send_queue_frames=3)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game = await _hot_seat(server)
            player, ws = _page()
            player.queue_limit = 3
            await _say(route, player, json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            slow = NeverReads()
            watcher = Connection(slow, RateLimiter(1000.0, 1000.0), queue_limit=3)  # type: ignore[arg-type]
            await route._message(watcher, json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            await slow.stuck.wait()  # its first frame (the game) is on the wire for good
            for move in range(1, 5):  # three frames wait, the fourth closes it
                assert slow.closed is None and len(watcher.outbox) == move - 1
                await _say(route, player, _act(game))
                assert ws.sent[-1]["index"] == move  # the player is answered at once, every time
            await asyncio.sleep(0)  # the close runs in the socket's own task
            assert slow.closed == (4008, "too slow: frames were not read")
            assert watcher.dropped and not watcher.outbox
            await _say(route, player, _act(game))
            assert ws.sent[-1]["index"] == 5 and not watcher.outbox  # nothing queued for it any more
        finally:
            await server.stop()

    run_async(play(), timeout=120)


def test_a_game_idle_in_memory_is_let_go_then_reloaded_exactly(tmp_path: Path) -> None:
    """A game nothing follows stays in memory ``idle_game_seconds``, then is let go; a page opening
    it reloads it from the store exactly where it was (history, revision, whose move), and it plays on."""

    async def play() -> None:
        server = _server(tmp_path, idle_game_seconds=60.0)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game = await _hot_seat(server)
            for _ in range(3):  # moves made with no page open (as an agent's are)
                async with game.lock:
                    seat = game.session.to_move
                    await game.apply(game.session.check(seat, game.session.legal_actions(seat)[0]))
            before = (
                [(st.seat, st.action) for st in game.session.steps],
                game.revision,
                game.session.to_move,
            )
            assert server.table.evict_idle(game.last_used + 59.0) == 0 and game.id in server.table.games
            assert server.table.evict_idle(game.last_used + 60.0) == 1 and game.id not in server.table.games
            page, ws = _page()
            await _say(route, page, json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            reloaded = server.table.games[game.id]
            after = (
                [(st.seat, st.action) for st in reloaded.session.steps],
                reloaded.revision,
                reloaded.session.to_move,
            )
            assert reloaded is not game and after == before and ws.sent[-1]["index"] == 3
            assert ws.sent[-1]["legal"] == game.session.legal_actions(game.session.to_move)
            await _say(route, page, _act(reloaded))
            assert ws.sent[-1]["type"] == "state" and ws.sent[-1]["index"] == 4
            assert server.table.evict_idle(reloaded.last_used + 3600.0) == 0  # a page follows it: kept
        finally:
            await server.stop()

    run_async(play(), timeout=120)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict) and value:
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    return [(path, value)]


def _at(frame: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        frame = frame[key]
    return frame


@pytest.mark.parametrize("kind", ["friend", "solo"])
def test_protocol_2_deltas_rebuild_the_full_frames_of_every_seat_and_spectator(
    tmp_path: Path, kind: str
) -> None:
    """A whole game with two pages for each seat and for a spectator, one asking protocol 1 (full
    ``state`` frames), one protocol 2 (``delta`` frames after the answer to ``hello``): after every
    change, the version-2 page's state rebuilt from its deltas equals the version-1 page's frame, and
    every value a delta carries is the one that frame has at the same place (nothing hidden leaks)."""
    import random

    from clashofdecks.web.deltas import apply_delta, base_of

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            req = NewGame(kind=kind, format="precon", seed=11)
            game, tokens = await server.table.create_game(req, OWNER)
            other = 1 - game.session.participant_seat(0)  # the invitee's seat
            invited = [(INVITEE, tokens[other])] if kind == "friend" else []
            pairs: list[tuple[tuple[Connection, FakeSocket], tuple[Connection, FakeSocket]]] = []
            for who, token in [(OWNER, None), *invited, (None, None)]:
                pair = (_page(who), _page(who))
                for version, (page, _ws) in enumerate(pair, start=1):
                    hello = {"type": "hello", "game": game.id, "tokens": [], "protocol": version}
                    if token is not None and version == 1:
                        hello["tokens"] = [token]  # the invitee takes the seat
                    await _say(route, page, json.dumps(hello))
                pairs.append(pair)
            states = [
                base_of(next(f for f in v2_ws.sent if f["type"] == "state")) for _v1, (_p2, v2_ws) in pairs
            ]
            seen = [len(v2_ws.sent) for _v1, (_page2, v2_ws) in pairs]
            rng = random.Random(3)
            for _ in range(2000):
                if game.session.is_over:
                    break
                to_move = game.session.to_move
                mover = next(v1 for v1, _v2 in pairs if to_move in v1[0].seats)
                legal = game.session.legal_actions(to_move)
                act = {"type": "act", "action": rng.choice(legal), "index": len(game.session.steps)}
                await _say(route, mover[0], json.dumps(act))
                for i, ((p1, ws1), (p2, ws2)) in enumerate(pairs):
                    await p1.flush()
                    await p2.flush()
                    full = base_of([f for f in ws1.sent if f["type"] == "state"][-1])
                    for delta in ws2.sent[seen[i] :]:
                        if delta["type"] != "delta":
                            continue
                        for path, value in _leaves(delta["changed"]):
                            assert _at(full, path) == value
                        states[i] = apply_delta(states[i], delta)
                    seen[i] = len(ws2.sent)
                    assert states[i] == full, [f["type"] for f in ws2.sent]
                    assert not any(f["type"] == "state" for f in ws2.sent[1:])
            assert game.session.is_over and game.id in server.table.games  # ended and stored
            assert not any(f["type"] == "error" for pair in pairs for _p, ws in pair for f in ws.sent)
        finally:
            await server.stop()

    run_async(play(), timeout=600)


def test_a_broadcast_to_protocol_2_pages_only_serialises_nothing_but_their_deltas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page of protocol version 2 is sent a delta made from the frames' dicts: the common part's
    JSON text (what a whole ``state`` frame is joined from) is not made when no page needs it."""
    from clashofdecks.web import live_game
    from clashofdecks.web.games import dumps

    dumped: list[dict[str, Any]] = []

    def counting_dumps(obj: dict[str, Any]) -> str:
        dumped.append(obj)
        return dumps(obj)

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game = await _hot_seat(server)
            page, ws = _page()
            await _say(
                route, page, json.dumps({"type": "hello", "game": game.id, "tokens": [], "protocol": 2})
            )
            monkeypatch.setattr(live_game, "dumps", counting_dumps)
            for _ in range(6):
                await _say(route, page, _act(game))
            assert [f["type"] for f in ws.sent[1:]] == ["delta"] * 6
            assert [d.get("type") for d in dumped] == ["delta"] * 6
        finally:
            await server.stop()

    run_async(play(), timeout=600)
