"""Protocol version 2 in the page: the browser's own ``applyDelta`` (static/deltas.js, run by Node)
rebuilds, from the frames a real server sent, the full frame version 1 sends, after every change of
whole random games: friend duels (one clocked, one drafted with undos, one resigned), a hot-seat duel
and a solo game, each seat and a spectator with a page of each version (docs/web.md, "Protocol
versions").  And ``resync``: the page whose state no longer takes its deltas gets the whole state."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.websockets import WebSocketState

from clashofdecks.web.connection import Connection
from clashofdecks.web.deltas import apply_delta, base_of
from clashofdecks.web.games import NewGame
from clashofdecks.web.live_game import LiveGame
from clashofdecks.web.protocol import RateLimiter
from clashofdecks.web.routes_common import Limits
from clashofdecks.web.routes_socket import SocketRoute
from clashofdecks.web.server import GameServer, ServerConfig
from clashofdecks.web.store import IdentityRow
from conftest import run_async

CHECKER = Path(__file__).resolve().parents[1] / "js" / "check_deltas.js"
OWNER = "o" * 32
INVITEE = "i" * 32


def node_or_skip() -> str:
    """Node, which runs the page's module; skipped without it, except in CI (where it must be)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is needed to check the page's deltas (tests/js)")
        pytest.skip("node is not installed")
    return node


class TextSocket:
    """A page's WebSocket that keeps the texts it is sent, as the browser receives them."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.texts: list[str] = []

    async def send_text(self, text: str) -> None:
        self.texts.append(text)


@dataclass
class Pair:
    """A seat (or a spectator) with a page of protocol version 1 and one of version 2."""

    name: str
    v1: Connection
    v2: Connection
    steps: list[dict[str, list[str]]]
    seen: tuple[int, int] = (0, 0)

    def texts(self, version: int) -> list[str]:
        page = self.v1 if version == 1 else self.v2
        return page.ws.texts  # type: ignore[attr-defined, no-any-return]

    def step(self) -> None:
        """What each page was sent since the last step, kept as one step of the fixture."""
        one, two = self.texts(1), self.texts(2)
        self.steps.append({"v1": one[self.seen[0] :], "v2": two[self.seen[1] :]})
        self.seen = (len(one), len(two))

    def last_state(self) -> dict[str, Any]:
        return next(f for f in map(json.loads, reversed(self.texts(1))) if f["type"] == "state")


def _page(identity: str | None) -> Connection:
    return Connection(TextSocket(), RateLimiter(1e6, 1e6), identity=identity)  # type: ignore[arg-type]


async def _say(route: SocketRoute, page: Connection, message: dict[str, Any]) -> None:
    await route._message(page, json.dumps(message))
    await page.flush()


async def _open(route: SocketRoute, game: LiveGame, tokens: dict[int, str], lang: str) -> list[Pair]:
    """Pages for the game's seats (the creator's, the invitee's by its token) and a spectator."""
    pairs = []
    other = 1 - game.session.participant_seat(0)  # the invitee's seat
    invited = [(INVITEE, tokens[other])] if game.kind == "friend" else []
    for who, token in [(OWNER, None), *invited, (None, None)]:
        pair = Pair(who or "spectator", _page(who), _page(who), [])
        for version, page in ((1, pair.v1), (2, pair.v2)):
            hello: dict[str, Any] = {"type": "hello", "game": game.id, "lang": lang, "protocol": version}
            hello["tokens"] = [token] if token is not None and version == 1 else []
            await _say(route, page, hello)
        pairs.append(pair)
    for pair in pairs:
        pair.step()
    return pairs


async def _play(
    route: SocketRoute, game: LiveGame, pairs: list[Pair], rng: random.Random, resign_at: int
) -> None:
    """Random legal moves by the pages holding the seat to move, an undo now and then, a
    resignation after ``resign_at`` actions; after each, every page's frames make a step."""
    for _ in range(3000):
        session = game.session
        if session.is_over:
            return
        mover = next(p for p in pairs if session.to_move in p.v1.seats)
        index = len(session.steps)
        if index >= resign_at:
            message: dict[str, Any] = {"type": "resign"}
        elif mover.last_state()["can_undo"] and rng.random() < 0.15:
            message = {"type": "undo", "index": index}
        else:
            message = {
                "type": "act",
                "action": rng.choice(session.legal_actions(session.to_move)),
                "index": index,
            }
        await _say(route, mover.v1, message)
        for pair in pairs:
            await pair.v1.flush()
            await pair.v2.flush()
            pair.step()
    raise AssertionError("the game did not end")


GAMES = [
    # kind, format, clock, seed, resign after, language
    ("friend", "precon", "10+5", 11, 10_000, "en"),
    ("friend", "draft", None, 5, 10_000, "de"),
    ("friend", "precon", None, 7, 40, "ja"),
    ("hotseat", "draft", None, 3, 10_000, "fr"),
    ("solo", "draft", None, 13, 10_000, "en"),
]


async def _record(tmp_path: Path) -> dict[str, Any]:
    server = GameServer(ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", agent_workers=0))
    await server.start()
    try:
        for who in (OWNER, INVITEE):
            row = IdentityRow(who, f"guest-{who[:8]}", "")
            await server.run_db(lambda s, row=row: s.create_identity(row, "h" + row.id))  # type: ignore[misc]
        route = SocketRoute(server, Limits.of(server.config))
        fixture: dict[str, Any] = {"pairs": []}
        for kind, fmt, clock, seed, resign_at, lang in GAMES:
            req = NewGame(kind=kind, format=fmt, seed=seed, time_control=clock)
            game, tokens = await server.table.create_game(req, OWNER)
            assert isinstance(game, LiveGame)
            pairs = await _open(route, game, tokens, lang)
            await _play(route, game, pairs, random.Random(seed), resign_at)
            for pair in pairs:
                fixture["pairs"].append({"name": f"{kind} {fmt} {seed}: {pair.name}", "steps": pair.steps})
        return fixture
    finally:
        await server.stop()


def test_the_page_s_apply_delta_rebuilds_every_full_frame_of_whole_games(tmp_path: Path) -> None:
    node = node_or_skip()
    fixture = run_async(_record(tmp_path), timeout=900)
    path = tmp_path / "deltas.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    done = subprocess.run([node, str(CHECKER), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    counts = json.loads(done.stdout)
    assert counts["pairs"] == 3 * 3 + 2 * 2  # three friend duels (2 seats, spectator), hot-seat, solo
    assert counts["deltas"] > 300 and counts["frames"] == counts["deltas"] + counts["pairs"]


def test_resync_sends_a_page_the_whole_game_and_its_next_delta_applies_to_it(tmp_path: Path) -> None:
    """A page that cannot apply a delta asks ``resync``: it gets the whole state with the log, like
    the answer to ``hello`` (a spectator too), and the deltas after it rebuild the next full frames."""

    async def play() -> None:
        server = GameServer(ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", agent_workers=0))
        await server.start()
        try:
            await server.run_db(lambda s: s.create_identity(IdentityRow(OWNER, "guest", ""), "h" + OWNER))
            route = SocketRoute(server, Limits.of(server.config))
            game, _tokens = await server.table.create_game(
                NewGame(kind="solo", format="precon", seed=2), OWNER
            )
            player, watcher = _page(OWNER), _page(None)
            for page in (player, watcher):
                await _say(route, page, {"type": "hello", "game": game.id, "protocol": 2})
            rng = random.Random(2)
            for _ in range(5):
                legal = game.session.legal_actions(game.session.to_move)
                await _say(
                    route,
                    player,
                    {"type": "act", "action": rng.choice(legal), "index": len(game.session.steps)},
                )
            for page in (player, watcher):
                await page.flush()
                before = len(page.ws.texts)  # type: ignore[attr-defined]
                await _say(route, page, {"type": "resync"})
                answer = [json.loads(t) for t in page.ws.texts[before:]]  # type: ignore[attr-defined]
                assert [f["type"] for f in answer] == ["state"]
                assert answer[0]["index"] == len(game.session.steps) and len(answer[0]["log"]) > 0
                assert "open_seats" in answer[0]
            state = base_of(answer[0])
            legal = game.session.legal_actions(game.session.to_move)
            await _say(route, player, {"type": "act", "action": legal[0], "index": len(game.session.steps)})
            await watcher.flush()
            delta = json.loads(watcher.ws.texts[-1])  # type: ignore[attr-defined]
            assert delta["type"] == "delta"
            assert apply_delta(state, delta)["index"] == len(game.session.steps)
        finally:
            await server.stop()

    run_async(play(), timeout=300)


def test_resync_before_hello_is_refused(tmp_path: Path) -> None:
    async def play() -> None:
        server = GameServer(ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", agent_workers=0))
        await server.start()
        try:
            route = SocketRoute(server, Limits.of(server.config))
            page = _page(None)
            await _say(route, page, {"type": "resync"})
            frames = [json.loads(t) for t in page.ws.texts]  # type: ignore[attr-defined]
            assert [(f["type"], f.get("code")) for f in frames] == [("error", "hello_first")]
        finally:
            await server.stop()

    run_async(play(), timeout=120)
