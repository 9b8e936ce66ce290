"""An agent's decision racing a write of another server process (issue 26, review mend): the same
decision stored there first, or the person resigning there while the agent thinks.  The agent's write
here is refused by the game's revision check, the one path (``StaleError``, no key clash handled
apart), its copy catches up with the store, the agent's lease is given back, and the game goes on
from the stored history (or is over).  In process, on SQLite and PostgreSQL (``CLASH_TEST_PG_URL``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa

from clashofdecks.web import leases
from clashofdecks.web.games import NewGame
from clashofdecks.web.live_game import LiveGame
from clashofdecks.web.server import GameServer, ServerConfig
from clashofdecks.web.store import ActionWrite, Store, agent_turns, open_store
from clashofdecks.web.sync import history_of
from conftest import run_async

T = TypeVar("T")


async def _settled(server: GameServer) -> None:
    """Every agent task of the server has ended."""
    while server.background.tasks:
        await asyncio.gather(*list(server.background.tasks))


async def _human_moves(server: GameServer, live: LiveGame) -> None:
    """The person's seat takes its first legal action; then the agent's turn is scheduled."""
    session = live.session
    seat = session.to_move
    async with live.lock:
        await live.apply(session.check(seat, session.legal_actions(seat)[0]))
    server.agents.schedule(live)


def _lease_holder(store: Store, game_id: str) -> str | None:
    with store.engine.connect() as conn:
        holder = conn.execute(
            sa.select(leases.leases.c.holder).where(leases.leases.c.name == leases.agent_lease(game_id))
        ).scalar_one_or_none()
    return None if holder is None else str(holder)


def _resign_elsewhere(other: Store, game_id: str, person: int, revision: int) -> None:
    """What another process writes when the person resigns there: the game's end behind its revision."""
    result = {"winner": 1 - person, "reason": "resigned", "termination": "resignation"}
    with other.engine.begin() as conn:
        other.bump_revision(game_id, revision, conn)
        assert other.finish(game_id, result, conn)


def test_an_agent_decision_stored_first_elsewhere_is_refused_and_the_copy_catches_up(
    db_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="clashofdecks.web")
    other = open_store(db_url)  # another server process's store: same database, own engine
    raced: list[tuple[int, int, str]] = []  # (index, seat, action) the other process stored first

    async def play() -> None:
        config = ServerConfig(database_url=db_url, agent_workers=0, watch_interval=3600)
        server = GameServer(config)
        real_think = server.agents._think

        async def think(game_id: str, record: dict[str, Any], spec: str, seed: int) -> str | None:
            text = await real_think(game_id, record, spec, seed)
            if text is not None and not raced:  # the other process thought faster: it stores first
                live = server.table.games[game_id]
                index, seat = len(live.session.steps), live.session.to_move
                row = other.load_game(game_id)
                assert row is not None and row.revision == live.revision
                other.append_actions([ActionWrite(game_id, index, seat, text, revision=row.revision)])
                raced.append((index, seat, text))
            return text

        monkeypatch.setattr(server.agents, "_think", think)
        await server.start()
        try:
            live, _tokens = await server.table.create_game(
                NewGame(kind="ai", format="precon", ai="beginner", name="Ada"), "o" * 32
            )
            while True:
                await _settled(server)
                if raced:
                    break
                assert not live.session.is_over, "the agent never decided"
                if not live.session.is_agent_turn():
                    await _human_moves(server, live)
            await _settled(server)

            # The refused write changed nothing; the copy is the stored game, the race's action once.
            index, seat, text = raced[0]
            stored = other.load_game(live.id)
            assert stored is not None
            assert history_of(live.session) == stored.actions
            assert stored.actions[index] == (seat, text) and len(stored.actions) == index + 1
            assert live.revision == stored.revision and not live.agent_busy
            assert _lease_holder(other, live.id) != server.process_id  # given back: not a failure
            assert "agent move failed" not in caplog.text

            # The game goes on from the stored history: every later decision is stored once, in order.
            for _ in range(12):
                await _settled(server)
                if live.session.is_over:
                    break
                if live.session.is_agent_turn():
                    server.agents.schedule(live)
                else:
                    await _human_moves(server, live)
            await _settled(server)
            stored = other.load_game(live.id)
            assert stored is not None and len(stored.actions) > index + 1
            assert history_of(live.session) == stored.actions and live.revision == stored.revision
            assert "agent move failed" not in caplog.text
        finally:
            await server.stop()

    try:
        run_async(play())
    finally:
        other.close()


def test_a_resignation_stored_elsewhere_while_the_agent_thinks_ends_the_game_here(
    db_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="clashofdecks.web")
    other = open_store(db_url)
    raced: list[int] = []  # the decision index the agent was thinking about

    async def play() -> None:
        server = GameServer(ServerConfig(database_url=db_url, agent_workers=0, watch_interval=3600))
        real_think = server.agents._think

        async def think(game_id: str, record: dict[str, Any], spec: str, seed: int) -> str | None:
            text = await real_think(game_id, record, spec, seed)
            if text is not None and not raced:
                live = server.table.games[game_id]
                person = 1 - live.session.to_move
                _resign_elsewhere(other, game_id, person, live.revision)
                raced.append(len(live.session.steps))
            return text

        monkeypatch.setattr(server.agents, "_think", think)
        await server.start()
        try:
            live, _tokens = await server.table.create_game(
                NewGame(kind="ai", format="precon", ai="beginner", name="Ada"), "o" * 32
            )
            while True:
                await _settled(server)
                if raced:
                    break
                assert not live.session.is_over, "the agent never decided"
                if not live.session.is_agent_turn():
                    await _human_moves(server, live)
            await _settled(server)
            stored = other.load_game(live.id)
            assert stored is not None and stored.status == "over"
            assert len(stored.actions) == raced[0]  # the agent's decision was not stored
            assert live.session.is_over and history_of(live.session) == stored.actions
            assert live.revision == stored.revision and not live.agent_busy
            assert _lease_holder(other, live.id) != server.process_id
            assert "agent move failed" not in caplog.text
        finally:
            await server.stop()

    try:
        run_async(play())
    finally:
        other.close()


def _stored_agent_turn(store: Store, game_id: str) -> int | None:
    with store.engine.connect() as conn:
        idx = conn.execute(
            sa.select(agent_turns.c.idx).where(agent_turns.c.game_id == game_id)
        ).scalar_one_or_none()
    return None if idx is None else int(idx)


def test_the_stored_agent_turn_follows_the_game(db_url: str) -> None:
    """The person's action that makes it the agent's turn stores that turn (``agent_turns``: what a
    process takes over when the thinking one dies); once it is the person's turn again the row is
    gone, so the watch finds nothing to take over.  (The actions once passed the flag as their
    revision: it was never stored, and the turn one claim wrote stayed, "taken over" every second.)"""
    other = open_store(db_url)

    async def play() -> None:
        server = GameServer(ServerConfig(database_url=db_url, agent_workers=0, watch_interval=3600))
        await server.start()
        try:
            live, _tokens = await server.table.create_game(
                NewGame(kind="ai", format="precon", ai="beginner", name="Ada"), "o" * 32
            )
            handed_over = 0
            for _ in range(60):
                await _settled(server)
                session = live.session
                if session.is_over or handed_over >= 3:
                    break
                assert not session.is_agent_turn()
                assert _stored_agent_turn(other, live.id) is None
                assert await server.run_db(lambda s: leases.orphaned_agent_turns(s.engine)) == []
                seat = session.to_move
                async with live.lock:
                    await live.apply(session.check(seat, session.legal_actions(seat)[0]))
                if session.is_agent_turn():  # stored with the action, before any agent thinks
                    assert _stored_agent_turn(other, live.id) == len(session.steps)
                    handed_over += 1
                server.agents.schedule(live)
            assert handed_over >= 3 or live.session.is_over
        finally:
            await server.stop()

    try:
        run_async(play())
    finally:
        other.close()
