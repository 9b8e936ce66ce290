"""The stored state of hand-over (web/presence.py's countdowns, web/rematches.py) on SQLite and
PostgreSQL: a countdown started once and continued, cancelled by a seat back on a live process;
rematch offers that see each other and one rematch made however many ask at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from clashofdecks.web import leases, presence, rematches
from clashofdecks.web.store import GameRow, SeatRow, Store, open_store


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = open_store(db_url)
    yield s
    s.close()


def _duel(store: Store, game_id: str) -> None:
    store.create_game(
        GameRow(
            id=game_id,
            kind="friend",
            mode="duel",
            format="precon",
            seed=1,
            setup={},
            seats=[SeatRow(0, "remote", "A"), SeatRow(1, "remote", "B")],
        )
    )


def test_a_countdown_starts_once_and_goes_on_until_the_seat_is_back(store: Store) -> None:
    e = store.engine
    _duel(store, "f1")
    leases.heartbeat(e, "alive")
    with e.begin() as c:
        presence.set_presence(c, "alive", "f1", 1, 0)  # the seat left
    assert presence.start_countdown(e, "f1", 1)
    elapsed = presence.running_countdowns(e)[("f1", 1)]
    assert elapsed >= 0
    time.sleep(0.3)  # the database's clock moves on (a lower bound, not a timed assertion)
    assert not presence.start_countdown(e, "f1", 1)  # another holder: the same countdown goes on
    assert presence.running_countdowns(e)[("f1", 1)] >= elapsed + 0.3
    with e.begin() as c:
        presence.set_presence(c, "alive", "f1", 1, 1)  # back: cancelled
    assert presence.running_countdowns(e) == {}
    with e.begin() as c:
        presence.set_presence(c, "alive", "f1", 1, 0)
    assert presence.start_countdown(e, "f1", 1)  # left again: a new countdown


def test_a_countdown_of_a_seat_present_or_a_game_over_is_forgotten(store: Store) -> None:
    e = store.engine
    _duel(store, "f2")
    leases.heartbeat(e, "alive")
    with e.begin() as c:
        presence.set_presence(c, "alive", "f2", 0, 1)
        presence.set_presence(c, "dead", "f2", 1, 1)  # no heartbeat: away
    presence.start_countdown(e, "f2", 0)  # a scan that read seat 0 away just before it came back
    presence.start_countdown(e, "f2", 1)
    with e.begin() as c:
        presence.forget_returned(c)
    assert set(presence.running_countdowns(e)) == {("f2", 1)}
    store.finish("f2", {"winner": 0})
    with e.begin() as c:
        presence.forget_finished(c)
    assert presence.running_countdowns(e) == {}


def test_rematch_offers_see_each_other_and_one_rematch_is_made(store: Store) -> None:
    e = store.engine
    _duel(store, "old")
    assert rematches.offer(e, "old", {0}) == ({0}, None)
    assert rematches.offer(e, "old", {0}) == ({0}, None)  # asked twice: still one offer
    assert rematches.offer(e, "old", {1}) == ({0, 1}, None)
    with e.begin() as c:
        rematches.claim(c, "new1", game_id="old")
    with pytest.raises(rematches.RematchMadeError), e.begin() as c:
        rematches.claim(c, "new2", game_id="old")
    assert rematches.rematch_of(e, "old") == "new1"
    assert rematches.offer(e, "old", {1}) == ({0, 1}, "new1")


def _ask(e: sa.Engine, game_id: str, seat: int, start: threading.Barrier, seen: list[set[int]]) -> None:
    start.wait()
    seen.append(rematches.offer(e, game_id, {seat})[0])


def test_offers_made_at_once_give_both_seats_to_exactly_one_of_them(store: Store) -> None:
    """Many rounds of both seats offering at the same instant: the later of the two always sees
    both offers (never neither), and of several claims one makes the rematch."""
    e = store.engine
    for round_ in range(20):
        game_id = f"g{round_}"
        _duel(store, game_id)
        seen: list[set[int]] = []
        start = threading.Barrier(2)

        threads = [threading.Thread(target=_ask, args=(e, game_id, s, start, seen)) for s in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(len(s) for s in seen) == [1, 2], seen
    made: list[str] = []
    start = threading.Barrier(4)

    def claim(new: str) -> None:
        start.wait()
        try:
            with e.begin() as c:
                rematches.claim(c, new, game_id="g0")
            made.append(new)
        except rematches.RematchMadeError:
            pass

    threads = [threading.Thread(target=claim, args=(f"n{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and rematches.rematch_of(e, "g0") == made[0]
    with e.connect() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(rematches.rematches)).scalar_one() == 20
