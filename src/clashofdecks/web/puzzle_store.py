"""The puzzle ratings, attempts and reports (docs/puzzles.md, "Ratings"; migration 0015_puzzles).

A rating per player and per puzzle (OpenSkill, as the game ratings, web/ratings.py: a solved puzzle
is a win of the player over the puzzle, a failed one a win of the puzzle).  Only an identity's first
attempt of a puzzle moves the two ratings: every finished attempt is kept, and the rating is applied
in the transaction that keeps the first one.  Reports ("report this puzzle") are kept for the
operator, one per identity and puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from . import ratings
from .store_tables import puzzle_attempts, puzzle_ratings, puzzle_reports

#: Longest report reason kept (characters); a longer one is refused.
MAX_REASON: Final = 500
PLAYER: Final = "player"
PUZZLE: Final = "puzzle"


def display(mu: float) -> int:
    """The puzzle rating shown (players and puzzles): 1000 + 40 x (mu - 25), so everything starts at
    1000 and a failed puzzle never shows a rise (the game ratings' conservative mu - 3 sigma would
    rise after a loss while sigma shrinks)."""
    return round(ratings.DISPLAY_BASE + ratings.DISPLAY_SCALE * (mu - ratings.MU))


@dataclass(frozen=True)
class Finished:
    """What a finished attempt did to the player's rating (``rated`` False: not the first attempt)."""

    rated: bool
    before: int
    after: int

    def to_json(self) -> dict[str, Any]:
        return {
            "rated": self.rated,
            "before": self.before,
            "after": self.after,
            "change": self.after - self.before,
        }


def _insert(conn: Connection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


def _locked(conn: Connection, kind: str, key: str, now: float) -> tuple[float, float]:
    """The (mu, sigma) of a rating, its row made if new and locked until the transaction ends."""
    conn.execute(
        _insert(conn)(puzzle_ratings)
        .values(kind=kind, key=key, mu=ratings.MU, sigma=ratings.SIGMA, attempts=0, updated_at=now)
        .on_conflict_do_nothing()
    )
    row = conn.execute(
        sa.select(puzzle_ratings.c.mu, puzzle_ratings.c.sigma)
        .where(puzzle_ratings.c.kind == kind, puzzle_ratings.c.key == key)
        .with_for_update()
    ).one()
    return float(row.mu), float(row.sigma)


def _keep(conn: Connection, kind: str, key: str, rating: tuple[float, float], now: float) -> None:
    conn.execute(
        sa.update(puzzle_ratings)
        .where(puzzle_ratings.c.kind == kind, puzzle_ratings.c.key == key)
        .values(mu=rating[0], sigma=rating[1], attempts=puzzle_ratings.c.attempts + 1, updated_at=now)
    )


def finish_attempt(
    conn: Connection, identity_id: str, puzzle_id: str, solved: bool, moves: int, now: float
) -> Finished:
    """Keep a finished attempt; the first of this identity and puzzle moves both ratings (in this
    transaction, the player's row locked first, so two attempts at once are rated once)."""
    player = _locked(conn, PLAYER, identity_id, now)
    earlier = conn.execute(
        sa.select(sa.func.count())
        .select_from(puzzle_attempts)
        .where(puzzle_attempts.c.identity_id == identity_id, puzzle_attempts.c.puzzle_id == puzzle_id)
    ).scalar_one()
    before = display(player[0])
    after = before
    if not earlier:
        puzzle = _locked(conn, PUZZLE, puzzle_id, now)
        if solved:
            player, puzzle = ratings.rate(player, puzzle)
        else:
            puzzle, player = ratings.rate(puzzle, player)
        _keep(conn, PLAYER, identity_id, player, now)
        _keep(conn, PUZZLE, puzzle_id, puzzle, now)
        after = display(player[0])
    conn.execute(
        sa.insert(puzzle_attempts).values(
            identity_id=identity_id,
            puzzle_id=puzzle_id,
            solved=solved,
            moves=moves,
            rated=not earlier,
            rating_before=before,
            rating_after=after,
            at=now,
        )
    )
    return Finished(not earlier, before, after)


def player_rating(engine: Engine, identity_id: str) -> dict[str, Any]:
    """An identity's puzzle rating and how many puzzles it has tried."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(puzzle_ratings.c.mu, puzzle_ratings.c.attempts).where(
                puzzle_ratings.c.kind == PLAYER, puzzle_ratings.c.key == identity_id
            )
        ).first()
    if row is None:
        return {"rating": display(ratings.MU), "rated_attempts": 0}
    return {"rating": display(float(row.mu)), "rated_attempts": int(row.attempts)}


def puzzle_rating(engine: Engine, puzzle_id: str) -> int:
    with engine.connect() as conn:
        mu = conn.execute(
            sa.select(puzzle_ratings.c.mu).where(
                puzzle_ratings.c.kind == PUZZLE, puzzle_ratings.c.key == puzzle_id
            )
        ).scalar()
    return display(ratings.MU if mu is None else float(mu))


def puzzle_mus(engine: Engine) -> dict[str, float]:
    """The mu of every rated puzzle (the others are at the start, ``ratings.MU``)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(puzzle_ratings.c.key, puzzle_ratings.c.mu).where(puzzle_ratings.c.kind == PUZZLE)
        )
        return {r.key: float(r.mu) for r in rows}


def player_mu_and_tried(engine: Engine, identity_id: str) -> tuple[float, set[str]]:
    """The player's mu and the puzzles it has finished an attempt of."""
    with engine.connect() as conn:
        mu = conn.execute(
            sa.select(puzzle_ratings.c.mu).where(
                puzzle_ratings.c.kind == PLAYER, puzzle_ratings.c.key == identity_id
            )
        ).scalar()
        tried = conn.execute(
            sa.select(puzzle_attempts.c.puzzle_id)
            .where(puzzle_attempts.c.identity_id == identity_id)
            .distinct()
        )
        return (ratings.MU if mu is None else float(mu)), {r.puzzle_id for r in tried}


def report(engine: Engine, puzzle_id: str, identity_id: str, reason: str, now: float) -> bool:
    """Keep a report of a puzzle; False when this identity had reported it already (the first stays)."""
    with engine.begin() as conn:
        row = {"puzzle_id": puzzle_id, "identity_id": identity_id, "reason": reason, "created_at": now}
        # RETURNING, not rowcount: psycopg reports no row count for an upsert (web/leases.py).
        stmt = _insert(conn)(puzzle_reports).values(**row).on_conflict_do_nothing()
        return conn.execute(stmt.returning(puzzle_reports.c.puzzle_id)).first() is not None


def reports_of(engine: Engine) -> list[tuple[str, str, str]]:
    """Every puzzle report, oldest first (for the operator): (puzzle, identity, reason)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                puzzle_reports.c.puzzle_id, puzzle_reports.c.identity_id, puzzle_reports.c.reason
            ).order_by(puzzle_reports.c.created_at)
        )
        return [(r.puzzle_id, r.identity_id, r.reason) for r in rows]


def attempts_of(engine: Engine, identity_id: str) -> list[dict[str, Any]]:
    """An identity's finished attempts, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(puzzle_attempts)
            .where(puzzle_attempts.c.identity_id == identity_id)
            .order_by(puzzle_attempts.c.id)
        )
        return [dict(r._mapping) for r in rows]
