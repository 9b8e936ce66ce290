"""What the store reads and writes, as plain values (rows of games, seats, clocks, identities,
analyses; an action to store), and its errors."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection


def token_hash(token: str) -> str:
    """Seat tokens are stored hashed: a leaked database does not hand out seats."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class SeatRow:
    seat: int
    kind: str
    name: str
    agent: str | None = None
    token_hash: str | None = None
    owner: str | None = None
    #: The owner is a bot account (web/bots.py): shown as such in the frames' ``players``.
    bot: bool = False


@dataclass
class GameRow:
    id: str
    kind: str
    mode: str
    format: str
    seed: int | None
    setup: dict[str, Any]
    status: str = "active"
    result: dict[str, Any] | None = None
    n_actions: int = 0
    revision: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    seats: list[SeatRow] = field(default_factory=list)
    actions: list[tuple[int, str]] = field(default_factory=list)  # (seat, action text) in order
    #: A rated duel (its result changes both identities' ratings of its format).
    rated: bool = False
    #: A friend duel its creator offered as rated, not yet accepted (or declined) by the invitee.
    rated_offer: bool = False
    clock: ClockRow | None = None


@dataclass
class ClockRow:
    """A row of ``clocks`` (the server turns it into a :class:`~clashofdecks.web.clocks.ClockState`)."""

    control: str
    remaining: tuple[float, float]
    running: int | None = None
    deadline: float | None = None


@dataclass
class CampaignLevel:
    level: int
    best: str  # "won" or "lost"
    played: int
    won: int


@dataclass
class AnalysisRow:
    game_id: str
    status: str  # "done" or "failed"
    body: dict[str, Any]
    iterations: int
    seconds: float
    created_at: float = 0.0


@dataclass
class IdentityRow:
    id: str
    handle: str
    display_name: str
    username: str | None = None
    password_hash: str | None = None
    #: The browser lineage of the session it was read through (None: not read through a session).
    lineage: str | None = None
    #: A bot account (web/bots.py), and the id of the account that owns it.
    is_bot: bool = False
    bot_owner: str | None = None

    @property
    def is_account(self) -> bool:
        return self.username is not None


class SeatTakenError(Exception):
    """A seat claim lost: the seat has an owner already (another page claimed it first)."""


@dataclass(frozen=True)
class ActionWrite:
    """One action to store (the server's hot path): many of them are written with one statement per
    table (:meth:`Store.append_actions`).  ``revision``: the game's revision the writer's copy is at
    (the write fails with :class:`StaleGameError` if the stored game is at another); None: unchecked
    (tests, tools)."""

    game_id: str
    idx: int
    seat: int
    text: str
    revision: int | None = None
    #: After this action an agent is to decide (kept in ``agent_turns`` in the same transaction);
    #: None in a game without an agent seat (nothing kept).
    agent_next: bool | None = None
    #: The action is the whole change of its revision (no other write of the game in its
    #: transaction): its change notification carries it, and a copy one revision behind applies it
    #: without a read (web/sync.py).  False for a clocked action (its clock is saved with it).
    alone: bool = True


#: A write of a group commit: an action, or any other write given the transaction's connection.
Write = ActionWrite | Callable[[Connection], None]


#: The PostgreSQL channel every change of a game, and every notice, is announced on (web/bus.py).
CHANGES_CHANNEL = "clash_games"


#: NOTIFY refuses payloads of 8,000 bytes and more; a notice frame is a few dozen.
NOTICE_MAX_BYTES = 4000


class StoreError(Exception):
    """A database write that did not happen (the caller must not acknowledge the action)."""


class StaleGameError(StoreError):
    """A write refused because the stored game changed since the writer's copy (another server
    process wrote to it): nothing was written; the writer catches up from the store."""


#: The largest change notification that carries its action (PostgreSQL's NOTIFY allows 8,000 bytes);
#: a longer one carries only the revision (the other processes read the store).
CHANGE_MAX_BYTES = 4000


def change_payload(game_id: str, revision: int, appended: ActionWrite | None = None) -> str:
    """The text of a change notification: a game's id and its new revision, and the action
    ``appended`` if it alone made that revision (web/bus.py's ``Change``); never a frame."""
    message: dict[str, Any] = {"game": game_id, "revision": revision}
    if appended is not None:
        message.update(index=appended.idx, actions=[[appended.seat, appended.text]])
    payload = json.dumps(message, separators=(",", ":"))
    if appended is not None and len(payload.encode()) > CHANGE_MAX_BYTES:
        return change_payload(game_id, revision)
    return payload


def clock_row_of(c: Any) -> ClockRow:
    return ClockRow(c.control, (c.remaining0, c.remaining1), c.running, c.deadline)


def identity_row(r: Any) -> IdentityRow:
    return IdentityRow(
        r.id,
        r.handle,
        r.display_name,
        r.username,
        r.password_hash,
        is_bot=bool(r.is_bot),
        bot_owner=r.bot_owner,
    )


def game_row_of(g: Any) -> GameRow:
    return GameRow(
        id=g.id,
        kind=g.kind,
        mode=g.mode,
        format=g.format,
        seed=g.seed,
        setup=json.loads(g.setup),
        status=g.status,
        result=json.loads(g.result) if g.result else None,
        n_actions=g.n_actions,
        revision=g.revision,
        created_at=g.created_at,
        updated_at=g.updated_at,
    )
