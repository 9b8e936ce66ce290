"""The store's results of finished games: ratings of rated duels, the solo campaign, and analyses."""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from . import bots, fairplay
from .store_core import StoreCore, insert_once
from .store_rows import AnalysisRow, CampaignLevel
from .store_tables import analyses, campaign, identities, rated_games, rating_history, ratings


class ResultStore(StoreCore):
    """Ratings, the campaign and analyses."""

    def answer_rated_offer(self, game_id: str, accepted: bool, conn: Connection | None = None) -> None:
        """The invitee's answer to a friend duel offered as rated: rated from now on, or not at all."""
        with self._begin(conn) as conn:
            if accepted:
                conn.execute(rated_games.update().where(rated_games.c.game_id == game_id).values(agreed=True))
            else:
                conn.execute(rated_games.delete().where(rated_games.c.game_id == game_id))

    def rating(self, identity_id: str, fmt: str) -> tuple[float, float, int]:
        """(mu, sigma, rated games) of an identity in a format (a new player's when it has none)."""
        from .ratings import MU, SIGMA

        with self.engine.connect() as conn:
            r = conn.execute(
                sa.select(ratings.c.mu, ratings.c.sigma, ratings.c.games).where(
                    ratings.c.identity_id == identity_id, ratings.c.format == fmt
                )
            ).first()
        return (MU, SIGMA, 0) if r is None else (r.mu, r.sigma, r.games)

    def unrate(self, game_id: str, conn: Connection | None = None) -> None:
        """A rated game aborted (docs/web.md, "Fair play in rated games"): no longer rated."""
        with self._begin(conn) as conn:
            conn.execute(rated_games.delete().where(rated_games.c.game_id == game_id))

    def apply_rating(
        self, game_id: str, winner: str | None, players: tuple[str, str], conn: Connection | None = None
    ) -> bool:
        """Put a finished rated game's result into both players' ratings (``winner``: the winning
        identity, None for a draw).  Once per game: False, and nothing written, for a game that is
        not rated or was applied already (the conditional UPDATE makes two calls at once safe)."""
        from . import ratings as rt

        with self._begin(conn) as conn:
            g = conn.execute(rated_games.select().where(rated_games.c.game_id == game_id)).first()
            if g is None or not g.agreed or g.applied_at is not None or players[0] == players[1]:
                return False
            now = time.time()
            done = conn.execute(
                rated_games.update()
                .where(rated_games.c.game_id == game_id, rated_games.c.applied_at.is_(None))
                .values(applied_at=now)
            )
            if done.rowcount != 1:
                return False
            if fairplay.pair_over_cap(conn, players[0], players[1], now):
                return False  # the same two played their rated games of the day (web/fairplay.py)
            old: dict[str, tuple[float, float]] = {}
            exists: set[str] = set()
            for pid in players:
                r = conn.execute(
                    sa.select(ratings.c.mu, ratings.c.sigma).where(
                        ratings.c.identity_id == pid, ratings.c.format == g.format
                    )
                ).first()
                old[pid] = (rt.MU, rt.SIGMA) if r is None else (r.mu, r.sigma)
                if r is not None:
                    exists.add(pid)
            a, b = players
            if winner is None:
                new_a, new_b = rt.draw(old[a], old[b])
            else:
                loser = b if winner == a else a
                new_w, new_l = rt.rate(old[winner], old[loser])
                new_a, new_b = (new_w, new_l) if winner == a else (new_l, new_w)
            frozen = bots.frozen_ratings(conn, (a, b))  # a person who met a bot keeps their rating
            for pid, (mu, sigma) in ((a, new_a), (b, new_b)):
                if pid not in frozen:
                    _write_rating(conn, pid, g.format, game_id, (mu, sigma), winner, pid in exists, now)
            return True

    def set_rating(
        self, identity_id: str, fmt: str, mu: float, sigma: float, games: int, wins: int, losses: int
    ) -> None:
        """Seed a rating (tests and imports of ratings kept elsewhere)."""
        with self.engine.begin() as conn:
            conn.execute(
                ratings.delete().where(ratings.c.identity_id == identity_id, ratings.c.format == fmt)
            )
            conn.execute(
                ratings.insert().values(
                    identity_id=identity_id,
                    format=fmt,
                    mu=mu,
                    sigma=sigma,
                    games=games,
                    wins=wins,
                    losses=losses,
                    updated_at=time.time(),
                )
            )

    def leaderboard(
        self, fmt: str, *, provisional: bool = False, limit: int = 100, of_bots: bool = False
    ) -> list[dict[str, Any]]:
        """Players of a format, best conservative rating first: people, or with ``of_bots`` the bots'
        own list.  Without ``provisional``, only accounts with at least LEADERBOARD_GAMES rated games
        (guests never: they cannot farm it)."""
        from . import ratings as rt

        conservative = ratings.c.mu - 3.0 * ratings.c.sigma
        query = (
            sa.select(
                identities.c.handle,
                identities.c.display_name,
                identities.c.username,
                ratings.c.mu,
                ratings.c.sigma,
                ratings.c.games,
                ratings.c.wins,
                ratings.c.losses,
            )
            .join(ratings, ratings.c.identity_id == identities.c.id)
            .where(ratings.c.format == fmt, identities.c.is_bot.is_(of_bots))
        )
        if not provisional:  # filtered and ordered in SQL: an answer never reads every player
            query = query.where(identities.c.username.is_not(None), ratings.c.games >= rt.LEADERBOARD_GAMES)
            if fairplay.settings["leaderboard_opponents"] > 0:  # 0: the rule is off
                # Not two accounts feeding each other.
                query = query.where(identities.c.id.in_(fairplay.varied_players(fmt)))
        query = query.order_by(conservative.desc(), ratings.c.games.desc(), identities.c.handle).limit(limit)
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
        return [
            {
                "name": r.display_name or r.handle,
                "handle": r.handle,
                "rating": rt.display(r.mu, r.sigma),
                "games": r.games,
                "wins": r.wins,
                "losses": r.losses,
                "provisional": r.username is None or r.games < rt.LEADERBOARD_GAMES,
                "bot": of_bots,
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
            }
            for r in rows
        ]

    def player_ratings(self, identity_id: str) -> tuple[list[Any], list[Any]]:
        """An identity's ratings (one row per format) and its rating history, oldest first."""
        with self.engine.connect() as conn:
            rs = list(conn.execute(ratings.select().where(ratings.c.identity_id == identity_id)))
            hist = list(
                conn.execute(
                    rating_history.select()
                    .where(rating_history.c.identity_id == identity_id)
                    .order_by(rating_history.c.id)
                )
            )
        return rs, hist

    def record_campaign(
        self, identity_id: str, level: int, won: bool, conn: Connection | None = None
    ) -> None:
        """Count a finished solo game at a rulebook level for ``identity_id``: a win is the best
        result and stays so."""
        now = time.time()
        with self._begin(conn) as conn:
            done = conn.execute(
                campaign.update()
                .where(campaign.c.identity_id == identity_id, campaign.c.level == level)
                .values(
                    played=campaign.c.played + 1,
                    won=campaign.c.won + (1 if won else 0),
                    best=sa.case((campaign.c.best == "won", "won"), else_="won" if won else "lost"),
                    updated_at=now,
                )
            )
            if done.rowcount == 0:
                conn.execute(
                    campaign.insert().values(
                        identity_id=identity_id,
                        level=level,
                        best="won" if won else "lost",
                        played=1,
                        won=1 if won else 0,
                        updated_at=now,
                    )
                )

    def campaign_of_identity(self, identity_id: str) -> list[CampaignLevel]:
        """The levels ``identity_id`` has played, lowest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                campaign.select().where(campaign.c.identity_id == identity_id).order_by(campaign.c.level)
            )
            return [CampaignLevel(r.level, r.best, r.played, r.won) for r in rows]

    def campaign_of(self, handle: str) -> list[CampaignLevel] | None:
        """The campaign of the identity with this handle (a player's page); None: no such player."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(identities.c.id).where(identities.c.handle == handle)).first()
        return None if row is None else self.campaign_of_identity(row.id)

    def save_analysis(self, row: AnalysisRow, conn: Connection | None = None) -> bool:
        """Keep a game's analysis; False (and nothing written) if the game already has one: the
        first analysis stays, so a game's analysis never changes once shown."""
        values = {
            "game_id": row.game_id,
            "status": row.status,
            "body": json.dumps(row.body),
            "iterations": row.iterations,
            "seconds": row.seconds,
            "created_at": row.created_at or time.time(),
        }
        with self._begin(conn) as conn:
            return insert_once(conn, analyses, values)

    def load_analysis(self, game_id: str) -> AnalysisRow | None:
        with self.engine.connect() as conn:
            a = conn.execute(analyses.select().where(analyses.c.game_id == game_id)).first()
            if a is None:
                return None
            return AnalysisRow(a.game_id, a.status, json.loads(a.body), a.iterations, a.seconds, a.created_at)


def _write_rating(
    conn: Connection,
    pid: str,
    fmt: str,
    game_id: str,
    new: tuple[float, float],
    winner: str | None,
    exists: bool,
    now: float,
) -> None:
    """One player's new rating after a game, and its line in the history."""
    from . import ratings as rt

    mu, sigma = new
    won = int(winner == pid)
    lost = int(winner is not None and winner != pid)
    if exists:
        conn.execute(
            ratings.update()
            .where(ratings.c.identity_id == pid, ratings.c.format == fmt)
            .values(
                mu=mu,
                sigma=sigma,
                games=ratings.c.games + 1,
                wins=ratings.c.wins + won,
                losses=ratings.c.losses + lost,
                updated_at=now,
            )
        )
    else:
        conn.execute(
            ratings.insert().values(
                identity_id=pid,
                format=fmt,
                mu=mu,
                sigma=sigma,
                games=1,
                wins=won,
                losses=lost,
                updated_at=now,
            )
        )
    conn.execute(
        rating_history.insert().values(
            identity_id=pid, format=fmt, game_id=game_id, rating=rt.display(mu, sigma), at=now
        )
    )
