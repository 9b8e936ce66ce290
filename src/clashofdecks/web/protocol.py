"""The WebSocket protocol's client messages: parsing, validation, limits (``docs/web.md``).

Every message a client sends is checked here before anything else looks at it: size, JSON, type,
fields and their types, and a per-connection rate.  A message that fails gets an ``error`` reply with
one of the codes below, and changes nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Final

from ..words.i18n import languages
from .names import NameRefused, optional_name

#: Largest client message the app reads (bytes of UTF-8 text).  The transport closes the connection
#: for anything above ``TRANSPORT_MAX_BYTES`` without reading it.
MAX_MESSAGE_BYTES: Final = 4096
TRANSPORT_MAX_BYTES: Final = 1 << 16
MAX_TOKEN_CHARS: Final = 64
MAX_ACTION_CHARS: Final = 160
MAX_NAME_CHARS: Final = 40

#: Error codes of ``{"type": "error", "code": ..., "message": ...}`` replies.
ERROR_CODES: Final = (
    "too_big",  # message above MAX_MESSAGE_BYTES
    "bad_json",  # not JSON, or not a JSON object
    "unknown_type",  # "type" missing or not one of MESSAGE_FIELDS
    "bad_field",  # a field missing, of the wrong type, too long, or not expected
    "rate_limited",  # more messages than the connection's rate allows
    "hello_first",  # a message before "hello"
    "no_game",  # the game id is unknown
    "bad_token",  # the token does not open a seat of this game
    "spectator",  # a spectator tried to act
    "not_your_turn",  # the seat acting is not the seat to move
    "stale",  # "index" is not the number of actions so far (a double click, a stale page)
    "syntax",  # the action text does not parse
    "illegal",  # the action is not legal now (the message says why)
    "game_over",  # the game has ended
    "undo_refused",  # undo is not possible now (the message says why)
    "hint_unavailable",  # no hint now (never in a rated game while it runs)
    "abort_refused",  # no abort: not a rated game, or each player has finished a first turn
    "server_error",  # the server could not store the action; nothing changed
    "no_identity",  # the connection has no identity (queue, seats)
    "already_queued",  # the identity waits in a queue already (one queue at a time)
    "not_queued",  # leave_queue / queue_ai without waiting (or before the AI was offered)
    "rematch_refused",  # no rematch of this game (not over, not a duel, not a player of it)
)

#: Allowed fields (name -> type) per client message type; "type" itself is implied.
MESSAGE_FIELDS: Final[dict[str, dict[str, type | tuple[type, ...]]]] = {
    "hello": {
        "game": str,
        "token": str,
        "tokens": list,
        "name": str,
        "lang": str,
        "rated": bool,
        "protocol": int,
        "hints": bool,
        "presence": bool,
    },
    "act": {"action": str, "index": int},
    "undo": {"index": int},
    "hint": {},
    "resign": {},
    "abort": {},
    "ping": {"id": int},
    "queue": {"format": str, "lang": str, "bots": bool},
    "leave_queue": {},
    "queue_ai": {},
    "rematch": {},
    "resync": {},
}
#: The protocol versions a page may ask for in ``hello`` (docs/web.md, "Protocol"); 1 when it asks none.
PROTOCOL_VERSIONS: Final = (1, 2)
REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "hello": ("game",),
    "act": ("action", "index"),
    "undo": ("index",),
    "queue": ("format",),
}


class ProtocolError(Exception):
    """A client message refused before it reached the game: ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Message:
    type: str
    fields: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def _is_id(text: str, limit: int) -> bool:
    return 0 < len(text) <= limit and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in text)


def parse_message(text: str | bytes) -> Message:
    """Parse and validate one client message (raises :class:`ProtocolError`)."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_big", f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # ValueError: bad JSON, bad UTF-8, a 5,000-digit number
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_FIELDS:
        known = ", ".join(MESSAGE_FIELDS)
        raise ProtocolError("unknown_type", f"unknown message type {str(kind)[:40]!r} (known: {known})")
    allowed = MESSAGE_FIELDS[kind]
    fields = {k: v for k, v in data.items() if k != "type"}
    for name, value in fields.items():
        expected = allowed.get(name)
        if expected is None:
            raise ProtocolError("bad_field", f"{kind!r} has no field {str(name)[:40]!r}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ProtocolError("bad_field", f"field {name!r} of {kind!r} has the wrong type")
    for name in REQUIRED.get(kind, ()):
        if name not in fields:
            raise ProtocolError("bad_field", f"{kind!r} needs the field {name!r}")
    if kind == "hello":
        if not _is_id(fields["game"], 32):
            raise ProtocolError("bad_field", "'game' must be a game id")
        if fields.get("protocol", 1) not in PROTOCOL_VERSIONS:
            raise ProtocolError(
                "bad_field", "'protocol' must be 1 (full frames) or 2 (deltas after a change)"
            )
        tokens = list(fields.get("tokens", []))
        if "token" in fields:
            tokens.append(fields["token"])
        if len(tokens) > 2 or not all(isinstance(t, str) and _is_id(t, MAX_TOKEN_CHARS) for t in tokens):
            raise ProtocolError("bad_field", "'token'/'tokens': at most two seat tokens")
        try:
            name = optional_name(fields.get("name", ""), "'name'")
        except NameRefused as exc:
            raise ProtocolError("bad_field", str(exc)) from None
        lang = fields.get("lang", "en")
        if lang not in languages():  # the languages with a catalog (ui/catalog.py)
            raise ProtocolError("bad_field", f"'lang' must be one of {', '.join(languages())}")
        fields = {
            "game": fields["game"],
            "tokens": tokens,
            "name": name,
            "lang": lang,
            "rated": fields.get("rated", False),
            "protocol": fields.get("protocol", 1),
            "hints": fields.get("hints", False),
            "presence": fields.get("presence", False),
        }
    if kind == "queue":
        if fields.get("lang", "en") not in languages():
            raise ProtocolError("bad_field", f"'lang' must be one of {', '.join(languages())}")
        if fields["format"] not in ("draft", "precon"):
            raise ProtocolError("bad_field", "'format' must be draft or precon (the rated formats)")
    if kind == "act" and not 0 < len(fields["action"]) <= MAX_ACTION_CHARS:
        raise ProtocolError("bad_field", f"'action' must be 1-{MAX_ACTION_CHARS} characters")
    for name in ("index", "id"):
        if name in fields and not 0 <= fields[name] < 1 << 31:
            raise ProtocolError("bad_field", f"'{name}' is out of range")
    return Message(kind, fields)


class RateLimiter:
    """A token bucket: ``rate`` messages a second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class AddressRateLimiter:
    """One :class:`RateLimiter` per client address (game creation over HTTP: ``--create-rate``).

    Buckets that have filled up again are forgotten now and then, so a stream of addresses that each
    come once cannot grow the table without bound (a full bucket is what a new address gets anyway).
    """

    #: Forget full buckets once the table holds this many addresses.
    PRUNE_AT: Final = 4096

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, RateLimiter] = {}

    def allow(self, address: str) -> bool:
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.PRUNE_AT:
                self._prune()
            bucket = self.buckets[address] = RateLimiter(self.rate, self.burst)
        return bucket.allow()

    def would_allow(self, address: str) -> bool:
        """Whether :meth:`allow` would now, without drawing (a limit on failures only: check
        before the attempt, draw when it failed)."""
        return self.retry_after(address) <= 0.0

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may try again (0 when it may now)."""
        bucket = self.buckets.get(address)
        if bucket is None or self.rate <= 0:
            return 0.0
        missing = 1.0 - (bucket.tokens + (time.monotonic() - bucket.stamp) * self.rate)
        return max(0.0, missing / self.rate)

    def _prune(self) -> None:
        now = time.monotonic()
        for address, bucket in list(self.buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst:
                del self.buckets[address]


def error_frame(code: str, message: str, about: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if about is not None:
        frame["about"] = about
    return frame
