"""The review record of a rated game, for the operator only (docs/web.md, "Rating integrity").

Each seat of a rated game (or one offered as rated) gets a row: the identity, the addresses it
opened the game from (each an HMAC-SHA-256 under a secret the server keeps in its database, so the
record shows whether the two players shared an address without holding the address), the browser
lineages (web/lineage.py), how often it opened the game (reconnects) and the hints it was refused.
``clash admin review GAME`` prints it with the time each move took (from the stored actions).  No
HTTP route reads it.  Rows older than ``review_days`` are pruned (web/pruning.py).  An address is a
signal for a person to weigh, never a ban: households share one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .store_core import insert_once
from .store_tables import actions, games, identities, rated_games, reviews, seats, server_secrets

#: Distinct addresses and lineages kept per seat (a seat moving between many is a signal enough).
MAX_KEPT: Final = 20
_SECRET: Final = "review_address_key"


def address_key(engine: Engine) -> bytes:
    """The key of the address hashes, shared by every server process (made once, in the database)."""
    with engine.begin() as conn:
        insert_once(conn, server_secrets, {"name": _SECRET, "value": secrets.token_hex(32)})
        value = conn.execute(
            sa.select(server_secrets.c.value).where(server_secrets.c.name == _SECRET)
        ).scalar()
    return bytes.fromhex(str(value))


def hashed_address(key: bytes, address: str) -> str:
    return hmac.new(key, address.encode(), hashlib.sha256).hexdigest()[:32]


def note_visit(
    engine: Engine,
    game_id: str,
    seat: int,
    identity_id: str | None,
    *,
    address: str,
    lineage: str | None,
    now: float,
) -> None:
    """A page of ``seat`` opened the game: its address hash and lineage, one more join."""
    with engine.begin() as conn:
        row = conn.execute(
            sa.select(reviews).where(reviews.c.game_id == game_id, reviews.c.seat == seat).with_for_update()
        ).first()
        if row is None:
            values = {
                "game_id": game_id,
                "seat": seat,
                "identity_id": identity_id,
                "addresses": json.dumps([address]),
                "lineages": json.dumps([lineage] if lineage else []),
                "joins": 1,
                "refused_hints": 0,
                "created_at": now,
            }
            if insert_once(conn, reviews, values):
                return
            row = conn.execute(
                sa.select(reviews)
                .where(reviews.c.game_id == game_id, reviews.c.seat == seat)
                .with_for_update()
            ).one()
        conn.execute(
            reviews.update()
            .where(reviews.c.game_id == game_id, reviews.c.seat == seat)
            .values(
                addresses=json.dumps(_with(json.loads(row.addresses), address)),
                lineages=json.dumps(_with(json.loads(row.lineages), lineage)),
                joins=reviews.c.joins + 1,
            )
        )


def note_refused(engine: Engine, game_id: str, seat: int, hints: int) -> None:
    """A page of ``seat`` that was refused ``hints`` hints left the game."""
    with engine.begin() as conn:
        conn.execute(
            reviews.update()
            .where(reviews.c.game_id == game_id, reviews.c.seat == seat)
            .values(refused_hints=reviews.c.refused_hints + hints)
        )


def _with(kept: list[str], value: str | None) -> list[str]:
    if value is None or value in kept or len(kept) >= MAX_KEPT:
        return kept
    return [*kept, value]


def review_of(engine: Engine, game_id: str) -> dict[str, Any] | None:
    """The review record of a rated game (None: no such rated game, or its record was pruned)."""
    with engine.connect() as conn:
        rated = conn.execute(sa.select(rated_games).where(rated_games.c.game_id == game_id)).first()
        game = conn.execute(sa.select(games.c.status, games.c.result).where(games.c.id == game_id)).first()
        rows = conn.execute(
            sa.select(reviews).where(reviews.c.game_id == game_id).order_by(reviews.c.seat)
        ).all()
        if rated is None or game is None or not rows:
            return None
        handles = _handles(conn, game_id)
        moves = _move_seconds(conn, game_id)
    return {
        "game": game_id,
        "format": rated.format,
        "status": game.status,
        "result": None if game.result is None else json.loads(game.result),
        "seats": [
            {
                "seat": r.seat,
                "player": handles.get(r.seat),
                "addresses": json.loads(r.addresses),
                "lineages": json.loads(r.lineages),
                "reconnects": max(0, r.joins - 1),
                "refused_hints": r.refused_hints,
                "move_seconds": moves.get(r.seat, []),
            }
            for r in rows
        ],
    }


def _handles(conn: Connection, game_id: str) -> dict[int, str]:
    query = (
        sa.select(seats.c.seat, identities.c.handle, identities.c.username)
        .join(identities, identities.c.id == seats.c.owner)
        .where(seats.c.game_id == game_id)
    )
    return {r.seat: r.username or r.handle for r in conn.execute(query)}


def _move_seconds(conn: Connection, game_id: str) -> dict[int, list[float]]:
    """Each seat's seconds per action: from the action before it (any seat's; the first: from the
    game's creation) to it."""
    start = conn.execute(sa.select(games.c.created_at).where(games.c.id == game_id)).scalar()
    rows = conn.execute(
        sa.select(actions.c.seat, actions.c.at).where(actions.c.game_id == game_id).order_by(actions.c.idx)
    ).all()
    out: dict[int, list[float]] = {}
    before = float(start or 0.0)
    for row in rows:
        out.setdefault(row.seat, []).append(round(max(0.0, row.at - before), 2))
        before = row.at
    return out


def prune(conn: Connection, now: float, days: float) -> int:
    """Delete the records older than ``days`` (0: kept for ever)."""
    if not days:
        return 0
    return int(conn.execute(reviews.delete().where(reviews.c.created_at < now - days * 86400)).rowcount or 0)
