"""Caps that keep one client from slowing down or stopping the server (docs/web.md, "Threats").

Every cap is a setting of :class:`Caps` (``clash serve --limit NAME=VALUE``, listed in docs/web.md),
so tests and benchmarks that open many sockets from one address set their own.  Here: the socket
counts per identity and per address, a socket's flood guard, and the parsing of ``--limit``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final


@dataclass
class Caps:
    """The server's caps against abuse (0 means no cap where noted)."""

    #: Actions an imported record may hold (the 1 MiB body alone allowed ~173,000).
    record_actions: int = 2000
    #: Turns a game played on the site lasts at most: then it is a draw (the ruleset's ``max_turns``).
    max_turns: int = 200
    #: Events of the history a page gets with ``hello`` (the latest ones).
    hello_log_events: int = 200
    #: Record, replay and analysis requests an address may make per minute (burst the same); 0: no cap.
    heavy_per_minute: float = 60.0
    #: Frames of a replay one request gets (the page asks for the next ones as the reader steps).
    replay_page_frames: int = 50
    #: Seconds an identity waits between two hints (one hint per game is thought at a time besides).
    hint_interval_seconds: float = 5.0
    #: Puzzle moves an identity may send per minute (burst the same; one is judged at a time
    #: besides: web/routes_puzzles.py); 0: no cap.
    puzzle_moves_per_minute: float = 30.0
    #: Seconds a hint, an analysis, an import or a replay page may take in a worker (then it fails
    #: with a clear error; ``clash_work_timed_out_total``); 0: no budget.
    job_seconds: float = 60.0
    #: MiB a worker process may grow by during one job (then the job fails with a clear error and
    #: the worker is replaced; ``clash_work_over_memory_total``); 0: no limit.  Worker processes only
    #: (with ``--agent-workers 0`` jobs run in a thread of the server, unlimited).
    job_memory_mb: int = 1024
    #: Messages above the socket's rate dropped in a row before the socket is closed (1008).
    flood_drops: int = 40
    #: Seconds a new socket has to send its first message (closed 1008 otherwise); 0: no deadline.
    first_message_seconds: float = 10.0
    #: Sockets an address may open per minute (burst the same; 0: no cap): a flood closed at
    #: ``flood_drops`` cannot come straight back on a new socket, again and again.
    socket_opens_per_minute: float = 120.0
    #: Sockets open at once per identity and per client address (0: no cap).
    sockets_per_identity: int = 8
    sockets_per_address: int = 64
    #: Seconds a connection has to send a request's headers (closed otherwise).
    header_seconds: float = 10.0
    #: uvicorn's global cap on connections and tasks (above it: 503), above the per-address caps.
    concurrency: int = 10_000
    #: Failed logins per account and per address that pass without delay; after them each further
    #: attempt waits ``login_delay`` seconds, doubled at every failure, at most ``login_delay_max``.
    login_free_failures: int = 5
    login_free_failures_address: int = 20
    login_delay: float = 2.0
    login_delay_max: float = 900.0
    #: Days a session lasts unused.
    session_days: float = 30.0
    #: Days the review record of a rated game is kept (web/reviews.py; 0: for ever).
    review_days: float = 90.0
    #: Seconds between two prunings of old sessions, guests and review records (0: only at start).
    prune_seconds: float = 3600.0
    #: Rated games a day between the same two identities that move ratings (web/fairplay.py).
    rated_pair_per_day: int = 3
    #: Distinct opponents a player needs to be on the leaderboard (besides its 10 rated games).
    leaderboard_opponents: int = 5


#: The names ``--limit`` accepts.
CAP_NAMES: Final = tuple(f.name for f in dataclasses.fields(Caps))


def parse_caps(items: Iterable[str], base: Caps | None = None) -> Caps:
    """``["sockets_per_address=200", ...]`` over the defaults; ValueError says what is wrong."""
    caps = dataclasses.replace(base or Caps())
    types = {f.name: f.type for f in dataclasses.fields(Caps)}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or name not in types:
            raise ValueError(f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(CAP_NAMES)}")
        try:
            value: float = int(text) if types[name] in (int, "int") else float(text)
        except ValueError:
            raise ValueError(f"{name}: {text!r} is not a number") from None
        if not 0 <= value < 1e12:
            raise ValueError(f"{name}: {text!r} is out of range")
        setattr(caps, name, value)
    return caps


@dataclass
class SocketCounts:
    """Sockets open per identity and per address on this process."""

    caps: Caps
    by_identity: dict[str, int] = field(default_factory=dict)
    by_address: dict[str, int] = field(default_factory=dict)
    #: The open sockets of each identity (anything with an async ``close(code)``: WebSockets), so
    #: signing out or changing the password closes them.
    sockets: dict[str, set[Any]] = field(default_factory=dict)
    #: The session (its hash) each socket of an identity was opened with.
    session_of: dict[Any, str] = field(default_factory=dict)

    def admit(self, address: str, identity: str | None) -> str | None:
        """Count a new socket, or say why it is refused (nothing counted then)."""
        if self.caps.sockets_per_address and self.by_address.get(address, 0) >= self.caps.sockets_per_address:
            return "too many sockets from this address"
        if (
            identity is not None
            and self.caps.sockets_per_identity
            and self.by_identity.get(identity, 0) >= self.caps.sockets_per_identity
        ):
            return "too many sockets of this identity"
        self.by_address[address] = self.by_address.get(address, 0) + 1
        if identity is not None:
            self.by_identity[identity] = self.by_identity.get(identity, 0) + 1
        return None

    def opened(self, identity: str | None, socket: Any, session_hash: str | None = None) -> None:
        if identity is not None:
            self.sockets.setdefault(identity, set()).add(socket)
            if session_hash is not None:
                self.session_of[socket] = session_hash

    def release(self, address: str, identity: str | None, socket: Any = None) -> None:
        _decrement(self.by_address, address)
        self.session_of.pop(socket, None)
        if identity is not None:
            _decrement(self.by_identity, identity)
            held = self.sockets.get(identity)
            if held is not None:
                held.discard(socket)
                if not held:
                    del self.sockets[identity]

    def session_hashes(self, identities: Iterable[str]) -> set[str]:
        """The sessions this process's sockets of ``identities`` were opened with."""
        return {
            self.session_of[s] for i in identities for s in self.sockets.get(i, ()) if s in self.session_of
        }

    async def close_ended(self, identities: Iterable[str], live: set[str], code: int = 1008) -> int:
        """Close this process's sockets of ``identities`` whose session is not in ``live`` (it
        ended: a sign-out, a new password, an operator's command); how many."""
        ended = [
            socket
            for identity in identities
            for socket in list(self.sockets.get(identity, ()))
            if self.session_of.get(socket) not in live
        ]
        for socket in ended:
            with contextlib.suppress(Exception):  # one already closing
                await socket.close(code=code)
        return len(ended)


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class FloodGuard:
    """What a socket's message above its rate gets: the first of a run an error reply (so an honest
    page learns it went too fast), the next ones nothing; a run longer than ``drops`` closes it."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.run = 0

    def within_rate(self) -> None:
        self.run = 0

    def excess(self) -> str:
        """``"answer"``, ``"drop"`` or ``"close"``."""
        self.run += 1
        if self.run == 1:
            return "answer"
        return "close" if self.run > self.drops else "drop"
