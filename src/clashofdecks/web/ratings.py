"""Ratings of rated duels (OpenSkill) and the "play now" queue (docs/web.md, "Ratings and the queue").

Why OpenSkill (Weng-Lin, Plackett-Luce model) rather than Glicko-2: it updates after every game
(Glicko-2 is defined over rating periods, which a server that shows a new rating at the end of each
game would have to fake), it keeps an uncertainty (sigma) per player, so a conservative rating
(mu - 3 sigma) rises only as games accumulate, and it is a small pure-Python MIT library.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from openskill.models import PlackettLuce

#: OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (the small drift that keeps a
#: long-standing player's sigma from reaching 0, so their rating can still move).
MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
TAU: Final = 25.0 / 300.0
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)

#: The displayed rating: 1000 + 40 x (mu - 3 sigma), so a new player shows 1000 and a rating moves
#: by tens of points per game, a scale players know from chess.
DISPLAY_BASE: Final = 1000.0
DISPLAY_SCALE: Final = 40.0
#: Rated games an account needs before it appears on the leaderboard (guests never do).
LEADERBOARD_GAMES: Final = 10
RATED_FORMATS: Final = ("draft", "precon")


def display(mu: float, sigma: float) -> int:
    """The conservative rating players see (the leaderboard's ``rating``)."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3.0 * sigma))


def rate(
    winner: tuple[float, float], loser: tuple[float, float]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """New (mu, sigma) of the winner and the loser of one game."""
    a = _MODEL.rating(mu=winner[0], sigma=winner[1])
    b = _MODEL.rating(mu=loser[0], sigma=loser[1])
    [[a2], [b2]] = _MODEL.rate([[a], [b]], ranks=[1, 2])
    return (a2.mu, a2.sigma), (b2.mu, b2.sigma)


def draw(x: tuple[float, float], y: tuple[float, float]) -> tuple[tuple[float, float], tuple[float, float]]:
    a = _MODEL.rating(mu=x[0], sigma=x[1])
    b = _MODEL.rating(mu=y[0], sigma=y[1])
    [[a2], [b2]] = _MODEL.rate([[a], [b]], ranks=[1, 1])
    return (a2.mu, a2.sigma), (b2.mu, b2.sigma)


def ai_for_rating(rating: int) -> str:
    """The AI strength offered after the queue's wait: about the player's strength."""
    if rating < 950:
        return "beginner"
    if rating < 1150:
        return "casual"
    if rating < 1300:
        return "strong"
    return "strongest"


# ---------------------------------------------------------------------------- the queue

#: Pairing window: two players are paired when their displayed ratings differ by at most the
#: window of both, which starts at QUEUE_WINDOW and widens by QUEUE_WIDEN a second of waiting.
QUEUE_WINDOW: Final = 100.0
QUEUE_WIDEN: Final = 10.0
#: Seconds of waiting after which an AI of about the player's strength is offered (not forced).
AI_OFFER_AFTER: Final = 30.0


class QueueError(Exception):
    """A queue request refused (``code`` is the protocol's error code); nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False)
class Waiting:
    identity: str
    format: str
    rating: int
    since: float
    #: Whoever must be told (the server's connection; opaque here).
    ticket: Any = None
    ai_offered: bool = False
    #: A bot account (web/bots.py), and whether a person agreed to meet bots.
    bot: bool = False
    bots_ok: bool = False

    def may_meet(self, other: Waiting) -> bool:
        """People meet bots only when they opted in; two bots, or two people, always may."""
        if self.bot == other.bot:
            return True
        person = other if self.bot else self
        return person.bots_ok


@dataclass
class MatchQueue:
    """Who waits for a rated duel, per format; one entry per identity across all formats.

    The pairing rules in one place.  The server keeps the waiting players in the database
    (web/dbqueue.py, so players on different server processes meet) and runs these rules over them
    in each pairing round (``dbqueue.plan_round``); the class also works on its own, in memory.
    ``clock`` is injectable so tests move time without sleeping (``ServerConfig.clock``).
    """

    clock: Callable[[], float] = time.time
    waiting: dict[str, Waiting] = field(default_factory=dict)
    #: Pairs of identities never to pair (two identities of one browser: web/lineage.py).
    apart: set[frozenset[str]] = field(default_factory=set)

    def join(self, identity: str, fmt: str, rating: int, ticket: Any = None) -> Waiting:
        if fmt not in RATED_FORMATS:
            raise QueueError("bad_field", f"'format' must be one of {', '.join(RATED_FORMATS)}")
        if identity in self.waiting:
            raise QueueError("already_queued", "you are waiting in a queue already (one at a time)")
        entry = Waiting(identity, fmt, rating, self.clock(), ticket)
        self.waiting[identity] = entry
        return entry

    def leave(self, identity: str, ticket: Any = None) -> Waiting | None:
        """Remove ``identity`` (only if its entry belongs to ``ticket``, when one is given)."""
        entry = self.waiting.get(identity)
        if entry is None or (ticket is not None and entry.ticket is not ticket):
            return None
        return self.waiting.pop(identity)

    def window(self, entry: Waiting, now: float) -> float:
        return QUEUE_WINDOW + QUEUE_WIDEN * max(0.0, now - entry.since)

    def pair(self) -> list[tuple[Waiting, Waiting]]:
        """Pairs to start now (removed from the queue): the closest ratings first, among pairs
        within both players' windows.  Never one identity with itself (one entry per identity),
        nor two identities kept ``apart``, nor a bot with a person who did not opt in."""
        now = self.clock()
        candidates: list[tuple[float, float, Waiting, Waiting]] = []
        entries = list(self.waiting.values())
        for i, a in enumerate(entries):
            for b in entries[i + 1 :]:
                if a.format != b.format or a.identity == b.identity:
                    continue
                if frozenset((a.identity, b.identity)) in self.apart or not a.may_meet(b):
                    continue
                gap = abs(a.rating - b.rating)
                if gap <= min(self.window(a, now), self.window(b, now)):
                    candidates.append((gap, min(a.since, b.since), a, b))
        candidates.sort(key=lambda c: (c[0], c[1]))
        pairs: list[tuple[Waiting, Waiting]] = []
        taken: set[str] = set()
        for _gap, _since, a, b in candidates:
            if a.identity in taken or b.identity in taken:
                continue
            taken.update((a.identity, b.identity))
            pairs.append((a, b) if a.since <= b.since else (b, a))
        for a, b in pairs:
            del self.waiting[a.identity], self.waiting[b.identity]
        return pairs

    def ai_offers(self) -> list[Waiting]:
        """Entries that have waited AI_OFFER_AFTER seconds and have not been offered an AI yet
        (each is offered once; it stays in the queue)."""
        now = self.clock()
        due = [e for e in self.waiting.values() if not e.ai_offered and now - e.since >= AI_OFFER_AFTER]
        for e in due:
            e.ai_offered = True
        return due
