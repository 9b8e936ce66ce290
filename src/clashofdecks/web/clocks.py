"""Game clocks kept by the web server: real-time controls (a bank of minutes plus an increment per
turn handed over) and correspondence (a fixed time for each move).  docs/web.md, "Clocks".

Nothing here reads the time or does I/O: every function is given ``now`` by the server (its
``ServerConfig.clock``), so tests move time without sleeping, and nothing a client sends about time
is ever used.  A clock's state is plain data (:class:`ClockState`) stored in the ``clocks`` table,
so a restarted server, or another server process sharing the database, knows every deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..errors import ClashError

DAY: Final = 86400.0


class TimeControlError(ClashError):
    """A time control the server does not offer (the message lists those it does)."""


@dataclass(frozen=True)
class TimeControl:
    """``initial`` seconds for each player; a real-time control adds ``increment`` seconds to a
    player's bank each time their turn passes to the opponent; a correspondence control
    (``per_move``) gives the player to move ``initial`` seconds afresh for each of their turns."""

    name: str
    initial: float
    increment: float = 0.0
    per_move: bool = False

    @property
    def kind(self) -> str:
        return "correspondence" if self.per_move else "realtime"


#: The controls the lobby offers (names as the API takes them), fastest first.
#: The one time control of the "play now" queue's rated games, in every format (one queue per
#: format: the pool of waiting players is not split further; docs/web.md, "Fair play in rated games").
QUEUE_TIME_CONTROL: Final = "5+3"

TIME_CONTROLS: Final[dict[str, TimeControl]] = {
    c.name: c
    for c in (
        TimeControl("3+2", 3 * 60.0, 2.0),
        TimeControl("5+3", 5 * 60.0, 3.0),
        TimeControl("10+5", 10 * 60.0, 5.0),
        TimeControl("1d", DAY, per_move=True),
        TimeControl("3d", 3 * DAY, per_move=True),
    )
}


def time_control(name: str | None) -> TimeControl | None:
    """The control called ``name`` (``None`` or ``"none"``: an unclocked game)."""
    if name is None or name == "none":
        return None
    control = TIME_CONTROLS.get(name)
    if control is None:
        raise TimeControlError(f"unknown time control {name!r} (none, {', '.join(TIME_CONTROLS)})")
    return control


@dataclass
class ClockState:
    """A game's clock: each seat's time left when its clock last stopped, the seat whose clock runs
    (``running``; ``None`` before the clock starts and after the game ends) and when that seat's time
    runs out (``deadline``, the server's clock: seconds since the epoch)."""

    control: TimeControl
    remaining: list[float]
    running: int | None = None
    deadline: float | None = None

    @classmethod
    def new(cls, control: TimeControl) -> ClockState:
        return cls(control, [control.initial, control.initial])

    @property
    def started(self) -> bool:
        return self.running is not None

    def left(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (never below 0)."""
        if seat == self.running and self.deadline is not None:
            return max(0.0, self.deadline - now)
        return max(0.0, self.remaining[seat])

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock (both players are in the game and ``seat`` is to move)."""
        if self.control.per_move:
            self.remaining[seat] = self.control.initial
        self.running = seat
        self.deadline = now + self.remaining[seat]

    def expired(self, now: float) -> int | None:
        """The seat whose time has run out at ``now``, if any."""
        if self.running is not None and self.deadline is not None and now >= self.deadline:
            return self.running
        return None

    def moved(self, to_move: int, now: float) -> None:
        """A decision was made at ``now`` (in time: the caller checks :meth:`expired` first) and
        ``to_move`` (-1: the game ended) decides next.  The clock switches only when the turn passes
        to the other player: a turn is several decisions, and the increment is per turn handed over."""
        seat = self.running
        if seat is None:
            return
        if to_move == seat:
            return
        self.remaining[seat] = self.left(seat, now) + self.control.increment
        if self.control.per_move:
            self.remaining[seat] = self.control.initial
        if to_move not in (0, 1):
            self.stop(now)
            return
        self.start(to_move, now)

    def stop(self, now: float) -> None:
        """The game ended: freeze both clocks as they are at ``now``."""
        if self.running is not None:
            self.remaining[self.running] = self.left(self.running, now)
        self.running = None
        self.deadline = None

    def to_json(self, now: float) -> dict[str, Any]:
        """What a page is sent: the control and each seat's seconds left as of ``now``; the page
        counts the running seat's down from the moment it receives the frame."""
        return {
            "control": self.control.name,
            "kind": self.control.kind,
            "increment": self.control.increment,
            "left": [round(self.left(s, now), 1) for s in (0, 1)],
            "running": self.running,
        }


__all__ = ["DAY", "TIME_CONTROLS", "ClockState", "TimeControl", "TimeControlError", "time_control"]
