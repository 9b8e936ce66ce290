"""Bot accounts (docs/web.md, "Bots"; issue 39): which identities are bots, who owns them, and the
rules that follow from it.

An account becomes a bot when a signed-in account (its owner) shows the account's password
(``POST /api/bots``), and only before its first game: a person's games and rating never turn into a
bot's.  A bot is rated on the bots' list only (a game between a person and a bot changes the bot's
rating, never the person's: :func:`frozen_ratings`), is met in the queue only by people who opted in,
never by its owner nor by any identity that shares a browser with the owner (:func:`queue_apart`),
and two bots may meet.  :func:`is_bot` is what other parts (tournaments) ask.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .store_tables import browser_identities, identities, seats

#: The seats of a game with whether each seat's owner is a bot (an outer join: a seat may have no owner).
SEATS_WITH_BOT = sa.select(
    seats, sa.func.coalesce(identities.c.is_bot, sa.false()).label("is_bot")
).select_from(seats.outerjoin(identities, identities.c.id == seats.c.owner))


class BotRefused(Exception):
    """Marking an account as a bot refused (``code``: the API's error code); nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def is_bot(engine: Engine | Connection, identity_id: str) -> bool:
    """Whether the identity is a bot account (False for an unknown identity)."""
    query = sa.select(identities.c.is_bot).where(identities.c.id == identity_id)
    if isinstance(engine, Connection):
        return bool(engine.execute(query).scalar())
    with engine.connect() as conn:
        return bool(conn.execute(query).scalar())


def bot_ids(conn: Connection, identity_ids: Iterable[str]) -> set[str]:
    """The bots among ``identity_ids``."""
    ids = sorted(set(identity_ids))
    if not ids:
        return set()
    rows = conn.execute(
        sa.select(identities.c.id).where(identities.c.id.in_(ids), identities.c.is_bot.is_(True))
    )
    return {str(r.id) for r in rows}


def owner_of(conn: Connection, identity_id: str) -> str | None:
    """The handle of a bot's owner (None: not a bot, or its owner is gone)."""
    owner = identities.alias("owner")
    return conn.execute(
        sa.select(owner.c.handle)
        .select_from(identities.join(owner, owner.c.id == identities.c.bot_owner))
        .where(identities.c.id == identity_id, identities.c.is_bot.is_(True))
    ).scalar()


def mark_bot(engine: Engine, bot_id: str, owner_id: str) -> None:
    """Make ``bot_id`` a bot owned by ``owner_id``; :class:`BotRefused` (nothing written) when it has
    played a game, is a bot already, or the owner is itself or a bot."""
    if bot_id == owner_id:
        raise BotRefused("bad_field", "an account cannot own itself: sign in as the owner")
    with engine.begin() as conn:
        if is_bot(conn, owner_id):
            raise BotRefused("owner_is_bot", "a bot cannot own a bot: sign in as a person's account")
        if is_bot(conn, bot_id):
            raise BotRefused("already_bot", "that account is a bot already")
        played = sa.exists().where(seats.c.owner == bot_id)
        done = conn.execute(
            identities.update()
            .where(identities.c.id == bot_id, identities.c.is_bot.is_(False), ~played)
            .values(is_bot=True, bot_owner=owner_id)
        )
        if done.rowcount != 1:
            raise BotRefused(
                "played_already", "an account that has played a game cannot become a bot (mark it before)"
            )


def queue_apart(conn: Connection, identity_ids: Collection[str]) -> set[frozenset[str]]:
    """Pairs of ``identity_ids`` the queue never makes for bots: each bot with its owner and with
    every identity a browser of the owner has held (web/lineage.py)."""
    owners = dict(
        conn.execute(
            sa.select(identities.c.id, identities.c.bot_owner).where(
                identities.c.id.in_(sorted(identity_ids)),
                identities.c.is_bot.is_(True),
                identities.c.bot_owner.is_not(None),
            )
        ).all()
    )
    apart: set[frozenset[str]] = set()
    for bot, owner in owners.items():
        owner_lineages = sa.select(browser_identities.c.lineage).where(
            browser_identities.c.identity_id == owner
        )
        family = {str(owner)} | {
            str(i)
            for i in conn.execute(
                sa.select(browser_identities.c.identity_id).where(
                    browser_identities.c.lineage.in_(owner_lineages)
                )
            ).scalars()
        }
        apart.update(frozenset((bot, other)) for other in family & set(identity_ids) if other != bot)
    return apart


def frozen_ratings(conn: Connection, players: tuple[str, str]) -> set[str]:
    """The players of a rated game whose rating the game leaves as it is: the person in a game
    between a person and a bot (the bot is rated against the person's rating; people's ratings
    come from people only)."""
    bots = bot_ids(conn, players)
    return set(players) - bots if len(bots) == 1 else set()
