"""AI work never waits behind optional work (issue 33, item 3): agent decisions run on workers of
their own, hints and analyses share the rest, and one hint per game is thought at a time.  In
process, on SQLite, with a thread for each lane (``agent_workers=0``); a job that never ends stands
for a long analysis or a flood of hints."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from test_live_games import OWNER, _page, _say, _started

from clashofdecks.web import metrics, workers
from clashofdecks.web.games import NewGame
from clashofdecks.web.routes_common import Limits
from clashofdecks.web.routes_socket import SocketRoute
from clashofdecks.web.server import GameServer, ServerConfig
from conftest import run_async


def _server(tmp_path: Path) -> GameServer:
    return GameServer(ServerConfig(database_url=f"sqlite:///{tmp_path / 'w.sqlite3'}", agent_workers=0))


def test_an_ai_move_is_made_while_the_optional_lane_is_busy(tmp_path: Path) -> None:
    """The hints' and analyses' worker is taken by a job that does not end; the AI opponent's moves
    are made all the same (on one shared worker, before, they waited behind it for good)."""
    release = threading.Event()

    def endless_analysis(*_args: Any) -> None:
        release.wait()

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            busy = asyncio.create_task(server.pool.run_optional(endless_analysis))
            game, _tokens = await server.table.create_game(
                NewGame(kind="ai", format="precon", ai="beginner", seed=5), OWNER
            )
            person = game.session.participant_seat(0)
            for _ in range(30):  # the person's moves, each answered by the AI's
                while server.background.tasks:
                    await asyncio.gather(*list(server.background.tasks))
                if game.session.is_over or game.session.to_move != person:
                    break
                async with game.lock:
                    legal = game.session.legal_actions(person)
                    await game.apply(game.session.check(person, legal[0]))
                game.schedule_agents()
            agent_moves = [st for st in game.session.steps if st.seat != person]
            assert agent_moves and not busy.done()
            release.set()
            await busy
        finally:
            release.set()
            await server.stop()

    run_async(play(), timeout=300)


def test_one_hint_per_game_is_thought_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second hint asked while the game's first is being thought is refused (``hint_unavailable``,
    counted in ``clash_work_refused``) and queues nothing; the first is answered; then a hint may be
    asked again."""
    release = threading.Event()
    asked: list[int] = []

    def slow_hint(record: dict[str, Any], seat: int, seconds: float) -> tuple[str, float, str]:
        asked.append(seat)
        release.wait()
        return "end", 0.5, "win chance"

    monkeypatch.setattr(workers, "hint", slow_hint)

    async def play() -> None:
        server = _server(tmp_path)
        server.config.caps.hint_interval_seconds = 0  # the identity's interval is another test's
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game, _tokens = await server.table.create_game(
                NewGame(kind="hotseat", format="precon", seed=7), OWNER
            )
            page, ws = _page()
            await _say(route, page, json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            while game.session.phase == "setup":  # hints are given after the setup
                seat = game.session.to_move
                act = {
                    "type": "act",
                    "action": game.session.legal_actions(seat)[0],
                    "index": len(game.session.steps),
                }
                await _say(route, page, json.dumps(act))
            refused_before = metrics.WORK_REFUSED.labels("hint", "one_per_game")._value.get()
            first = asyncio.create_task(_say(route, page, json.dumps({"type": "hint"})))
            while not asked:
                await asyncio.sleep(0.01)
            await _say(route, page, json.dumps({"type": "hint"}))
            assert ws.sent[-1]["type"] == "error" and ws.sent[-1]["code"] == "hint_unavailable"
            assert metrics.WORK_REFUSED.labels("hint", "one_per_game")._value.get() == refused_before + 1
            release.set()
            await first
            assert ws.sent[-1]["type"] == "hint" and len(asked) == 1
            await _say(route, page, json.dumps({"type": "hint"}))
            assert ws.sent[-1]["type"] == "hint" and len(asked) == 2
        finally:
            release.set()
            await server.stop()

    run_async(play(), timeout=300)
