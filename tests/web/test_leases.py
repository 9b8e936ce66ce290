"""The lease store (web/leases.py) on SQLite and PostgreSQL: one holder at a time, taken over only
after expiry (judged by the database's clock), renewed and released only by its holder; the agent
turns a watcher takes over; presence across processes; the queue in the database."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from clashofdecks.web import dbqueue, leases, presence
from clashofdecks.web.ratings import QueueError
from clashofdecks.web.store import ActionWrite, GameRow, SeatRow, Store, open_store


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = open_store(db_url)
    yield s
    s.close()


def _game(store: Store, game_id: str, kind: str = "ai") -> None:
    store.create_game(
        GameRow(
            id=game_id,
            kind=kind,
            mode="duel",
            format="precon",
            seed=1,
            setup={},
            seats=[SeatRow(0, "remote", "A"), SeatRow(1, "agent", "AI", agent="greedy")],
        )
    )


def test_one_holder_until_expiry(store: Store) -> None:
    e = store.engine
    assert leases.acquire(e, "clocks", "p1", 30)
    assert not leases.acquire(e, "clocks", "p2", 30)  # held: refused
    assert leases.acquire(e, "clocks", "p1", 30)  # renewal by the holder
    assert leases.holder_of(e, "clocks") == "p1"
    assert not leases.renew(e, "clocks", "p2", 30)
    leases.release(e, "clocks", "p2")  # not the holder: nothing happens
    assert leases.holder_of(e, "clocks") == "p1"
    leases.release(e, "clocks", "p1")
    assert leases.holder_of(e, "clocks") is None
    assert leases.acquire(e, "clocks", "p2", 0.3)
    assert not leases.acquire(e, "clocks", "p1", 30)
    time.sleep(0.5)  # the database's clock passes the expiry (not a timed assertion: a lower bound)
    assert leases.holder_of(e, "clocks") is None
    assert leases.acquire(e, "clocks", "p1", 30)  # expired: taken over
    assert not leases.renew(e, "clocks", "p2", 30)  # the old holder has lost it
    assert leases.holder_of(e, "clocks") == "p1"


def test_racing_acquires_give_one_holder(store: Store) -> None:
    won: list[str] = []
    start = threading.Barrier(6)

    def contend(me: str) -> None:
        start.wait()
        if leases.acquire(store.engine, "queue", me, 30):
            won.append(me)

    threads = [threading.Thread(target=contend, args=(f"p{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and leases.holder_of(store.engine, "queue") == won[0]


def test_agent_turns_are_kept_with_the_actions_and_found_when_orphaned(store: Store) -> None:
    e = store.engine
    _game(store, "g1")
    _game(store, "g2")
    store.append_actions([ActionWrite("g1", 0, 0, "deck 1", agent_next=True)])
    store.append_actions([ActionWrite("g2", 0, 0, "deck 1")])
    assert leases.orphaned_agent_turns(e) == ["g1"]  # g2's agent is not to move
    assert not leases.claim_agent_turn(e, "g1", 0, "p1", 30)  # the game is past decision 0
    assert leases.claim_agent_turn(e, "g1", 1, "p1", 30)
    assert not leases.claim_agent_turn(e, "g1", 1, "p2", 30)  # one thinker
    assert leases.orphaned_agent_turns(e) == []
    assert leases.claim_agent_turn(e, "g2", 1, "p2", 0.2)  # an agent turn never stored before
    time.sleep(0.4)
    assert leases.orphaned_agent_turns(e) == ["g2"]  # its holder is silent: another takes it over
    store.append_actions([ActionWrite("g1", 1, 1, "deck 2", agent_next=False)])  # a person is next
    with pytest.raises(sa.exc.IntegrityError):  # the same decision stored twice: refused
        store.append_actions([ActionWrite("g1", 1, 1, "deck 3")])
    leases.release(e, "agent:g1", "p1")
    assert leases.orphaned_agent_turns(e) == ["g2"]  # g1 waits for a person now
    assert store.finish("g2", {"winner": 0}) and not store.finish("g2", {"winner": 1})
    assert leases.orphaned_agent_turns(e) == []
    assert store.load_game("g2").result == {"winner": 0}  # type: ignore[union-attr]


def test_presence_counts_live_processes_only(store: Store) -> None:
    e = store.engine
    _game(store, "f1", kind="friend")
    leases.heartbeat(e, "alive")
    with e.begin() as c:
        presence.set_presence(c, "alive", "f1", 0, 1)
        presence.set_presence(c, "dead", "f1", 1, 2)  # a process with no heartbeat
    assert presence.seat_present(e, "f1", 0) and not presence.seat_present(e, "f1", 1)
    assert presence.away_seats(e) == [("f1", 1)]
    with e.begin() as c:
        presence.set_presence(c, "alive", "f1", 1, 1)
        presence.set_presence(c, "alive", "f1", 0, 0)
    assert presence.away_seats(e) == [("f1", 0)]
    store.finish("f1", {"winner": 1})
    with e.begin() as c:
        presence.forget_finished(c)
    assert presence.away_seats(e) == []


def _entry(identity: str, process: str, rating: int = 1000, at: float = 100.0) -> dbqueue.Entry:
    return dbqueue.Entry(identity, "draft", rating, identity.upper(), "en", at, process)


def test_the_queue_in_the_database_pairs_across_processes(store: Store) -> None:
    e = store.engine
    leases.heartbeat(e, "pa")
    leases.heartbeat(e, "pb")
    dbqueue.join(e, _entry("a", "pa"))
    with pytest.raises(QueueError):
        dbqueue.join(e, _entry("a", "pb"))  # one entry per identity
    dbqueue.join(e, _entry("far", "pa", rating=1500))
    dbqueue.join(e, _entry("b", "pb", rating=1050))
    dbqueue.join(e, _entry("ghost", "dead-process"))  # its process has no heartbeat: dropped
    pairs, offers = dbqueue.plan_round(e, now=101.0)
    assert [(x.identity, y.identity) for x, y in pairs] == [("a", "b")] and offers == []
    with e.begin() as c:
        dbqueue.claim_pair(c, pairs[0], "game1")
    with pytest.raises(QueueError), e.begin() as c:
        dbqueue.claim_pair(c, pairs[0], "game2")  # claimed once
    assert {x.identity: x.game_id for x in dbqueue.entries_of(e, "pb")} == {"b": "game1"}
    assert "ghost" not in {x.identity for x in dbqueue.entries_of(e, "dead-process")}
    pairs, offers = dbqueue.plan_round(e, now=130.0)  # "far" waited 30 s: an AI is offered, once
    assert pairs == [] and [x.identity for x in offers] == ["far"]
    assert dbqueue.plan_round(e, now=140.0) == ([], [])
    assert dbqueue.leave(e, "far", "pb") is None  # not that process's entry
    left = dbqueue.leave(e, "far", "pa")
    assert left is not None and left.ai_offered


def test_racing_claims_of_one_agent_decision_give_one_thinker(store: Store) -> None:
    _game(store, "g3")
    won: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def claim(me: str) -> None:
        start.wait()
        try:
            if leases.claim_agent_turn(store.engine, "g3", 0, me, 30):
                won.append(me)
        except BaseException as exc:  # a collision on the agent turn's key must not happen
            errors.append(exc)

    threads = [threading.Thread(target=claim, args=(f"p{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(won) == 1
