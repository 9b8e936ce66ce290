"""The reads of a catch-up (web/sync.py): what changed in a stored game since a copy's history,
without reading the game whole (docs/web.md, "Several processes").

A copy that must read (a change notified without its actions, a gap in the notifications, a write
refused as stale) reads the game row's state fields, its seats and clock, and only the actions after
its own history -- checked against the stored history's first actions by a digest PostgreSQL computes,
so an undo made elsewhere (the stored history no longer starts with the copy's) is never taken for a
continuation: the caller then reads the game whole and rebuilds.
"""

from __future__ import annotations

import hashlib
import json

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import aggregate_order_by

from .bots import SEATS_WITH_BOT
from .store import ClockRow, GameRow, SeatRow, Store, actions, clocks, games, rated_games, seats

#: A game's history as (seat, action text) pairs, in order: what the store keeps.
History = list[tuple[int, str]]

_A = actions.alias("a")
#: The md5 of the stored history's first ``k`` actions, as :func:`history_digest` writes them.
_PREFIX_DIGEST = (
    sa.select(
        sa.func.md5(
            sa.func.string_agg(
                sa.cast(_A.c.seat, sa.Text) + sa.literal(":") + _A.c.action,
                aggregate_order_by(sa.literal("\n"), _A.c.idx),
            )
        )
    )
    .where(_A.c.game_id == games.c.id, _A.c.idx < sa.bindparam("k"))
    .scalar_subquery()
)
_STATE = (
    sa.select(
        games.c.id,
        games.c.kind,
        games.c.mode,
        games.c.format,
        games.c.seed,
        games.c.status,
        games.c.result,
        games.c.n_actions,
        games.c.revision,
        games.c.created_at,
        games.c.updated_at,
        rated_games.c.agreed,
        clocks.c.control,
        clocks.c.remaining0,
        clocks.c.remaining1,
        clocks.c.running,
        clocks.c.deadline,
        _PREFIX_DIGEST.label("digest"),
    )
    .select_from(games.outerjoin(rated_games).outerjoin(clocks))
    .where(games.c.id == sa.bindparam("game"))
)
_SEATS = SEATS_WITH_BOT.where(seats.c.game_id == sa.bindparam("game")).order_by(seats.c.seat)
_ACTIONS_AFTER = (
    sa.select(actions.c.seat, actions.c.action)
    .where(actions.c.game_id == sa.bindparam("game"), actions.c.idx >= sa.bindparam("k"))
    .order_by(actions.c.idx)
)


def history_digest(history: History) -> str:
    return hashlib.md5("\n".join(f"{seat}:{text}" for seat, text in history).encode()).hexdigest()


def load_since(store: Store, game_id: str, known: History) -> GameRow | None:
    """The stored game with its whole history, read as of one moment but only from the action after
    ``known`` (the rest is ``known`` itself), or None when that cannot be: the stored history does not
    start with ``known`` (an undo elsewhere), the game is gone, or the store is SQLite (one process:
    no copy there is ever behind).  The row has no ``setup``: it is only for catching up a copy,
    which has its own."""
    engine = store.engine
    if engine.dialect.name != "postgresql":
        return None
    k = len(known)
    params = {"game": game_id, "k": k}
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="REPEATABLE READ")  # one moment for every read
        g = conn.execute(_STATE, params).first()
        if g is None or g.n_actions < k or (k and g.digest != history_digest(known)):
            return None
        row = GameRow(
            id=g.id,
            kind=g.kind,
            mode=g.mode,
            format=g.format,
            seed=g.seed,
            setup={},
            status=g.status,
            result=json.loads(g.result) if g.result else None,
            n_actions=g.n_actions,
            revision=g.revision,
            created_at=g.created_at,
            updated_at=g.updated_at,
            rated=g.agreed is True,
            rated_offer=g.agreed is False,
        )
        if g.control is not None:
            row.clock = ClockRow(g.control, (g.remaining0, g.remaining1), g.running, g.deadline)
        row.seats = [
            SeatRow(s.seat, s.kind, s.name, s.agent, s.token_hash, s.owner, bool(s.is_bot))
            for s in conn.execute(_SEATS, params)
        ]
        row.actions = [*known, *((a.seat, a.action) for a in conn.execute(_ACTIONS_AFTER, params))]
        return row
