"""The "play now" queue in the database, so players waiting on different server processes are
paired with each other (docs/web.md, "Ratings and the queue" and "Leases").

Each entry says who waits (identity, format, rating, since when on the server's clock), which
process holds their connection, whether an AI was offered, and the game they were matched into.
The process holding the ``queue`` lease pairs entries with :class:`~.ratings.MatchQueue`'s rules
(the closest ratings within both windows) and marks AI offers; every process polls its own entries
each watch tick and tells its waiting connections ``matched`` or ``ai_offer``.  Entries of a process
whose heartbeat stopped are dropped (its players reconnect and queue again).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from . import bots
from .leases import alive_processes, forget_dead_processes
from .lineage import kept_apart
from .ratings import MatchQueue, QueueError, Waiting
from .store import metadata
from .store_core import insert_once

queue_entries = sa.Table(
    "queue_entries",
    metadata,
    sa.Column("identity_id", sa.String(32), primary_key=True),  # one entry per identity
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("rating", sa.Integer, nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("joined_at", sa.Float, nullable=False),  # the server's clock (ServerConfig.clock)
    sa.Column("process_id", sa.String(120), nullable=False),
    sa.Column("ai_offered", sa.Boolean, nullable=False),
    sa.Column("game_id", sa.String(32), nullable=True),  # set when paired
    #: A person who agreed to meet bots (the lobby's checkbox; migration 0014_bot_accounts).
    sa.Column("bots_ok", sa.Boolean, nullable=False, server_default="0"),
)


@dataclass
class Entry:
    identity: str
    format: str
    rating: int
    name: str
    lang: str
    joined_at: float
    process: str
    ai_offered: bool = False
    game_id: str | None = None
    #: A person who agreed to meet bots (the lobby's checkbox).
    bots_ok: bool = False


def _entry(r: sa.Row[tuple[object, ...]]) -> Entry:
    m = r._mapping
    return Entry(
        str(m["identity_id"]),
        str(m["format"]),
        int(m["rating"]),
        str(m["name"]),
        str(m["lang"]),
        float(m["joined_at"]),
        str(m["process_id"]),
        bool(m["ai_offered"]),
        None if m["game_id"] is None else str(m["game_id"]),
        bool(m["bots_ok"]),
    )


def join(engine: Engine, entry: Entry) -> None:
    """Queue ``entry``; QueueError ``already_queued`` (nothing changed) when its identity waits
    already on a live process (an entry left by a dead process is replaced)."""
    with engine.begin() as conn:
        conn.execute(
            queue_entries.delete().where(
                queue_entries.c.identity_id == entry.identity,
                queue_entries.c.process_id.not_in(alive_processes(conn)),
            )
        )
    values = {
        "identity_id": entry.identity,
        "format": entry.format,
        "rating": entry.rating,
        "name": entry.name,
        "lang": entry.lang,
        "joined_at": entry.joined_at,
        "process_id": entry.process,
        "ai_offered": False,
        "game_id": None,
        "bots_ok": entry.bots_ok,
    }
    with engine.begin() as conn:
        queued = insert_once(conn, queue_entries, values)
    if not queued:
        raise QueueError("already_queued", "you are waiting in a queue already (one at a time)")


def leave(engine: Engine, identity: str, process: str, *, offered_only: bool = False) -> Entry | None:
    """Remove ``identity``'s waiting entry held by ``process`` (None: there was none; with
    ``offered_only``, none that was offered an AI: then nothing is removed)."""
    with engine.begin() as conn:
        row = conn.execute(
            queue_entries.select().where(
                queue_entries.c.identity_id == identity,
                queue_entries.c.process_id == process,
                queue_entries.c.game_id.is_(None),
            )
        ).first()
        if row is not None and offered_only and not row._mapping["ai_offered"]:
            return None
        if row is None:
            return None
        done = conn.execute(
            queue_entries.delete().where(
                queue_entries.c.identity_id == identity, queue_entries.c.game_id.is_(None)
            )
        )
        return _entry(row) if done.rowcount == 1 else None


def entries_of(engine: Engine, process: str) -> list[Entry]:
    """This process's entries (waiting, offered an AI, or matched and not yet told)."""
    with engine.connect() as conn:
        rows = conn.execute(queue_entries.select().where(queue_entries.c.process_id == process))
        return [_entry(r) for r in rows]


def told_matched(engine: Engine, identity: str, game_id: str) -> None:
    """The matched player was told: their entry goes."""
    with engine.begin() as conn:
        conn.execute(
            queue_entries.delete().where(
                queue_entries.c.identity_id == identity, queue_entries.c.game_id == game_id
            )
        )


def plan_round(engine: Engine, now: float) -> tuple[list[tuple[Entry, Entry]], list[Entry]]:
    """One round of the queue lease holder: drop the entries of dead processes (and the heartbeat
    rows of processes long dead), then the pairs to
    start (MatchQueue's rules) and the entries due an AI offer (marked offered here)."""
    with engine.begin() as conn:
        conn.execute(queue_entries.delete().where(queue_entries.c.process_id.not_in(alive_processes(conn))))
        forget_dead_processes(conn)
        rows = [
            _entry(r) for r in conn.execute(queue_entries.select().where(queue_entries.c.game_id.is_(None)))
        ]
        ids = [e.identity for e in rows]
        # Two identities one browser has held are never paired (web/lineage.py), nor a bot with its
        # owner or the owner's other identities (web/bots.py).
        apart = kept_apart(conn, ids) | bots.queue_apart(conn, ids)
        bot_ids = bots.bot_ids(conn, ids)
    by_identity = {e.identity: e for e in rows}
    queue = MatchQueue(clock=lambda: now, apart=apart)
    for e in rows:
        queue.waiting[e.identity] = Waiting(
            e.identity,
            e.format,
            e.rating,
            e.joined_at,
            ai_offered=e.ai_offered,
            bot=e.identity in bot_ids,
            bots_ok=e.bots_ok,
        )
    pairs = [(by_identity[a.identity], by_identity[b.identity]) for a, b in queue.pair()]
    offers = [by_identity[w.identity] for w in queue.ai_offers()]
    if offers:
        with engine.begin() as conn:
            conn.execute(
                queue_entries.update()
                .where(queue_entries.c.identity_id.in_([e.identity for e in offers]))
                .values(ai_offered=True)
            )
    return pairs, offers


def claim_pair(conn: Connection, pair: tuple[Entry, Entry], game_id: str) -> None:
    """Mark both entries matched into ``game_id`` (in the transaction that creates the game);
    raises QueueError when either left meanwhile, so no game is made for an absent player."""
    done = conn.execute(
        queue_entries.update()
        .where(
            queue_entries.c.identity_id.in_([pair[0].identity, pair[1].identity]),
            queue_entries.c.game_id.is_(None),
        )
        .values(game_id=game_id)
    )
    if done.rowcount != 2:
        raise QueueError("not_queued", "a player left the queue before the pairing")


sa.Index("ix_queue_entries_process", queue_entries.c.process_id)
