"""Puzzles from the web store's finished games (``clash puzzles mine --from-store``, issue 39).

Each finished game is replayed from its stored record (the store keeps every action) and its puzzles
are those :func:`clashofdecks.puzzles.mine_record` finds, deduplicated by position across the games.
A puzzle links to its source game (``source["game"]``, the game's id on the site) only when nobody
who played it is known: every seat is an AI, the automaton, or a person without an account (a guest,
or a seat no identity holds).  A game with an account's seat gives its puzzles without the link, so a
puzzle never points at a named player's game.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlalchemy as sa

from ..errors import ClashError
from ..puzzles import Puzzle, mine_record
from ..session import AGENT, AUTOMATON
from .games import record_of_row
from .store import Store
from .store_rows import GameRow
from .store_tables import identities


def players_are_anonymous(store: Store, row: GameRow) -> bool:
    """Whether every seat of ``row`` is an AI, the automaton or a person without an account."""
    owners = {s.owner for s in row.seats if s.kind not in (AGENT, AUTOMATON) and s.owner is not None}
    if not owners:
        return True
    with store.engine.connect() as conn:
        named = conn.execute(
            sa.select(sa.func.count())
            .select_from(identities)
            .where(identities.c.id.in_(owners), identities.c.username.is_not(None))
        ).scalar_one()
    return int(named) == 0


def mine_store(store: Store) -> Iterator[list[Puzzle]]:
    """The puzzles of each finished game of ``store``, oldest game first (one list per game; a game
    whose record does not replay is skipped: it gives no puzzle)."""
    seen: set[str] = set()
    finished = store.list_games(status="over", limit=10**9)
    for summary in sorted(finished, key=lambda r: (r.created_at, r.id)):
        row = store.load_game(summary.id)
        if row is None or row.kind == "imported":
            continue
        source = {"origin": "web", "mode": row.mode, "format": row.format}
        if players_are_anonymous(store, row):
            source["game"] = row.id
        try:
            yield list(mine_record(record_of_row(row), source, seen))
        except ClashError:
            yield []


__all__ = ["mine_store", "players_are_anonymous"]
