"""A reader's own standing on the leaderboard (docs/web.md, "Ratings and the queue"): shown on the
leaderboard even while the reader is not listed (provisional, a guest, too few distinct opponents),
with what it still takes to appear."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import fairplay
from . import ratings as rt
from .store_tables import identities, rating_history, ratings


def standing(engine: Engine, identity_id: str, fmt: str) -> dict[str, Any]:
    """The identity's rating in ``fmt`` (None before its first rated game there) and how far it is
    from the list: ``guest`` (only accounts are listed), ``games`` against ``min_games``,
    ``opponents`` (distinct) against ``min_opponents``."""
    with engine.connect() as conn:
        who = conn.execute(
            sa.select(identities.c.handle, identities.c.display_name, identities.c.username).where(
                identities.c.id == identity_id
            )
        ).first()
        rating = conn.execute(
            sa.select(ratings).where(ratings.c.identity_id == identity_id, ratings.c.format == fmt)
        ).first()
        mine, theirs = rating_history.alias("mine"), rating_history.alias("theirs")
        same_game = sa.and_(theirs.c.game_id == mine.c.game_id, theirs.c.identity_id != mine.c.identity_id)
        opponents = conn.execute(
            sa.select(sa.func.count(sa.distinct(theirs.c.identity_id)))
            .select_from(mine)
            .join(theirs, same_game)
            .where(mine.c.identity_id == identity_id, mine.c.format == fmt)
        ).scalar_one()
    games = 0 if rating is None else int(rating.games)
    return {
        "handle": None if who is None else who.handle,
        "name": None if who is None else (who.display_name or who.handle),
        "guest": who is None or who.username is None,
        "rating": None if rating is None else rt.display(rating.mu, rating.sigma),
        "games": games,
        "wins": 0 if rating is None else int(rating.wins),
        "losses": 0 if rating is None else int(rating.losses),
        "provisional": games < rt.LEADERBOARD_GAMES,
        "opponents": int(opponents),
        "min_games": rt.LEADERBOARD_GAMES,
        "min_opponents": fairplay.settings["leaderboard_opponents"],
    }
