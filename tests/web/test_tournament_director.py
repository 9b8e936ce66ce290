"""The tournament director on a real database (SQLite and PostgreSQL): an arena and a Swiss run to
their end through the director's steps, the players who miss a pairing withdrawn, a pass paired
once by two directors, and the games of a pass whose process died before making them made by the
next holder.  Games are made and ended in the database by a stand-in of the game table (the
two-process test, test_tournaments_server.py, plays them over the WebSocket)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from clashofdecks.tournaments import arena, swiss
from clashofdecks.web import store_tournaments as st
from clashofdecks.web.games import NewGame
from clashofdecks.web.identity import InputError
from clashofdecks.web.routes_tournaments import tournament_request
from clashofdecks.web.services import Database, LeaseKeeper
from clashofdecks.web.store_tables import games, identities, seats
from clashofdecks.web.tournament_director import TournamentDirector, swiss_games

T = TypeVar("T")

T0 = 1_900_000_000.0


@dataclass
class Made:
    id: str


class FakeTable:
    """The game table's ``create_owned_game`` as the director uses it: the game's rows written in
    one transaction with the director's ``with_write`` (the pairing takes the game)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.made: list[tuple[str, list[str]]] = []

    async def create_owned_game(
        self,
        req: NewGame,
        owners: Sequence[str],
        *,
        rated: bool = False,
        with_write: Callable[[Connection, str], None] | None = None,
    ) -> Made:
        assert rated and req.time_control == "3+2"
        game_id = f"g{len(self.made)}"
        assert self.db.store is not None
        with self.db.store.engine.begin() as conn:
            if with_write is not None:
                with_write(conn, game_id)
            conn.execute(
                games.insert().values(
                    id=game_id,
                    kind="friend",
                    mode="duel",
                    format=req.format,
                    setup="{}",
                    status="active",
                    n_actions=0,
                    created_at=T0,
                    updated_at=T0,
                )
            )
            for seat, owner in enumerate(owners):
                conn.execute(
                    seats.insert().values(game_id=game_id, seat=seat, kind="remote", name=owner, owner=owner)
                )
        self.made.append((game_id, list(owners)))
        return Made(game_id)


class Run:
    """One database, a clock, a director (more can be made) and the helpers of the tests."""

    def __init__(self, url: str) -> None:
        self.db = Database(url)
        self.loop = asyncio.new_event_loop()
        # The loop runs in a thread of its own: after a Playwright test the test thread already has a
        # running loop, and run_until_complete refuses to nest in it (conftest.run_async's reason).
        self.thread = concurrent.futures.ThreadPoolExecutor(1)
        self.now = T0
        self.complete(self.db.open())
        self.table = FakeTable(self.db)
        self.director = self.new_director("p1")

    def new_director(self, process: str, schedule: Sequence[str] = ()) -> TournamentDirector:
        keeper = LeaseKeeper(self.db, process, 30.0)
        return TournamentDirector(self.db, keeper, self.table, lambda: self.now, schedule)

    @property
    def engine(self) -> sa.Engine:
        assert self.db.store is not None
        return self.db.store.engine

    def tick(self, director: TournamentDirector | None = None) -> None:
        self.complete((director or self.director).tick())

    def players(self, n: int) -> list[str]:
        names = [f"p{i}" for i in range(n)]
        with self.engine.begin() as conn:
            for name in names:
                conn.execute(
                    identities.insert().values(id=name, handle=name, display_name=name, created_at=T0)
                )
        return names

    def tournament(self, kind: str, players: list[str], **extra: Any) -> st.TournamentRow:
        body = {"name": "Test", "kind": kind, "starts_in": 60, **extra}
        t = tournament_request(body, players[0], self.now)
        st.create(self.engine, t)
        for i, p in enumerate(players):
            st.join(self.engine, t.id, p, p, self.now + i)
        return t

    def read(self, tid: str) -> tuple[st.TournamentRow, list[st.Entry], list[st.Pairing]]:
        with self.engine.connect() as conn:
            t = st.get(conn, tid)
            assert t is not None
            return t, st.entries(conn, tid), st.pairings(conn, tid)

    def end(self, game_id: str, winner: int | None, **extra: Any) -> None:
        result = json.dumps({"winner": winner, "reason": "resigned", **extra})
        with self.engine.begin() as conn:
            conn.execute(games.update().where(games.c.id == game_id).values(status="over", result=result))

    def running(self, tid: str) -> list[tuple[str, list[str]]]:
        _t, _e, pairings = self.read(tid)
        ids = {p.game_id for p in pairings if p.running}
        return [(g, owners) for g, owners in self.table.made if g in ids]

    def close(self) -> None:
        self.complete(self.db.close())
        self.thread.submit(self.loop.close).result()
        self.thread.shutdown()

    def complete(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` to its end on this test's loop (in the loop's own thread)."""
        return self.thread.submit(self.loop.run_until_complete, coro).result()


@pytest.fixture
def run(db_url: str) -> Iterator[Run]:
    r = Run(db_url)
    yield r
    r.close()


def _paired_once_per_round(pairings: list[st.Pairing]) -> None:
    seen = [(p.round, p.player) for p in pairings]
    assert len(seen) == len(set(seen))
    games_of = [p.game_id for p in pairings if p.game_id is not None]
    assert all(games_of.count(g) == 2 for g in games_of)  # each game: one pairing, its two players


def test_an_arena_of_four_to_its_end_with_lichess_scoring(run: Run) -> None:
    players = run.players(4)
    t = run.tournament("arena", players, minutes=10)
    run.tick()
    assert run.read(t.id)[0].status == st.CREATED and not run.table.made  # not before its start
    run.now = T0 + 60
    run.tick()
    assert run.read(t.id)[0].status == st.STARTED and len(run.running(t.id)) == 2
    outcomes: dict[str, list[arena.Outcome]] = {p: [] for p in players}
    for _round in range(3):  # p0 wins every game it plays; otherwise the first seat wins
        for game_id, owners in run.running(t.id):
            winner = owners.index("p0") if "p0" in owners else 0
            run.end(game_id, winner)
            for seat, p in enumerate(owners):
                outcomes[p].append(arena.Outcome.WIN if seat == winner else arena.Outcome.LOSS)
        run.tick()  # recorded, and everybody paired again at once
        assert len(run.running(t.id)) == 2
    run.now = T0 + 60 + 600  # the window's end: the games going on still count, no new pairing
    run.tick()
    assert run.read(t.id)[0].status == st.STARTED
    last = run.running(t.id)
    run.end(last[0][0], 0)
    run.end(last[1][0], None)  # a draw
    outcomes[last[0][1][0]].append(arena.Outcome.WIN)
    outcomes[last[0][1][1]].append(arena.Outcome.LOSS)
    for p in last[1][1]:
        outcomes[p].append(arena.Outcome.DRAW)
    run.tick()
    t_end, entries, pairings = run.read(t.id)
    assert t_end.status == st.FINISHED and len(run.table.made) == 8
    scores = {e.identity_id: e.score for e in entries}
    assert scores == {p: arena.arena_score(o).points for p, o in outcomes.items()}
    assert scores["p0"] >= 2 + 2 + 4  # three wins in a row: the third scores double
    _paired_once_per_round(pairings)


def test_a_player_who_misses_a_pairing_is_withdrawn_and_the_game_scores_nothing(run: Run) -> None:
    players = run.players(2)
    t = run.tournament("arena", players, minutes=10)
    run.now = T0 + 60
    run.tick()
    [(game_id, owners)] = run.running(t.id)
    # The first seat's clock ran out before it made its first turn: the abort rule (docs/web.md).
    run.end(game_id, 1, aborted=True, reason="time")
    run.tick()
    _t, entries, pairings = run.read(t.id)
    assert {e.identity_id: (e.score, e.withdrawn) for e in entries} == {
        owners[0]: (0.0, True),
        owners[1]: (0.0, False),
    }
    assert {p.result for p in pairings} == {st.ABORTED}
    assert len(run.table.made) == 1  # nobody to pair the one left with


def test_a_swiss_of_five_rounds_with_byes_and_a_withdrawal(run: Run) -> None:
    players = run.players(5)
    t = run.tournament("swiss", players, rounds=5)
    run.now = T0 + 60
    for round_ in range(1, 6):
        run.tick()
        _t, _entries, pairings = run.read(t.id)
        this = [p for p in pairings if p.round == round_]
        byes = [p.player for p in this if p.result == st.BYE]
        assert len(byes) == (1 if round_ <= 2 else 0)  # five players, then four after p4 withdrew
        for game_id, owners in run.running(t.id):
            run.end(game_id, 0 if owners[0] < owners[1] else 1)  # the lower id wins
        if round_ == 2:
            with run.engine.begin() as conn:
                assert st.withdraw(conn, t.id, "p4")
    run.tick()
    t_end, entries, pairings = run.read(t.id)
    assert t_end.status == st.FINISHED and t_end.round == 5
    byes = [p.player for p in pairings if p.result == st.BYE]
    assert len(byes) == len(set(byes)) == 2  # no second bye while someone had none
    assert all(p.player != "p4" for p in pairings if p.round > 2)
    table = swiss.standings(players, swiss_games(pairings))
    assert {e.identity_id: e.score for e in entries} == {s.player: float(s.score) for s in table}
    assert table[0].player == "p0"  # won every game it played
    _paired_once_per_round(pairings)


def test_a_pass_is_paired_once_and_a_dead_process_s_games_are_made_by_the_next(run: Run) -> None:
    players = run.players(4)
    t = run.tournament("swiss", players, rounds=3)
    run.now = T0 + 60
    with run.engine.begin() as conn:
        assert st.set_status(conn, t.id, st.CREATED, st.STARTED, run.now)
    started = run.read(t.id)[0]
    # A process paired round 1 and died before making its games; a second, slower one computed the
    # same pass from the same state: refused, nothing written.
    with run.engine.begin() as conn:
        assert st.write_pass(conn, started, [("p0", "p2"), ("p1", "p3")], None, run.now)
    with run.engine.begin() as conn:
        assert not st.write_pass(conn, started, [("p0", "p1"), ("p2", "p3")], None, run.now)
    with run.engine.begin() as conn:  # the dead process's lease, expired
        conn.execute(sa.text("DELETE FROM leases"))
    run.tick(run.new_director("p2"))
    _t, _e, pairings = run.read(t.id)
    assert {(g, tuple(o)) for g, o in run.table.made} == {("g0", ("p0", "p2")), ("g1", ("p1", "p3"))}
    assert {p.round for p in pairings} == {1} and all(p.game_id for p in pairings)
    with pytest.raises(st.TournamentError):  # a late maker of the same pairing's game: refused
        run.complete(
            run.table.create_owned_game(
                NewGame(kind="friend", time_control="3+2"),
                ["p0", "p2"],
                rated=True,
                with_write=lambda c, g: st.attach_game(c, t.id, 1, ("p0", "p2"), g),
            )
        )
    _paired_once_per_round(run.read(t.id)[2])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"kind": "league"}, "'kind'"),
        ({"kind": "arena", "minutes": 5}, "'minutes'"),
        ({"kind": "arena", "minutes": 30, "rounds": 3}, "arena lasts"),
        ({"kind": "swiss", "rounds": 0}, "'rounds'"),
        ({"kind": "swiss", "rounds": 3, "time_control": "1d"}, "'time_control'"),
        ({"kind": "swiss", "rounds": 3, "format": "sealed"}, "'format'"),
        ({"kind": "swiss", "rounds": 3, "extra": 1}, "unknown field"),
        ({"kind": "swiss", "rounds": 3, "bots_allowed": "yes"}, "'bots_allowed'"),
    ],
)
def test_a_bad_tournament_is_refused_with_the_reason(body: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError, match=words):
        tournament_request({"name": "T", "starts_in": 60, **body}, "creator", T0)


def test_a_tournament_starts_from_now_to_thirty_days_ahead() -> None:
    with pytest.raises(InputError, match="30 days"):
        tournament_request({"name": "T", "kind": "swiss", "rounds": 3, "starts_in": -5}, "c", T0)
    with pytest.raises(InputError, match="one of"):
        tournament_request({"name": "T", "kind": "swiss", "rounds": 3}, "c", T0)


def test_the_hourly_arena_is_stored_once_per_hour(run: Run) -> None:
    director = run.new_director("p1", ["hourly-arena"])
    run.now = 3600.0 * 500_000 + 10
    run.tick(director)
    run.tick(director)
    listed = st.listing(run.engine, 0.0)
    assert [(t.kind, t.starts_at, t.minutes, n) for t, n in listed] == [("arena", 3600.0 * 500_001, 45, 0)]
    run.now += 3600
    run.tick(director)  # the first one started; the next hour's is listed
    assert [t.status for t, _n in st.listing(run.engine, 0.0)] == [st.STARTED, st.CREATED]


@pytest.mark.parametrize(
    ("is_bot", "bots_allowed", "refused"), [(True, False, True), (True, True, False), (False, False, False)]
)
def test_a_bot_account_enters_only_a_tournament_that_allows_bots(
    is_bot: bool, bots_allowed: bool, refused: bool
) -> None:
    """Issue 39: tournaments say whether bots may enter; a bot account's join is refused otherwise."""
    from clashofdecks.web.routes_tournaments import bot_refused
    from clashofdecks.web.store_rows import IdentityRow

    row = IdentityRow(id="i1", handle="b", display_name="B", username="b", is_bot=is_bot)
    tournament = st.TournamentRow(
        id="t1",
        kind="arena",
        name="A",
        format="precon",
        time_control="5+3",
        starts_at=0.0,
        minutes=30,
        rounds=None,
        bots_allowed=bots_allowed,
        created_by=None,
        status="waiting",
    )
    assert bot_refused(row, tournament) is refused
