"""One game session at the terminal: :class:`TerminalGame` draws it for the human(s) (with
:mod:`.render`, words from :mod:`clashofdecks.words`) and reads what they type.

The game itself (seats, turn taking, how far undo reaches, hints, the record and its autosave) is a
:class:`clashofdecks.session.GameSession`.  Input is read one line at a time, so the game works the
same at a keyboard (with line editing, history and tab completion where the ``readline`` module
exists), under a pseudo-terminal (the end-to-end tests) and with piped input; end of input quits.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from ..agents.registry import UnknownAgentError
from ..cards import CARDS
from ..errors import ActionSyntaxError, ClashError, IllegalActionError
from ..events import Event, EventKind
from ..formats import setup_summary
from ..record import GameRecord
from ..rules import Game
from ..session import HUMAN, FileStore, GameSession, SessionError, UndoError
from ..words.i18n import t
from .line_reader import LineReader, localised_names
from .render import (
    Context,
    numbered_choices,
    render_event,
    render_help,
    render_screen,
)

#: Events worth a short pause when a human watches (the "step by step" of combat).
_PACED = frozenset({EventKind.ATTACKED, EventKind.CAST, EventKind.REVEALED, EventKind.TURN_STARTED})
#: Exit statuses (also in the command's help).
EXIT_OK, EXIT_LOAD_FAILED, EXIT_INTERRUPTED = 0, 1, 130


class SafeStore(FileStore):
    """The autosave folder; a failing disk never ends the game (the reason is kept and shown)."""

    def __init__(self, folder: Path | str | None = None) -> None:
        super().__init__(folder)
        self.error: str | None = None

    def save(self, session: GameSession) -> None:
        try:
            super().save(session)
        except OSError as exc:
            self.error = f"{self.folder}: {exc.strerror or exc}"
        else:
            self.error = None


# ---------------------------------------------------------------------------- names


def seat_names(session: GameSession, lang: str) -> tuple[str, str]:
    """Each seat's display name: a seat's own name if it has one, else Player / Player 1 and 2 (by
    participant, so the names stay with the people whoever the coin toss seated first) / the agent."""
    seats = session.seats
    humans = [s for s, seat in enumerate(seats) if seat.kind == HUMAN]
    raw: list[str] = []
    for s, seat in enumerate(seats):
        if seat.name:
            raw.append(seat.name)
        elif seat.kind == "automaton":
            raw.append("@automaton")
        elif seat.kind == HUMAN and len(humans) == 2:
            raw.append(f"@player {1 if session.participant_seat(0) == s else 2}")
        elif seat.kind == HUMAN:
            raw.append("@player")
        elif seat.agent is not None:
            raw.append(seat.agent.split(":", 1)[0].capitalize())
        else:
            raw.append(f"@player {s + 1}")
    return localised_names((raw[0], raw[1]), lang)


# ---------------------------------------------------------------------------- the terminal game


@dataclass
class TerminalGame:
    """One game session at the terminal: draws it for the human(s) and reads their input."""

    session: GameSession
    console: Console
    read_line: Callable[[str], str | None]
    lang: str = "en"
    names: tuple[str, str] = ("Player", "Automaton")
    pace: float = 0.0
    hint_seconds: float = 2.0
    layout: str = "auto"
    #: Show the rule number of each event (``clash play --rule-numbers``).
    rule_numbers: bool = False
    #: Lines of the terminal (``None``: output is not a screen, draw everything).
    height: int | None = None
    #: Measure the terminal again at each screen (it may have been resized).
    follow_terminal: bool = False
    store: SafeStore | None = None
    preset_deck: int | None = None
    preset_seat: int | None = None
    #: Clear the screen at a hot-seat handover (a real terminal only).
    clear_screen: bool = False
    _last_viewer: int | None = None
    _shown: tuple[int, int] | None = None  # (seat, number of steps) of the last screen drawn
    _unseen: list[Event] = field(default_factory=list)  # events the next hot-seat player has not seen
    _other_side_played: bool = False

    # ------------------------------------------------------------------ helpers

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def humans(self) -> frozenset[int]:
        return frozenset(s for s, seat in enumerate(self.session.seats) if seat.kind == HUMAN)

    @property
    def hot_seat(self) -> bool:
        return len(self.humans) == 2

    def ctx(self, viewer: int | None = None) -> Context:
        if viewer is None:
            viewer = self._viewer()
        return Context(
            lang=self.lang,
            names=self.names,
            viewer=viewer,
            width=self.console.width,
            rule_numbers=self.rule_numbers,
        )

    def _viewer(self) -> int:
        cp = self.session.to_move
        if cp in self.humans:
            return cp
        if self._last_viewer in (0, 1):
            return self._last_viewer
        return min(self.humans) if self.humans else 0

    def say(self, key: str, style: str = "", **values: object) -> None:
        self.console.print(t(self.lang, key, **values), style=style, highlight=False, soft_wrap=True)

    def show_events(self, events: Sequence[Event], *, paced: bool = True) -> None:
        ctx = self.ctx()
        for event in events:
            if event.kind is EventKind.PHASE_CHANGED and not self.hot_seat and event.player in self.humans:
                continue  # the status line says it
            self.console.print(render_event(event, ctx), highlight=False)
            if paced and self.pace > 0 and event.kind in _PACED and event.player not in self.humans:
                time.sleep(self.pace)
                self._other_side_played = True
        if self.hot_seat:
            self._unseen.extend(events)

    def action_texts(self) -> list[str]:
        """The listed choices (empty in the custom build stage: R2.5 decks are typed)."""
        return self.session.legal_actions(self.session.to_move)

    def completion_texts(self) -> list[str]:
        """What Tab completes at the start of the line: the legal actions (``build`` in R2.5's stage)."""
        return ["build "] if self.session.is_build_stage() else self.action_texts()

    def typed_words(self) -> list[str]:
        """Card ids, completed anywhere on the line while a custom deck is typed (R2.5)."""
        if self.session.is_build_stage():
            return [card.id for card in CARDS]
        return []

    def commands_hint(self) -> str:
        return t(self.lang, "choices_hint", file=t(self.lang, "file_word"))

    def show_screen(self) -> None:
        texts = [] if self.session.is_over else self.action_texts()
        footer = "" if self.session.is_over else t(self.lang, "input_hint")
        if self.follow_terminal:
            self.height = screen_height(self.console)
        screen = render_screen(
            self.game,
            texts,
            self.ctx(),
            height=self.height,
            layout=self.layout,
            commands="" if self.session.is_over else self.commands_hint(),
            footer=footer,
        )
        self.console.print(screen, highlight=False)

    def autosave_note(self) -> None:
        """Say where the game is saved and how to continue it (or why it is not)."""
        if self.store is None:
            return
        if self.store.error is not None:
            self.say(
                "not_autosaved", style="bold red", reason=self.store.error, file=t(self.lang, "file_word")
            )
            return
        if self.session.is_over:
            return
        self.say("autosaved", style="bold", path=self.store.path(self.session.id))

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the game is over and the human quits (or input ends); the exit status."""
        try:
            return self._loop()
        except KeyboardInterrupt:  # Ctrl-C at the prompt or while the other side plays
            self.console.print()
            self.say("interrupted", style="bold yellow")
            if self.store is not None:
                self.store.save(self.session)  # the record is the actions: consistent even mid-move
            self.autosave_note()
            return EXIT_INTERRUPTED

    def _loop(self) -> int:
        session = self.session
        while True:
            if session.is_over:
                key = (-1, len(session.steps))
                if self._shown != key:
                    self.show_screen()
                    self._shown = key
                    self.game_over_options()
                if not self._prompt_once(final=True):
                    return EXIT_OK
                continue
            seat = session.to_move
            if session.is_agent_turn():
                self._computer_move()
                continue
            if self._apply_preset(seat):
                continue
            key = (seat, len(session.steps))
            if self._shown != key:
                if self.hot_seat and self._last_viewer != seat and not self._handover(seat):
                    return EXIT_OK
                self._last_viewer = seat
                if self._other_side_played:
                    self._other_side_played = False
                    if isinstance(self.read_line, LineReader) and self.read_line.discard_typeahead():
                        self.say("typeahead_dropped", style="yellow", name=self.names[1 - seat])
                self.show_screen()
                self._shown = key
            if not self._prompt_once(final=False):
                return EXIT_OK

    def _handover(self, seat: int) -> bool:
        """Hot-seat: hide the screen until the next player presses Enter, then show what happened
        since their last decision.  ``False`` if input ended."""
        if self._last_viewer is not None:
            if self.clear_screen:
                self._clear()
                self.say("screen_hidden", style="dim")
            self.say("pass_device", style="bold yellow", name=self.names[seat])
            self.say("handover", style="yellow", name=self.names[seat])
            if self.read_line(t(self.lang, "handover_prompt")) is None:
                self.console.print()
                self.say("bye")
                self.autosave_note()
                return False
            if self.clear_screen:
                self._clear()
            unseen, self._unseen = self._unseen, []
            ctx = self.ctx(seat)
            for event in unseen:
                if event.kind is not EventKind.PHASE_CHANGED:
                    self.console.print(render_event(event, ctx), highlight=False)
        self._unseen = []
        return True

    def hand_over_first(self) -> None:
        """Hot-seat: ask for the handover before the next screen (after a load: whoever is at the
        keyboard may not be the player to move)."""
        self._last_viewer = -1 if self.hot_seat else None

    def _clear(self) -> None:
        """Clear the screen and the terminal's scrollback (xterm ``ESC [3J``): the last hand is gone."""
        self.console.clear()
        self.console.file.write("\x1b[3J")
        self.console.file.flush()

    def game_over_options(self) -> None:
        """What can still be done once the game is over (only what works there)."""
        file_word = t(self.lang, "file_word")
        words = [f"save {file_word}", f"load {file_word}", "board"]
        options = ", ".join(words) + f" {t(self.lang, 'or')} quit"
        self.say("game_over_options", style="yellow", options=options)

    def _apply_preset(self, seat: int) -> bool:
        """``--deck N``: choose the preconstructed deck for you without asking (once)."""
        if self.preset_deck is None or seat != self.preset_seat or self.game.phase != "setup":
            return False
        if setup_summary(self.game)["decision"] != "deck":
            return False
        n, self.preset_deck = self.preset_deck, None
        try:
            step = self.session.act(seat, f"deck {n}")
        except ClashError as exc:
            self.say("illegal", style="bold red", reason=str(exc))
            return False
        self.show_events(step.events)
        return True

    def _computer_move(self) -> None:
        seat = self.session.to_move
        with self.console.status(t(self.lang, "thinking", name=self.names[seat]), spinner="dots"):
            steps = self.session.advance_agents(max_steps=1)
        for step in steps:
            text = step.action
            if text.startswith("build"):
                text = "build …"  # R2.5: a custom deck stays hidden until both are built
            self.console.print(
                t(self.lang, "plays", name=self.names[step.seat], action=text), style="dim", highlight=False
            )
            self.show_events(step.events)
        self._other_side_played = True

    def _prompt_once(self, *, final: bool) -> bool:
        """Read and handle one line; ``False`` when the session should end."""
        seat = self.session.to_move
        prompt = t(self.lang, "prompt", name=self.names[seat]) if seat in (0, 1) else "clash> "
        if isinstance(self.read_line, LineReader):
            self.read_line.completions = self.completion_texts
            self.read_line.words = self.typed_words
        line = self.read_line(prompt)
        if line is None:  # end of input (Ctrl-D)
            self.console.print()
            self.say("bye")
            self.autosave_note()
            return False
        text = line.strip()
        if not text:
            return True
        word, _, rest = text.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in ("quit", "exit", "q"):
            self.say("bye")
            self.autosave_note()
            return False
        if word in ("help", "?", "h"):
            self.console.print(render_help(self.lang), highlight=False)
            return True
        if word == "save":
            self.save(rest)
            return True
        if word == "load":
            self.load(rest)
            return True
        if word == "board":
            self._shown = None
            if final:
                self.show_screen()
                self._shown = (-1, len(self.session.steps))
            return True
        if final:
            self.game_over_options()
            return True
        if word == "undo":
            self.undo()
            return True
        if word == "hint":
            self.hint()
            return True
        self.choose(text)
        return True

    # ------------------------------------------------------------------ commands

    def choose(self, text: str) -> None:
        """A number from the list, or an action in text notation."""
        seat = self.session.to_move
        if text.isdigit():
            numbered = dict(numbered_choices(self.game, self.action_texts()))
            n = int(text)
            if n not in numbered:
                valid = ", ".join(str(k) for k in sorted(numbered))
                if len(numbered) > 3 and sorted(numbered) == list(range(1, len(numbered) + 1)):
                    valid = f"1–{len(numbered)}"
                self.say("bad_number", style="bold red", n=n, valid=valid or "—")
                return
            text = numbered[n]
        try:
            step = self.session.act(seat, text)
        except ActionSyntaxError as exc:
            self.say("unknown_input", style="bold red", text=text)
            self.console.print(f"  {exc}", style="dim", highlight=False)
            return
        except (IllegalActionError, SessionError) as exc:
            self.say("illegal", style="bold red", reason=str(exc))
            return
        self.show_events(step.events)

    def undo(self) -> None:
        """Take back your last decision of this turn (and the computer's replies after it).

        The session decides how far: never the setup, never an earlier turn, never past a reveal of
        hidden cards (that would let you see them and play differently)."""
        seat = self.session.to_move
        try:
            taken = self.session.undo(seat)
        except UndoError as exc:
            reason = str(exc)
            if "revealed" in reason:
                self.say("undo_in_setup" if self.game.phase == "setup" else "undo_revealed", style="yellow")
            elif "this turn" in reason:
                self.say("nothing_to_undo", style="yellow")
            else:
                self.say("illegal", style="yellow", reason=reason)
            return
        self._shown = None
        self.say("undone", style="bold yellow", action=", ".join(reversed(taken)))

    def save(self, argument: str) -> None:
        """``save FILE [--force]``: write the game record; an existing file is replaced only with --force."""
        words = argument.split()
        force = "--force" in words
        rest = [w for w in words if w != "--force"]
        if not rest:
            self.say("need_file", style="bold red", cmd="save")
            return
        raw = " ".join(rest)
        path = Path(raw).expanduser()
        if path.exists() and not force:
            self.say("save_exists", style="bold yellow", path=raw)
            return
        try:
            record = self.session.record()
            record.save(path)
        except (OSError, ClashError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.say("file_error", style="bold red", cmd="save", reason=f"{raw}: {reason}")
            return
        self.say("saved", style="bold green", path=raw, n=len(record.actions))

    def load(self, raw: str) -> bool:
        """Replace the game by the one in the record at ``raw``; ``False`` (and a message) on failure."""
        if not raw:
            self.say("need_file", style="bold red", cmd="load")
            return False
        try:
            record = GameRecord.load(Path(raw).expanduser())
            session = session_from_record(record, store=self.store)
        except ClashError as exc:
            self.say("file_error", style="bold red", cmd="load", reason=str(exc))
            return False
        self.session = session
        self.names = seat_names(session, self.lang)
        self.preset_deck = None
        self.hand_over_first()
        self._shown = None
        self._unseen = []
        if self.store is not None:
            self.store.save(session)
        self.say("loaded", style="bold green", path=raw, n=len(record.actions))
        return True

    def hint(self) -> None:
        seat = self.session.to_move
        if seat not in self.humans:
            self.say("hint_none", style="yellow")
            return
        try:
            self.say("hint_thinking", style="dim", s=self.hint_seconds)
            hint = self.session.hint(seat, seconds=self.hint_seconds)
        except KeyboardInterrupt:  # Ctrl-C cancels the hint, not the game
            self.console.print()
            self.say("hint_cancelled", style="yellow")
            return
        except ImportError:
            self.say("hint_unavailable", style="yellow")
            return
        except ClashError as exc:
            self.say("file_error", style="bold red", cmd="hint", reason=str(exc))
            return
        numbered = {text: n for n, text in numbered_choices(self.game, self.action_texts())}
        label = f"{numbered[hint.action]}. {hint.action}" if hint.action in numbered else hint.action
        self.say(
            "hint_result",
            style="bold cyan",
            action=label,
            score=score_words(hint.label, hint.score, self.lang),
        )


def score_words(label: str, score: float, lang: str) -> str:
    """A hint's score named for what it is: a rollout score is never shown as a win chance."""
    if label == "rollout score":
        return t(lang, "rollout_score", score=score)
    if label == "win chance":
        return t(lang, "win_chance", score=score)
    if label == "estimated win chance":
        return t(lang, "estimated_win_chance", score=score)
    return f"{label} {score:.2f}"


def session_from_record(
    record: GameRecord, *, store: FileStore | None = None, session_id: str | None = None
) -> GameSession:
    """A session continuing ``record``; hot-seat games may undo as before.  An agent the record names
    but this installation does not know is an error (never silently a human seat)."""
    hot_seat = record.mode == "duel" and list(record.players) == [HUMAN, HUMAN]
    try:
        return GameSession.from_record(
            record, store=store, session_id=session_id, allow_undo_between_people=hot_seat
        )
    except UnknownAgentError as exc:
        raise ClashError(str(exc)) from None


def screen_height(console: Console) -> int | None:
    """The terminal's lines, or ``None`` when output is not a terminal (and ``LINES`` is unset)."""
    if console.is_terminal or os.environ.get("LINES"):
        return console.height
    return None


__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_LOAD_FAILED",
    "EXIT_OK",
    "SafeStore",
    "TerminalGame",
    "score_words",
    "screen_height",
    "seat_names",
    "session_from_record",
]
