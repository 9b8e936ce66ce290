"""``clash play``: a game in the terminal, solo against the automaton or a duel.

The game itself (seats, turn taking, how far undo reaches, hints, the record and its autosave) is a
:class:`clashofdecks.session.GameSession`; this module only draws it (with
:mod:`clashofdecks.ui.render`, words from :mod:`clashofdecks.ui.i18n`) and reads what the player
types.  Every action is saved by the session to a :class:`~clashofdecks.session.FileStore` (the
data folder, see :func:`~clashofdecks.session.default_data_dir`), so nothing is lost when the
terminal closes or Ctrl-C is pressed: ``clash play --resume`` continues the latest unfinished game.

Input is read one line at a time, so the game works the same at a keyboard (with line editing,
history and tab completion where the ``readline`` module exists), under a pseudo-terminal (the
end-to-end tests) and with piped input; end of input quits.

Seats and participants: in a duel the coin toss (R2.3a) decides who sits in seat 0 (the starter);
the command line's "you" and "the opponent" (or Player 1 and Player 2 in hot-seat) are
participants 0 and 1, and their names follow them to their seats, also after ``load``/``--resume``.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click
from rich.console import Console

from ..agents.registry import UnknownAgentError, make_agent
from ..cards import CARDS
from ..errors import ActionSyntaxError, ClashError, IllegalActionError
from ..events import Event, EventKind
from ..formats import setup_summary
from ..options import THREAT_ABILITIES, Ruleset, Threat, ThreatError
from ..record import GameRecord
from ..rules import Game
from ..session import HUMAN, FileStore, GameSession, Seat, SessionError, UndoError
from ..threat_text import parse_threat
from ..ui.i18n import LANGUAGES, has_key, t
from ..ui.render import (
    Context,
    numbered_choices,
    render_event,
    render_help,
    render_screen,
)
from ..ui.terminal import LineReader, localised_names, stdin_reader


def _opponent_spec(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--vs``: ``human`` or any agent spec (a registered name or, e.g.,
    ``ismcts:1000,setup=learned``), checked here so that a bad one is a usage error."""
    if value is None or value == "human":
        return value
    try:
        make_agent(value)
    except ClashError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


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
        return Context(lang=self.lang, names=self.names, viewer=viewer, width=self.console.width)

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


# ---------------------------------------------------------------------------- the command


def _threat_from_options(
    level: int | None,
    base_mana: int | None,
    extra_mana: int | None,
    automaton_starts: bool,
    resilience: str | None,
    defence: str | None,
    abilities: tuple[str, ...],
    threat_text: str | None = None,
) -> Threat:
    """The solo threat: ``--threat`` (the syntax of every command, :func:`parse_threat`), or its
    aliases, the separate flags; ``--level`` alone, or as a check that they cost exactly that."""
    individual = (
        any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
    if threat_text is not None:
        if individual:
            raise ThreatError("give --threat or the separate threat flags (its aliases), not both")
        threat = parse_threat(threat_text)
        if level is not None:
            threat.check_level(level)
        return threat
    if not individual:
        return Threat.level(level or 0)
    threat = Threat(
        extra_mana_per_creature=extra_mana if extra_mana is not None else 1,
        base_mana=base_mana if base_mana is not None else 6,
        starts="automaton" if automaton_starts else "player",
        resilience=resilience or "bastion",
        defence=defence or "full",
        abilities=abilities,
    )
    if level is not None:
        threat.check_level(level)
    return threat


def screen_height(console: Console) -> int | None:
    """The terminal's lines, or ``None`` when output is not a terminal (and ``LINES`` is unset)."""
    if console.is_terminal or os.environ.get("LINES"):
        return console.height
    return None


def _title(session: GameSession, names: tuple[str, str], lang: str) -> str:
    game = session.game
    mode, fmt = game.origin.mode, game.origin.format
    format_word = t(lang, f"format_{fmt}") if has_key(f"format_{fmt}") else fmt
    text = t(lang, "title", mode=t(lang, f"mode_{mode}"), format=format_word, seed=session.seed)
    threat = game.threat if game.is_solo else None
    if threat is not None:
        text += " · " + t(lang, "title_threat", n=threat.threat_points())
    if mode == "duel":
        text += " · " + t(lang, "title_starts", name=names[0])
    return text


@click.command(
    epilog="Exit status: 0 after quit or at the end of input, 1 when a saved game cannot be loaded or "
    "resumed, 2 for bad options, 130 after Ctrl-C (the game stays saved: clash play --resume)."
)
@click.option(
    "--mode",
    type=click.Choice(["solo", "duel"]),
    default=None,
    help="solo (against the automaton, R7) or duel; default solo, or duel when --vs is given.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["draft", "precon", "custom"]),
    default="draft",
    show_default=True,
    help="R2.2: how the decks are made (custom is duel only).",
)
@click.option(
    "--deck",
    type=click.IntRange(1, 4),
    default=None,
    help="precon: play preconstructed deck N (R2.3) without being asked.",
)
@click.option(
    "--level",
    type=click.IntRange(0, 5),
    default=None,
    help="solo threat level (R8.3); with individual options, checks they cost exactly this.",
)
@click.option(
    "--threat",
    "threat_text",
    default=None,
    help="solo R8.2: any threat allocation, as in clash arena and clash simulate: JSON or key=value "
    "pairs, e.g. 'base_mana=8,starts=automaton,abilities=rage+splash'.",
)
@click.option("--base-mana", type=click.IntRange(6, 10), default=None, help="alias of --threat base_mana=N.")
@click.option(
    "--extra-mana",
    type=click.IntRange(1, 2),
    default=None,
    help="alias of --threat extra_mana_per_creature=N.",
)
@click.option("--automaton-starts", is_flag=True, help="alias of --threat starts=automaton.")
@click.option(
    "--resilience",
    type=click.Choice(["bastion", "fort"]),
    default=None,
    help="alias of --threat resilience=bastion|fort.",
)
@click.option(
    "--defence",
    type=click.Choice(["full", "minus_one"]),
    default=None,
    help="alias of --threat defence=full|minus_one.",
)
@click.option(
    "--ability",
    "abilities",
    type=click.Choice(list(THREAT_ABILITIES)),
    multiple=True,
    help="alias of --threat abilities=A+B (repeatable).",
)
@click.option(
    "--vs",
    default=None,
    callback=_opponent_spec,
    help="duel opponent: human (hot-seat), random, greedy, mcts, ismcts, a named strength: beginner, "
    "casual, strong, strongest, or an agent spec such as ismcts:1000,setup=learned (docs/agents.md). "
    "[default: greedy]",
)
@click.option("--seed", type=int, default=None, help="seed of the shuffles and coin toss (default: random).")
@click.option(
    "--lang",
    type=click.Choice(list(LANGUAGES)),
    default="en",
    show_default=True,
    help="language of the screen (card names stay as printed).",
)
@click.option("--no-color", is_flag=True, help="no colours (also when NO_COLOR is set).")
@click.option(
    "--layout",
    type=click.Choice(["auto", "full", "compact"]),
    default="auto",
    show_default=True,
    help="full: boxes and explanations; compact: fits 80×24; auto: full when it fits the terminal.",
)
@click.option(
    "--pace",
    type=click.FloatRange(0, 5),
    default=None,
    help="seconds to pause on each attack of the other side (default 0.3 at a terminal, else 0).",
)
@click.option(
    "--hint-seconds",
    type=click.FloatRange(0.1, 120),
    default=2.0,
    show_default=True,
    help="thinking time of the 'hint' command (Ctrl-C cancels a hint).",
)
@click.option(
    "--max-turns",
    type=click.IntRange(1, 10_000),
    default=None,
    help="end the game as a draw after this turn (for demonstrations).",
)
@click.option(
    "--load",
    "load_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="continue a saved game record (save FILE) instead of starting a new game.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="continue the latest unfinished game (every game is saved after each action in "
    "$CLASH_DATA_DIR/games, default ~/.local/share/clashofdecks/games).",
)
def play(
    mode: str | None,
    fmt: str,
    deck: int | None,
    level: int | None,
    threat_text: str | None,
    base_mana: int | None,
    extra_mana: int | None,
    automaton_starts: bool,
    resilience: str | None,
    defence: str | None,
    abilities: tuple[str, ...],
    vs: str | None,
    seed: int | None,
    lang: str,
    no_color: bool,
    layout: str,
    pace: float | None,
    hint_seconds: float,
    max_turns: int | None,
    load_path: str | None,
    resume: bool,
) -> None:
    """Play Clash of Decks in the terminal (default: a solo quick game, draft, against the automaton).

    Type the number of an action or its notation (e.g. `play BRUTE top`, `cast BOOM 1.top.0`,
    `end`); `help` explains the rules and abilities; `hint`, `undo`, `save FILE [--force]`,
    `load FILE`, `quit`.  Every game is saved after each action; `clash play --resume` continues it.
    """
    threat_options = (
        level,
        base_mana,
        extra_mana,
        automaton_starts,
        resilience,
        defence,
        abilities,
        threat_text,
    )
    mode = _checked_mode(mode, vs, threat_options, deck, fmt, resume, load_path)
    no_color = no_color or bool(os.environ.get("NO_COLOR"))
    console = Console(no_color=no_color, highlight=False, emoji=False)
    reader = stdin_reader(console)
    interactive = reader.interactive and console.is_terminal
    if pace is None:
        pace = 0.3 if interactive else 0.0
    store = SafeStore()

    def say(key: str, style: str = "", **values: object) -> None:
        console.print(t(lang, key, **values), style=style, highlight=False, soft_wrap=True)

    resumed = resume or load_path is not None
    if resumed:
        session, shown_path = _saved_session(store, load_path, say)
    else:
        session = _new_session(mode, fmt, seed, vs, max_turns, threat_options, store)
    names = seat_names(session, lang)
    console.print(_title(session, names, lang), style="bold", highlight=False)
    if resumed:
        say("resumed" if resume else "loaded", style="bold green", path=shown_path, n=len(session.steps))
    terminal = TerminalGame(
        session=session,
        console=console,
        read_line=reader,
        lang=lang,
        names=names,
        pace=pace,
        hint_seconds=hint_seconds,
        layout=layout,
        height=screen_height(console),
        follow_terminal=True,
        store=store,
        preset_deck=deck,
        preset_seat=None if resumed else session.participant_seat(0),
        clear_screen=interactive,
    )
    sys.exit(_run_terminal(terminal, session, store, resumed=resumed))


def _run_terminal(terminal: TerminalGame, session: GameSession, store: SafeStore, *, resumed: bool) -> int:
    """Play the game at this terminal to its end or until the player quits; the exit status."""
    if resumed:
        terminal.hand_over_first()
    else:
        terminal.show_events(session.initial_events, paced=False)
    if store.error is not None:
        terminal.autosave_note()  # say at once that this game is not kept
    return terminal.run()


#: The solo threat's options as ``clash play`` takes them (see :func:`_threat_from_options`).
ThreatOptions = tuple[
    int | None, int | None, int | None, bool, str | None, str | None, tuple[str, ...], str | None
]


def _checked_mode(
    mode: str | None,
    vs: str | None,
    threat_options: ThreatOptions,
    deck: int | None,
    fmt: str,
    resume: bool,
    load_path: str | None,
) -> str:
    """The game's mode (a duel when an opponent is named); options that do not go together are a
    usage error."""
    level, base_mana, extra_mana, automaton_starts, resilience, defence, abilities, threat_text = (
        threat_options
    )
    solo_options = (
        level is not None
        or threat_text is not None
        or any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
    if mode is None:
        mode = "duel" if vs is not None else "solo"
    if mode == "solo" and vs is not None:
        raise click.UsageError("--vs chooses the duel opponent; solo is always against the automaton")
    if mode == "duel" and solo_options:
        raise click.UsageError("--level and the threat options (R8.2) are for solo games")
    if deck is not None and fmt != "precon":
        raise click.UsageError("--deck N chooses a preconstructed deck: use it with --format precon")
    if resume and load_path is not None:
        raise click.UsageError(
            "--resume continues the latest saved game; --load FILE a given one: choose one"
        )
    return mode


def _saved_session(
    store: SafeStore, load_path: str | None, say: Callable[..., None]
) -> tuple[GameSession, str]:
    """The game of ``--load FILE`` (saved to the autosave folder at once), else the latest unfinished
    one (``--resume``), and the path to name; a game that cannot be loaded exits with status 1."""
    try:
        if load_path is None:
            latest = store.latest()
            if latest is None:
                say("resume_none", style="bold red", path=store.folder)
                sys.exit(EXIT_LOAD_FAILED)
            return session_from_record(store.load(latest), store=store, session_id=latest), str(
                store.path(latest)
            )
        session = session_from_record(GameRecord.load(Path(load_path).expanduser()), store=store)
        store.save(session)
        return session, load_path
    except ClashError as exc:
        say("file_error", style="bold red", cmd="load", reason=str(exc))
        sys.exit(EXIT_LOAD_FAILED)


def _new_session(
    mode: str,
    fmt: str,
    seed: int | None,
    vs: str | None,
    max_turns: int | None,
    threat_options: ThreatOptions,
    store: SafeStore,
) -> GameSession:
    """A new game: the player against the automaton (solo), the ``vs`` agent, or another person at
    this keyboard (``--vs human``); saved at once.  Bad options are a usage error."""
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    opponent = vs or "greedy"
    if mode == "solo":
        participants = [Seat.human()]
    elif opponent == "human":
        participants = [Seat.human(), Seat.human()]
    else:
        participants = [Seat.human(), Seat.agent_seat(opponent)]
    try:
        threat = _threat_from_options(*threat_options) if mode == "solo" else None
        session = GameSession.new(
            mode=mode,
            format=fmt,
            seed=seed,
            participants=participants,
            ruleset=Ruleset(max_turns=max_turns),
            threat=threat,
            store=store,
            allow_undo_between_people=opponent == "human",
        )
    except ClashError as exc:
        raise click.UsageError(str(exc)) from None
    store.save(session)
    return session


__all__ = [
    "LineReader",
    "SafeStore",
    "TerminalGame",
    "localised_names",
    "play",
    "score_words",
    "seat_names",
    "session_from_record",
    "stdin_reader",
]
