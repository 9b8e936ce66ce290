"""The group commit's connection on PostgreSQL (``StoreCore.batch_connection``): kept between commits
that follow one another (human-paced games commit their actions one by one, and a connection taken
from the pool each time costs a check before use: docs/performance.md), given back after a pause, and
replaced when the server ended it while it was kept.  Needs ``CLASH_TEST_PG_URL``."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from clashofdecks.web import store_core
from clashofdecks.web.store import GameRow, SeatRow, Store, games, open_store
from conftest import pg_url_or_skip, reset_pg


@pytest.fixture
def store() -> Iterator[Store]:
    url = pg_url_or_skip()
    reset_pg(url)
    s = open_store(url)
    yield s
    s.close()
    reset_pg(url)


def _checkouts(store: Store) -> list[int]:
    taken: list[int] = []
    sa.event.listen(store.engine, "checkout", lambda *_: taken.append(1))
    return taken


def _create(conn: Connection, *, store: Store, game_id: str) -> None:
    row = GameRow(game_id, "hotseat", "duel", "precon", 1, {}, seats=[SeatRow(0, "remote", "A")])
    store.create_game(row, conn)


def _stored(store: Store) -> set[str]:
    with store.engine.connect() as conn:
        return {r.id for r in conn.execute(sa.select(games.c.id))}


def test_commits_in_a_row_take_one_connection_from_the_pool(store: Store) -> None:
    taken = _checkouts(store)
    for i in range(5):
        assert store.batch([functools.partial(_create, store=store, game_id=f"g{i}")]) == [None]
    assert len(taken) == 1
    assert _stored(store) == {f"g{i}" for i in range(5)}


def test_after_a_pause_the_next_commit_takes_a_checked_connection(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_core, "KEEP_BATCH_SECONDS", -1.0)  # every commit comes "after a pause"
    taken = _checkouts(store)
    for i in range(3):
        assert store.batch([functools.partial(_create, store=store, game_id=f"g{i}")]) == [None]
    assert len(taken) == 3


def test_a_kept_connection_the_server_ended_is_replaced_before_the_next_commit(store: Store) -> None:
    assert store.batch([functools.partial(_create, store=store, game_id="g0")]) == [None]
    kept = store.batch_connection().__enter__()
    pid = kept.connection.dbapi_connection.info.backend_pid  # type: ignore[union-attr]
    with store.engine.begin() as conn:
        assert conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar()
    deadline = time.monotonic() + 30
    with store.engine.connect() as conn:
        gone = sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid")
        while conn.execute(gone, {"pid": pid}).scalar():
            assert time.monotonic() < deadline, "the terminated backend never went away"
            time.sleep(0.05)
    # The next commit (well within KEEP_BATCH_SECONDS) does not fail on the dead connection.
    assert store.batch([functools.partial(_create, store=store, game_id="g1")]) == [None]
    assert _stored(store) == {"g0", "g1"}


def test_the_watchers_lease_upserts_and_heartbeat_share_the_kept_connection(store: Store) -> None:
    """Several a second on every process (docs/performance.md): each one statement on the writing
    thread's kept autocommit connection, not a checked pooled connection and a transaction each."""
    from clashofdecks.web import leases

    taken = _checkouts(store)
    sent: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
    for _ in range(3):
        leases.heartbeat_alone(store, "p1")
        assert leases.acquire_alone(store, leases.CLOCKS, "p1", 10.0)
        assert not leases.acquire_alone(store, leases.CLOCKS, "p2", 10.0)  # held: refused
    assert len(taken) == 1 and len(sent) == 9
    assert leases.holder_of(store.engine, leases.CLOCKS) == "p1"
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT id FROM processes")).scalars().all() == ["p1"]
