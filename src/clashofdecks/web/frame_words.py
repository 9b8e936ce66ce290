"""The words of a live game's frames -- event sentences, the legal actions' labels, prompt lines,
the players' names -- rendered once per position and language and reused for every reader (both
seats' pages, a second tab, spectators, a page that reconnects and gets the whole log).

The cache hangs on the live game and belongs to its session (a copy that catches up with another
process gets a new session, hence new words); it holds the position it was made for: the number of
steps, the last step itself (an undo followed by another action gives a new step object at the same
length) and whether the game is over (a resignation or a timeout ends it without a step).  Each
sentence rendered is counted (``metrics.sentences_rendered``): tests pin how many an action costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..events import Event
from ..session import GameSession, Step
from . import metrics

if TYPE_CHECKING:
    from .store_rows import SeatRow

#: The event fields a frame carries when they are set.
EVENT_FIELDS: Final = ("player", "card", "lane", "position", "amount", "target_player", "target_card")
FIELDS_ALL: Final = (*EVENT_FIELDS, "role", "value")


def event_dict(event: Event, ctx: Any, sentence: Any) -> dict[str, Any]:
    """An engine event for the client: its fields (public by construction: events describe what both
    players saw happen) and its sentence (``event.describe()`` when ``ctx`` is None)."""
    text = event.describe() if ctx is None else sentence(event, ctx)
    out: dict[str, Any] = {"kind": event.kind.value, "rule": event.rule, "text": text}
    for name in FIELDS_ALL:
        value = getattr(event, name)
        if value is not None:
            out[name] = value
    if event.cards is not None:
        out["cards"] = list(event.cards)
    return out


def steps_done(session: GameSession) -> int:
    """``len(session.steps)`` without copying the steps (read at every frame and message)."""
    last = session.last_step
    return 0 if last is None else last.index + 1


def names_of_seats(seats: Sequence[SeatRow], lang: str) -> tuple[str, str]:
    """The players' names as the game shows them (the automaton in ``lang``), by seat."""
    from ..session import AUTOMATON
    from ..words.i18n import t

    word = t(lang, "automaton")
    automaton = word[:1].upper() + word[1:]  # a name in the sentence, like the players'
    out = [
        automaton if s.kind == AUTOMATON else (s.name or t(lang, "default_player", n=s.seat + 1))
        for s in seats
    ]
    return out[0], out[1]


class PositionWords:
    """The words of one session's current position, by language (see the module docstring)."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self._position: tuple[int, Step | None, bool] = (-1, None, False)
        self._names: dict[tuple[str, tuple[tuple[str, str, int], ...]], tuple[str, str]] = {}
        self._legal: dict[int, list[str]] = {}
        self._labels: dict[tuple[int, str, tuple[str, str]], list[str]] = {}
        self._prompts: dict[tuple[Any, ...], str] = {}
        #: The lines of the seats that wait (and spectators): they name only whom everyone waits
        #: for, so they outlive the position (rendered once per mover, language and names).
        self._waiting: dict[tuple[str, str, bool], str] = {}
        #: Per language and names: each step rendered so far (by index, with the step it was made
        #: for), and the initial events, as frame dicts.
        self._history: dict[tuple[str, tuple[str, str]], dict[int, tuple[Step, list[dict[str, Any]]]]] = {}
        self._initial: dict[tuple[str, tuple[str, str]], list[dict[str, Any]]] = {}

    def _here(self) -> None:
        """Forget the words of a position the session has left."""
        session = self.session
        position = (steps_done(session), session.last_step, session.is_over)
        old = self._position
        if position[0] != old[0] or position[1] is not old[1] or position[2] != old[2]:
            self._position = position
            self._legal.clear()
            self._labels.clear()
            self._prompts.clear()

    def names(self, seats: Sequence[SeatRow], lang: str) -> tuple[str, str]:
        key = (lang, tuple((s.kind, s.name, s.seat) for s in seats))
        names = self._names.get(key)
        if names is None:
            names = self._names[key] = names_of_seats(seats, lang)
        return names

    def legal(self, seat: int) -> list[str]:
        self._here()
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self.session.legal_actions(seat)
        return legal

    def labels(self, seat: int, lang: str, names: tuple[str, str]) -> list[str]:
        """The sentences of ``seat``'s legal actions now."""

        self._here()
        key = (seat, lang, names)
        labels = self._labels.get(key)
        if labels is None:
            legal = self.legal(seat)
            labels = self._labels[key] = self.session.describe_actions(legal, lang, names=names)
            metrics.sentences_rendered(len(labels))
        return labels

    def prompt(
        self,
        lang: str,
        seat: int | None,
        names: tuple[str, str],
        *,
        to_move: int,
        thinking: bool,
        build: bool,
    ) -> str:

        if to_move in (0, 1) and seat != to_move:  # "waiting for X" (words.actions.prompt_line)
            return self._waiting_line(lang, seat, names, to_move, thinking)
        self._here()
        key = (lang, seat, names, to_move, thinking, build)
        line = self._prompts.get(key)
        if line is None:
            line = self._prompts[key] = self.session.prompt_line(
                lang, seat, names=names, to_move=to_move, thinking=thinking, build=build
            )
            metrics.sentences_rendered(1)
        return line

    def _waiting_line(
        self, lang: str, seat: int | None, names: tuple[str, str], to_move: int, thinking: bool
    ) -> str:
        key = (lang, names[to_move], thinking)
        line = self._waiting.get(key)
        if line is None:
            line = self._waiting[key] = self.session.prompt_line(
                lang, seat, names=names, to_move=to_move, thinking=thinking
            )
            metrics.sentences_rendered(1)
        return line

    def history(self, lang: str, names: tuple[str, str], at_least: int = 0) -> list[list[dict[str, Any]]]:
        """The game's events so far as frame dicts, a list per step (the initial events first): all
        of them, or with ``at_least`` > 0 only the latest steps that hold that many events (the
        initial events when the walk back reaches them).  Each step is rendered once per language
        and kept, so the cost of a page opening a long game is the steps it shows, never the whole
        game's (a new language or a copy that caught up renders no more than the tail)."""
        key = (lang, names)
        rendered = self._history.setdefault(key, {})
        ctx = None
        steps = self.session.steps
        out: list[list[dict[str, Any]]] = []
        total, i = 0, len(steps) - 1
        while i >= 0 and (at_least <= 0 or total < at_least):
            step, kept = steps[i], rendered.get(i)
            if kept is None or kept[0] is not step:  # new, or another step at this index (undo)
                ctx = ctx or self._context(lang, names)
                kept = rendered[i] = (step, self._rendered(step.events, ctx))
            out.append(kept[1])
            total += len(kept[1])
            i -= 1
        stale = len(steps)
        while stale in rendered:  # steps an undo took back
            del rendered[stale]
            stale += 1
        if i < 0 and (at_least <= 0 or total < at_least):
            initial = self._initial.get(key)
            if initial is None:
                initial = self._initial[key] = self._rendered(
                    self.session.initial_events, ctx or self._context(lang, names)
                )
            out.append(initial)
        out.reverse()
        return out

    @staticmethod
    def _context(lang: str, names: tuple[str, str]) -> Any:
        from ..words.events import Context

        return Context(lang=lang, names=names, viewer=None)

    @staticmethod
    def _rendered(events: Sequence[Event], ctx: Any) -> list[dict[str, Any]]:
        from ..words.events import event_sentence

        out = [event_dict(e, ctx, event_sentence) for e in events]
        metrics.sentences_rendered(len(out))
        return out

    def last_step_events(
        self, events: Sequence[Event | dict[str, Any]], lang: str, names: tuple[str, str]
    ) -> list[dict[str, Any]] | None:
        """``events`` as frame dicts from the history when they are the last step's own events
        (a broadcast after an action), else None."""
        last = self.session.last_step
        if last is None:
            return None
        own = last.events
        if len(own) != len(events) or any(a is not b for a, b in zip(own, events, strict=True)):
            return None
        return self.history(lang, names, at_least=1)[-1]
