"""Tournaments in the database (docs/tournaments.md, "On the server"): the rows, the entries, the
pairing passes written in one transaction each, and the results read from the finished games.

Every write the director makes is safe to repeat or to race: a pairing pass is written only if the
tournament's ``round`` is still the one the pass was computed from (compare-and-set), its rows are
keyed by (tournament, round, player), and a game is attached to a pairing only while the pairing has
none.  So a process killed at any point loses no round, and nobody is paired twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..errors import ClashError
from .store_core import insert_once
from .store_tables import (
    games,
    identities,
    ratings,
    seats,
    tournament_entries,
    tournament_pairings,
    tournaments,
)

CREATED: Final = "created"
STARTED: Final = "started"
FINISHED: Final = "finished"
#: A player's result in one pairing (``tournament_pairings.result``).
WIN, DRAW, LOSS, ABORTED, BYE = "win", "draw", "loss", "aborted", "bye"


class TournamentError(ClashError):
    """A join or a withdrawal refused (``code`` says why); nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TournamentRow:
    id: str
    kind: str
    name: str
    format: str
    time_control: str
    starts_at: float
    minutes: int | None
    rounds: int | None
    bots_allowed: bool
    created_by: str | None
    status: str
    round: int = 0
    schedule_key: str | None = None
    created_at: float = 0.0
    finished_at: float | None = None

    @property
    def ends_at(self) -> float | None:
        """An arena's end (no pairing after it); a Swiss ends after its rounds."""
        return None if self.minutes is None else self.starts_at + 60.0 * self.minutes


@dataclass(frozen=True)
class Entry:
    identity_id: str
    name: str
    score: float
    withdrawn: bool
    joined_at: float


@dataclass(frozen=True)
class Pairing:
    round: int
    player: str
    opponent: str | None
    game_id: str | None
    result: str | None

    @property
    def running(self) -> bool:
        """Paired with an opponent, its game not ended yet (or not made yet)."""
        return self.opponent is not None and self.result is None


def _tournament(r: Any) -> TournamentRow:
    return TournamentRow(**{c.name: getattr(r, c.name) for c in tournaments.columns})


def create(engine: Engine, row: TournamentRow) -> bool:
    """Store a new tournament: False when one of the same ``schedule_key`` is there already."""
    values = {c.name: getattr(row, c.name) for c in tournaments.columns}
    with engine.begin() as conn:
        return insert_once(conn, tournaments, values)


def get(conn: Connection, tournament_id: str) -> TournamentRow | None:
    r = conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id)).first()
    return None if r is None else _tournament(r)


def listing(engine: Engine, since: float, limit: int = 50) -> list[tuple[TournamentRow, int]]:
    """Tournaments not finished, and those finished since ``since``, each with its player count:
    those to start soonest first."""
    count = (
        sa.select(sa.func.count())
        .where(tournament_entries.c.tournament_id == tournaments.c.id, ~tournament_entries.c.withdrawn)
        .scalar_subquery()
    )
    query = (
        sa.select(tournaments, count.label("players"))
        .where(sa.or_(tournaments.c.status != FINISHED, tournaments.c.finished_at >= since))
        .order_by(tournaments.c.status == FINISHED, tournaments.c.starts_at, tournaments.c.id)
        .limit(limit)
    )
    with engine.connect() as conn:
        return [(_tournament(r), int(r.players)) for r in conn.execute(query)]


def in_status(conn: Connection, status: str) -> list[TournamentRow]:
    query = sa.select(tournaments).where(tournaments.c.status == status).order_by(tournaments.c.starts_at)
    return [_tournament(r) for r in conn.execute(query)]


def entries(conn: Connection, tournament_id: str) -> list[Entry]:
    """The players in entry order (the Swiss's seed order)."""
    e = tournament_entries
    query = (
        sa.select(e.c.identity_id, e.c.name, e.c.score, e.c.withdrawn, e.c.joined_at)
        .where(e.c.tournament_id == tournament_id)
        .order_by(e.c.joined_at, e.c.identity_id)
    )
    return [Entry(r.identity_id, r.name, r.score, r.withdrawn, r.joined_at) for r in conn.execute(query)]


def pairings(conn: Connection, tournament_id: str) -> list[Pairing]:
    p = tournament_pairings
    query = (
        sa.select(p.c.round, p.c.player, p.c.opponent, p.c.game_id, p.c.result)
        .where(p.c.tournament_id == tournament_id)
        .order_by(p.c.round, p.c.player)
    )
    return [Pairing(r.round, r.player, r.opponent, r.game_id, r.result) for r in conn.execute(query)]


def handles(conn: Connection, identity_ids: Sequence[str]) -> dict[str, str]:
    """The public handle of each identity (no identity id leaves the server)."""
    if not identity_ids:
        return {}
    query = sa.select(identities.c.id, identities.c.handle).where(identities.c.id.in_(list(identity_ids)))
    return {r.id: r.handle for r in conn.execute(query)}


def ratings_of(conn: Connection, fmt: str, identity_ids: Sequence[str]) -> dict[str, float]:
    query = sa.select(ratings.c.identity_id, ratings.c.mu).where(
        ratings.c.format == fmt, ratings.c.identity_id.in_(list(identity_ids))
    )
    return {r.identity_id: float(r.mu) for r in conn.execute(query)}


# ---------------------------------------------------------------------------- players


def join(engine: Engine, tournament_id: str, identity_id: str, name: str, now: float) -> None:
    """Enter (or re-enter after a withdrawal) a tournament not finished."""
    with engine.begin() as conn:
        t = get(conn, tournament_id)
        if t is None:
            raise TournamentError("not_found", "no such tournament")
        if t.status == FINISHED:
            raise TournamentError("finished", "this tournament is over")
        e = tournament_entries
        values = {"name": name, "score": 0.0, "withdrawn": False, "joined_at": now}
        if insert_once(conn, e, {"tournament_id": tournament_id, "identity_id": identity_id, **values}):
            return
        back = conn.execute(
            e.update()
            .where(e.c.tournament_id == tournament_id, e.c.identity_id == identity_id, e.c.withdrawn)
            .values(withdrawn=False)
        )
        if back.rowcount != 1:
            raise TournamentError("already_joined", "you are in this tournament already")


def withdraw(conn: Connection, tournament_id: str, identity_id: str) -> bool:
    """Withdraw a player: never paired again (their games stay).  False: not in it (or out already)."""
    e = tournament_entries
    done = conn.execute(
        e.update()
        .where(e.c.tournament_id == tournament_id, e.c.identity_id == identity_id, ~e.c.withdrawn)
        .values(withdrawn=True)
    )
    return bool(done.rowcount == 1)


# ---------------------------------------------------------------------------- the director's writes


def set_status(conn: Connection, tournament_id: str, old: str, new: str, now: float) -> bool:
    """Move a tournament from ``old`` to ``new`` (compare-and-set: once, whoever asks)."""
    values: dict[str, Any] = {"status": new}
    if new == FINISHED:
        values["finished_at"] = now
    done = conn.execute(
        tournaments.update()
        .where(tournaments.c.id == tournament_id, tournaments.c.status == old)
        .values(**values)
    )
    return bool(done.rowcount == 1)


def write_pass(
    conn: Connection,
    t: TournamentRow,
    pairs: Sequence[tuple[str, str]],
    bye: str | None,
    now: float,
) -> bool:
    """Pairing pass ``t.round + 1``: its rows, and the tournament's round moved to it, in the
    caller's one transaction.  False (nothing written) when another writer paired this pass first."""
    moved = conn.execute(
        tournaments.update()
        .where(tournaments.c.id == t.id, tournaments.c.round == t.round, tournaments.c.status == STARTED)
        .values(round=t.round + 1)
    )
    if moved.rowcount != 1:
        return False
    rows: list[dict[str, Any]] = []
    for a, b in pairs:
        rows.append({"player": a, "opponent": b, "result": None})
        rows.append({"player": b, "opponent": a, "result": None})
    if bye is not None:
        rows.append({"player": bye, "opponent": None, "result": BYE})
    base = {"tournament_id": t.id, "round": t.round + 1, "game_id": None, "paired_at": now}
    if rows:
        conn.execute(tournament_pairings.insert(), [{**base, **r} for r in rows])
    return True


def attach_game(
    conn: Connection, tournament_id: str, round_: int, pair: tuple[str, str], game_id: str
) -> None:
    """In the transaction creating the game: the pairing takes it, unless it has one already (then
    this raises, and the game is not created: another process made it)."""
    p = tournament_pairings
    done = conn.execute(
        p.update()
        .where(
            p.c.tournament_id == tournament_id,
            p.c.round == round_,
            p.c.player.in_(pair),
            p.c.game_id.is_(None),
        )
        .values(game_id=game_id)
    )
    if done.rowcount != 2:
        raise TournamentError("paired", "this pairing has its game already")


def ended_games(conn: Connection, tournament_id: str) -> list[tuple[str, dict[str, Any], dict[int, str]]]:
    """The finished games of this tournament whose result is not recorded yet: (game, its stored
    result, the owner of each seat)."""
    p = tournament_pairings
    query = (
        sa.select(games.c.id, games.c.result, seats.c.seat, seats.c.owner)
        .join(p, p.c.game_id == games.c.id)
        .join(seats, seats.c.game_id == games.c.id)
        .where(p.c.tournament_id == tournament_id, p.c.result.is_(None), games.c.status == "over")
        .distinct()
    )
    found: dict[str, tuple[dict[str, Any], dict[int, str]]] = {}
    for r in conn.execute(query):
        result = json.loads(r.result) if r.result else {}
        found.setdefault(r.id, (result, {}))[1][r.seat] = r.owner
    return [(g, result, owners) for g, (result, owners) in found.items()]


def record_result(conn: Connection, tournament_id: str, game_id: str, player: str, result: str) -> None:
    p = tournament_pairings
    conn.execute(
        p.update()
        .where(
            p.c.tournament_id == tournament_id,
            p.c.game_id == game_id,
            p.c.player == player,
            p.c.result.is_(None),
        )
        .values(result=result)
    )


def set_scores(conn: Connection, tournament_id: str, scores: dict[str, float]) -> None:
    e = tournament_entries
    for identity_id, score in scores.items():
        conn.execute(
            e.update()
            .where(e.c.tournament_id == tournament_id, e.c.identity_id == identity_id)
            .values(score=score)
        )
