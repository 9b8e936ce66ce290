"""The store's one "insert once" helper (``store_core.insert_once``): the first writer's row stays, a
second is told ``False`` with nothing written, and the transaction goes on (a group commit holds other
writes in it); other constraints still raise.  SQLite and PostgreSQL (``CLASH_TEST_PG_URL``)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from clashofdecks.web import dbqueue
from clashofdecks.web.ratings import QueueError
from clashofdecks.web.store import AnalysisRow, GameRow, SeatRow, analyses, games, open_store
from clashofdecks.web.store_core import insert_once


def _game(game_id: str) -> GameRow:
    return GameRow(game_id, "hotseat", "duel", "precon", 1, {}, seats=[SeatRow(0, "remote", "A")])


def _analysis(game_id: str, status: str) -> dict[str, object]:
    return {
        "game_id": game_id,
        "status": status,
        "body": "{}",
        "iterations": 1,
        "seconds": 0.0,
        "created_at": 1.0,
    }


def test_a_second_insert_is_refused_and_the_transaction_goes_on(db_url: str) -> None:
    store = open_store(db_url)
    store.create_game(_game("g1"))
    store.create_game(_game("g2"))
    with store.engine.begin() as conn:
        assert insert_once(conn, analyses, _analysis("g1", "done")) is True
        assert insert_once(conn, analyses, _analysis("g1", "failed")) is False
        # The refusal left the transaction usable: a later write in it is committed with it.
        assert insert_once(conn, analyses, _analysis("g2", "done")) is True
        conn.execute(games.update().where(games.c.id == "g2").values(status="over"))
    with store.engine.connect() as conn:
        kept = dict(conn.execute(sa.select(analyses.c.game_id, analyses.c.status)).all())
        over = conn.execute(sa.select(games.c.status).where(games.c.id == "g2")).scalar_one()
    assert kept == {"g1": "done", "g2": "done"} and over == "over"
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:  # a foreign key still raises
        insert_once(conn, analyses, _analysis("no-such-game", "done"))
    # Its users: the first analysis stays; one queue entry per identity.
    assert store.save_analysis(AnalysisRow("g1", "failed", {"error": "x"}, 10, 0.0)) is False
    entry = dbqueue.Entry("i1", "precon", 1500, "Ada", "en", 0.0, "p1")
    from clashofdecks.web import leases

    leases.heartbeat(store.engine, "p1")
    dbqueue.join(store.engine, entry)
    with pytest.raises(QueueError) as refused:
        dbqueue.join(store.engine, entry)
    assert refused.value.code == "already_queued"
    store.close()
