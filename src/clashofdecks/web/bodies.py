"""What the HTTP answers about identities, games and players say (JSON bodies), and an identity's
first session stored."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..options import LEVELS
from . import bots
from . import identity as ident
from .games import clock_of_row
from .ratings import LEADERBOARD_GAMES, display
from .store import CampaignLevel, GameRow, IdentityRow, Store


def create_identity(store: Store, *, row: IdentityRow, sid: str, lineage: str | None = None) -> str:
    return store.create_identity(row, ident.session_hash(sid), lineage)


def me_body(row: IdentityRow | None) -> dict[str, Any]:
    if row is None:
        return {"identity": None}
    return {
        "identity": row.handle,
        "display_name": row.display_name,
        "username": row.username,
        "account": row.is_account,
        "bot": row.is_bot,
    }


def campaign_json(levels: Sequence[CampaignLevel]) -> dict[str, Any]:
    """The solo campaign of one identity (``GET /api/campaign``, a player's page): every rulebook
    level with its best result (``None``: not played), whether it is open (level 0, and each level
    after a won one), and ``next``: the lowest open level not won yet (the highest level once all
    are won)."""
    by_level = {c.level: c for c in levels}
    out: list[dict[str, Any]] = []
    for level in sorted(LEVELS):
        c = by_level.get(level)
        below = by_level.get(level - 1)
        out.append(
            {
                "level": level,
                "best": None if c is None else c.best,
                "played": 0 if c is None else c.played,
                "won": 0 if c is None else c.won,
                "open": level == min(LEVELS) or (below is not None and below.best == "won"),
            }
        )
    candidates = [c["level"] for c in out if c["open"] and c["best"] != "won"]
    return {"levels": out, "next": candidates[0] if candidates else max(LEVELS)}


def _clock_summary(row: GameRow, player: str | None, now: float) -> dict[str, Any] | None:
    if row.clock is None:
        return None
    clock = clock_of_row(row.clock)
    return {**clock.to_json(now), "your_turn": _holds(row, clock.running, player)}


def _holds(row: GameRow, seat: int | None, player: str | None) -> bool:
    return (
        player is not None
        and seat is not None
        and any(s.seat == seat and s.owner == player for s in row.seats)
    )


def game_summary(row: GameRow, player: str | None, now: float = 0.0) -> dict[str, Any]:
    clock = _clock_summary(row, player, now)
    return {
        "clock": clock,
        "your_turn": clock is not None and clock["your_turn"],
        "id": row.id,
        "kind": row.kind,
        "mode": row.mode,
        "format": row.format,
        "status": row.status,
        "players": [s.name for s in row.seats],
        #: Which seats a bot account holds (web/bots.py), beside ``players``.
        "bots": [s.bot for s in row.seats],
        "result": row.result,
        "actions": row.n_actions,
        "updated": row.updated_at,
        "mine": player is not None and any(s.owner == player for s in row.seats),
    }


HANDLE = re.compile(r"[a-z0-9_.-]{1,40}")


def player_body(store: Store, row: IdentityRow) -> dict[str, Any]:
    """``GET /api/players/<handle>``: ratings and their history by format, results by format and
    by preconstructed deck, and the identity's last 50 games (the results count those).  No
    identity id leaves the server."""
    rates, hist = store.player_ratings(row.id)
    ratings_by_format = {
        r.format: {
            "rating": display(r.mu, r.sigma),
            "games": r.games,
            "wins": r.wins,
            "losses": r.losses,
            "provisional": row.username is None or r.games < LEADERBOARD_GAMES,
            "min_games": LEADERBOARD_GAMES,
        }
        for r in rates
    }
    history: dict[str, list[dict[str, Any]]] = {}
    for h in hist:
        history.setdefault(h.format, []).append({"game": h.game_id, "rating": h.rating, "at": h.at})
    games_rows = store.list_games(owner=row.id, limit=50)
    results: dict[str, dict[str, int]] = {}
    by_deck: dict[str, dict[str, int]] = {}
    decks = store.decks_taken([g.id for g in games_rows if g.format == "precon" and g.status == "over"])
    for g in games_rows:
        if g.status != "over" or g.kind == "imported":
            continue
        mine = [s.seat for s in g.seats if s.owner == row.id]
        winner = (g.result or {}).get("winner")
        key = "wins" if winner in mine and len(mine) == 1 else "draws" if winner is None else "losses"
        if len(mine) != 1:
            key = "played"  # hot-seat: both seats are the player's
        tally = results.setdefault(g.format, {"wins": 0, "losses": 0, "draws": 0, "played": 0})
        tally[key] += 1
        deck = decks.get((g.id, mine[0])) if len(mine) == 1 else None
        if deck is not None:
            per_deck = by_deck.setdefault(str(deck), {"wins": 0, "losses": 0, "draws": 0, "played": 0})
            per_deck[key] += 1
    return {
        "handle": row.handle,
        "name": row.display_name or row.handle,
        "account": row.is_account,
        "bot": row.is_bot,
        #: A bot's owner (their handle; None for a person, or a bot whose owner was deleted).
        "owner": bot_owner(store, row),
        "ratings": ratings_by_format,
        "history": history,
        "results": results,
        #: Preconstructed games by the deck the player took (1-4).
        "results_by_deck": by_deck,
        "games": [game_summary(g, row.id) for g in games_rows],
        #: The solo campaign (as ``GET /api/players/<handle>/campaign``).
        "campaign": campaign_json(store.campaign_of_identity(row.id)),
    }


def bot_owner(store: Store, row: IdentityRow) -> str | None:
    if not row.is_bot:
        return None
    with store.engine.connect() as conn:
        return bots.owner_of(conn, row.id)


#: The name a deleted person's seats show.
ANONYMOUS_NAME = "deleted player"
