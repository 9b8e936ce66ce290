"""Rating integrity (docs/web.md, "Ratings and the queue"): two identities that play each other
over and over move no ratings after the first few games of a day, and the leaderboard lists only
players rated against several different opponents, so two accounts cannot farm the top by
feeding each other wins."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .store_tables import rating_history

#: Rated games between the same two identities that count within a day; later ones are not rated.
PAIR_GAMES_PER_DAY = 3
#: Distinct opponents a player needs in a format to be on the leaderboard (besides its games).
LEADERBOARD_OPPONENTS = 5
DAY = 86400.0
#: This process's values (``clash serve --limit rated_pair_per_day=N --limit leaderboard_opponents=N``).
settings = {"pair_games_per_day": PAIR_GAMES_PER_DAY, "leaderboard_opponents": LEADERBOARD_OPPONENTS}


def configure(pair_games_per_day: int, leaderboard_opponents: int) -> None:
    """Set this process's rating-integrity caps (``clash serve`` does, from its ``--limit``s)."""
    settings["pair_games_per_day"] = pair_games_per_day
    settings["leaderboard_opponents"] = leaderboard_opponents


def pair_games_since(conn: Connection, a: str, b: str, since: float) -> int:
    """Rated games ``a`` and ``b`` played against each other since ``since``."""
    theirs = sa.select(rating_history.c.game_id).where(rating_history.c.identity_id == b)
    query = sa.select(sa.func.count(sa.distinct(rating_history.c.game_id))).where(
        rating_history.c.identity_id == a,
        rating_history.c.at >= since,
        rating_history.c.game_id.in_(theirs),
    )
    return int(conn.execute(query).scalar_one())


def pair_over_cap(conn: Connection, a: str, b: str, now: float, cap: int | None = None) -> bool:
    """Whether ``a`` and ``b`` have played their ``cap`` rated games of the last day already
    (``cap``: this process's setting unless given; 0: no cap)."""
    cap = settings["pair_games_per_day"] if cap is None else cap
    return cap > 0 and pair_games_since(conn, a, b, now - DAY) >= cap


def varied_players(fmt: str, opponents: int | None = None) -> sa.Select[tuple[str]]:
    """The identities rated in ``fmt`` against at least ``opponents`` distinct identities (this
    process's setting unless given)."""
    opponents = settings["leaderboard_opponents"] if opponents is None else opponents
    mine, theirs = rating_history.alias("mine"), rating_history.alias("theirs")
    return (
        sa.select(mine.c.identity_id)
        .join(theirs, sa.and_(theirs.c.game_id == mine.c.game_id, theirs.c.identity_id != mine.c.identity_id))
        .where(mine.c.format == fmt)
        .group_by(mine.c.identity_id)
        .having(sa.func.count(sa.distinct(theirs.c.identity_id)) >= opponents)
    )
