"""``clash play``: a game in the terminal, solo against the automaton or a duel.

The loop reads one line at a time from standard input, so it works the same at a keyboard, under a
pseudo-terminal (the end-to-end tests) and with piped input; end of input quits.  Drawing is done
by :mod:`clashofdecks.ui.render` (pure functions), words by :mod:`clashofdecks.ui.i18n`; this module
only decides *when* to draw and what a line of input means.

Seats and participants: in a duel the coin toss (R2.3a) decides who sits in seat 0 (the starter),
so the command line's "you" and "the opponent" are participants 0 and 1, mapped to seats with
:func:`clashofdecks.formats.seat_of`.  In solo the player is seat 0 and the automaton seat 1.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click
from rich.console import Console

from ..agents.base import Agent
from ..errors import ActionSyntaxError, ClashError, IllegalActionError
from ..events import Event, EventKind
from ..formats import new_game, seat_of, setup_summary
from ..options import THREAT_ABILITIES, Ruleset, Threat
from ..record import GameRecord, initial_game, record_game
from ..rules import Game
from ..ui.i18n import LANGUAGES, t
from ..ui.render import Context, render_actions, render_event, render_game, render_help

AGENT_CHOICES = ("human", "random", "greedy", "mcts", "ismcts", "beginner", "casual", "strong", "strongest")
#: Events worth a short pause when a human watches (the "step by step" of combat).
_PACED = frozenset({EventKind.ATTACKED, EventKind.CAST, EventKind.REVEALED, EventKind.TURN_STARTED})


def make_agent(name: str, seed: int) -> Agent:
    """An agent from the registry (``clashofdecks.agents.registry``), or a built-in fallback."""
    try:
        registry: Any = importlib.import_module("clashofdecks.agents.registry")
    except ImportError:
        registry = None
    if registry is not None:
        agent: Agent = registry.make_agent(name, seed)
        return agent
    if name == "random":  # fallback while the registry is missing
        from ..agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "greedy":
        mod: Any = importlib.import_module("clashofdecks.agents.greedy")
        fallback: Agent = mod.GreedyAgent(seed)
        return fallback
    raise ClashError(f"unknown agent {name!r} (available: random, greedy)")


def hint_function() -> Callable[[Game, float], tuple[int, float]] | None:
    """The search agents' ``hint(game, seconds)`` if installed, else ``None``."""
    try:
        mod: Any = importlib.import_module("clashofdecks.agents.mcts")
    except ImportError:
        return None
    fn = getattr(mod, "hint", None)
    return fn if callable(fn) else None


@dataclass
class Decision:
    """Who made one decision of the game's history (kept in step with ``game.history``)."""

    seat: int
    human: bool
    turn: int
    setup: bool


@dataclass
class Session:
    """One game at the terminal: the game, who plays each seat, and how to talk to the human(s)."""

    game: Game
    console: Console
    lang: str = "en"
    humans: frozenset[int] = frozenset({0})
    agents: dict[int, Agent] = field(default_factory=dict)
    names: tuple[str, str] = ("Player", "Automaton")
    players: tuple[str, str] = ("human", "automaton")  # the words a record stores per seat
    decisions: list[Decision] = field(default_factory=list)
    read_line: Callable[[str], str | None] = lambda prompt: None
    pace: float = 0.0
    hint_seconds: float = 2.0
    preset_deck: int | None = None
    preset_seat: int | None = None
    _last_viewer: int | None = None
    _shown: tuple[int, int] | None = None  # (seat, history length) of the last screen drawn

    # ------------------------------------------------------------------ helpers

    @property
    def hot_seat(self) -> bool:
        return len(self.humans) == 2

    def ctx(self, viewer: int | None = None) -> Context:
        if viewer is None:
            viewer = self._viewer()
        return Context(lang=self.lang, names=self.names, viewer=viewer, width=self.console.width)

    def _viewer(self) -> int:
        cp = self.game.current_player
        if cp in self.humans:
            return cp
        if self._last_viewer is not None:
            return self._last_viewer
        return min(self.humans) if self.humans else 0

    def say(self, key: str, style: str = "", **values: object) -> None:
        self.console.print(t(self.lang, key, **values), style=style, highlight=False, soft_wrap=True)

    def apply(self, action: int) -> tuple[Event, ...]:
        """Apply ``action`` for the current player, remembering who decided (for ``undo``)."""
        game = self.game
        seat = game.current_player
        decision = Decision(seat, seat in self.humans, game.turn, game.phase == "setup")
        events = game.apply(action)
        self.decisions.append(decision)
        return events

    def show_events(self, events: Sequence[Event]) -> None:
        ctx = self.ctx()
        for event in events:
            if event.kind is EventKind.PHASE_CHANGED and not self.hot_seat and event.player in self.humans:
                continue  # the status line says it
            self.console.print(render_event(event, ctx), highlight=False)
            if self.pace > 0 and event.kind in _PACED and event.player not in self.humans:
                time.sleep(self.pace)

    def show_screen(self) -> None:
        self.console.print(render_game(self.game, self.ctx()), highlight=False)

    def action_texts(self) -> list[str]:
        game = self.game
        if game.phase == "setup" and setup_summary(game)["decision"] == "build":
            return []  # R2.5: C(32,10) decks, typed rather than listed
        return game.legal_action_texts()

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the game is over and the human quits (or input ends); the exit status."""
        while True:
            game = self.game
            if game.is_over():
                if self._shown != (-1, len(game.history)):
                    self.show_screen()
                    self.say("game_over_hint", style="dim")
                    self._shown = (-1, len(game.history))
                if not self._prompt_once(final=True):
                    return 0
                continue
            seat = game.current_player
            if seat in self.agents:
                self._computer_move(seat)
                continue
            if self._apply_preset(seat):
                continue
            key = (seat, len(game.history))
            if self._shown != key:
                if self.hot_seat and self._last_viewer is not None and self._last_viewer != seat:
                    self.say("pass_device", style="bold yellow", name=self.names[seat])
                self._last_viewer = seat
                self.show_screen()
                texts = self.action_texts()
                if texts:
                    self.console.print(render_actions(game, texts, self.ctx()), highlight=False)
                self.say("input_hint", style="dim")
                self._shown = key
            if not self._prompt_once(final=False):
                return 0

    def _apply_preset(self, seat: int) -> bool:
        """``--deck N``: choose the preconstructed deck for you without asking (once)."""
        if self.preset_deck is None or seat != self.preset_seat or self.game.phase != "setup":
            return False
        if setup_summary(self.game)["decision"] != "deck":
            return False
        n, self.preset_deck = self.preset_deck, None
        try:
            self.show_events(self.apply(self.game.parse_action(f"deck {n}")))
        except ClashError as exc:
            self.say("illegal", style="bold red", reason=str(exc))
            return False
        return True

    def _computer_move(self, seat: int) -> None:
        game = self.game
        agent = self.agents[seat]
        with self.console.status(t(self.lang, "thinking", name=self.names[seat]), spinner="dots"):
            action = agent.act(game)
        text = game.action_text(action)
        if text.startswith("build"):
            text = "build …"  # R2.5: a custom deck stays hidden until both are built
        self.console.print(
            t(self.lang, "plays", name=self.names[seat], action=text), style="dim", highlight=False
        )
        self.show_events(self.apply(action))

    def _prompt_once(self, *, final: bool) -> bool:
        """Read and handle one line; ``False`` when the session should end."""
        seat = self.game.current_player
        name = self.names[seat] if seat in (0, 1) else "clash"
        line = self.read_line(t(self.lang, "prompt", name=name))
        if line is None:
            self.console.print()
            return False
        text = line.strip()
        if not text:
            return True
        word, _, rest = text.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in ("quit", "exit", "q"):
            self.say("bye")
            return False
        if word in ("help", "?", "h"):
            self.console.print(render_help(self.lang), highlight=False)
            return True
        if word == "undo":
            self.undo()
            return True
        if word == "save":
            self.save(rest)
            return True
        if word == "load":
            self.load(rest)
            return True
        if word == "board":
            self.show_screen()
            return True
        if word == "hint":
            self.hint()
            return True
        if final:
            self.say("game_over_hint", style="yellow")
            return True
        self.choose(text)
        return True

    # ------------------------------------------------------------------ commands

    def choose(self, text: str) -> None:
        """A number from the list, or an action in text notation."""
        game = self.game
        if text.isdigit():
            texts = self.action_texts()
            n = int(text)
            if not 1 <= n <= len(texts):
                self.say("bad_number", style="bold red", n=n, max=len(texts))
                return
            action = game.parse_action(texts[n - 1])
        else:
            try:
                action = game.parse_action(text)
            except ActionSyntaxError as exc:
                self.say("unknown_input", style="bold red", text=text)
                self.console.print(f"  {exc}", style="dim", highlight=False)
                return
        try:
            events = self.apply(action)
        except IllegalActionError as exc:
            self.say("illegal", style="bold red", reason=str(exc))
            return
        self.show_events(events)

    def undo(self) -> None:
        """Take back the last human decision of this turn, and every computer decision after it.

        Limited to the current turn: undoing further would let you watch the opponent's (or the
        automaton's) hidden cards and then play differently.  The setup is never undone (each pick
        reveals new cards).
        """
        game = self.game
        idx = None
        for i in range(len(self.decisions) - 1, -1, -1):
            d = self.decisions[i]
            if d.human:
                idx = i
                break
        if idx is None:
            self.say("nothing_to_undo", style="yellow")
            return
        d = self.decisions[idx]
        if d.setup:
            self.say("undo_in_setup", style="yellow")
            return
        if d.turn != game.turn or game.phase == "setup":
            self.say("nothing_to_undo", style="yellow")
            return
        taken: list[str] = []
        while len(self.decisions) > idx:
            action = game.undo()
            self.decisions.pop()
            taken.append(game.action_text(action))
        self.say("undone", style="bold yellow", action=", ".join(reversed(taken)))

    def save(self, path: str) -> None:
        if not path:
            self.say("need_file", style="bold red", cmd="save")
            return
        try:
            record = record_game(self.game, players=list(self.players))
            record.save(path)
        except (OSError, ClashError) as exc:
            self.say("file_error", style="bold red", cmd="save", reason=str(exc))
            return
        self.say("saved", style="bold green", path=path, n=len(record.actions))

    def load(self, path: str) -> bool:
        """Replace the game by the one in the record at ``path``; ``False`` (and a message) on failure."""
        if not path:
            self.say("need_file", style="bold red", cmd="load")
            return False
        try:
            record = GameRecord.load(path)
            loaded = load_session_game(record)
        except ClashError as exc:
            self.say("file_error", style="bold red", cmd="load", reason=str(exc))
            return False
        game, decisions, humans, agents, names, players = loaded
        self.game = game
        self.decisions = decisions
        self.humans = humans
        self.agents = agents
        self.names = localised_names(names, self.lang)
        self.players = players
        self.preset_deck = None
        self._last_viewer = None
        self._shown = None
        self.say("loaded", style="bold green", path=path, n=len(record.actions))
        return True

    def hint(self) -> None:
        game = self.game
        if game.current_player not in self.humans:
            self.say("hint_none", style="yellow")
            return
        fn = hint_function()
        if fn is None:
            self.say("hint_unavailable", style="yellow")
            return
        self.say("hint_thinking", style="dim", s=self.hint_seconds)
        try:
            action, chance = fn(game, self.hint_seconds)
        except Exception as exc:  # a hint must never end the game
            self.say("file_error", style="bold red", cmd="hint", reason=str(exc))
            return
        text = game.action_text(action)
        texts = self.action_texts()
        label = f"{texts.index(text) + 1}. {text}" if text in texts else text
        self.say("hint_result", style="bold cyan", action=label, p=chance)


# ---------------------------------------------------------------------------- loading records


def localised_names(names: tuple[str, str], lang: str) -> tuple[str, str]:
    """Display names: placeholders ``@player``, ``@player N``, ``@automaton`` become words of ``lang``."""
    out = []
    for n in names:
        if n == "@player":
            out.append(t(lang, "player"))
        elif n.startswith("@player "):
            out.append(f"{t(lang, 'player')} {n.split()[1]}")
        elif n == "@automaton":
            out.append(t(lang, "automaton").capitalize())
        else:
            out.append(n)
    return out[0], out[1]


def load_session_game(
    record: GameRecord,
) -> tuple[Game, list[Decision], frozenset[int], dict[int, Agent], tuple[str, str], tuple[str, str]]:
    """Replay ``record`` and work out who plays each seat (``human`` or an agent name)."""
    game = initial_game(record, record_events=False)
    decisions: list[Decision] = []
    players = tuple(record.players)
    solo = record.mode == "solo"
    humans = frozenset(
        s
        for s in (0, 1)
        if not (solo and s == 1) and (players[s] == "human" or players[s] not in AGENT_CHOICES)
    )
    for i, text in enumerate(record.actions):
        decision = Decision(
            game.current_player, game.current_player in humans, game.turn, game.phase == "setup"
        )
        try:
            game.apply_text(text)
        except ClashError as exc:
            raise ClashError(f"action {i + 1} {text!r} does not replay: {exc}") from None
        decisions.append(decision)
    game.record_events = True
    agents: dict[int, Agent] = {}
    for s in (0, 1):
        if s not in humans and not (solo and s == 1):
            agents[s] = make_agent(players[s], (record.seed or 0) + s)
    if solo:
        names: tuple[str, str] = ("@player", "@automaton")
    elif len(humans) == 2:
        names = ("@player 1", "@player 2")
    else:
        names = tuple(  # type: ignore[assignment]
            "@player" if s in humans else players[s].capitalize() for s in (0, 1)
        )
    return game, decisions, humans, agents, names, (players[0], players[1])


# ---------------------------------------------------------------------------- the command


def _threat_from_options(
    level: int | None,
    base_mana: int | None,
    extra_mana: int | None,
    automaton_starts: bool,
    resilience: str | None,
    defence: str | None,
    abilities: tuple[str, ...],
) -> Threat:
    individual = (
        any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
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


def stdin_reader(console: Console) -> Callable[[str], str | None]:
    """Read one line after printing ``prompt``; ``None`` at end of input or on Ctrl-C/Ctrl-D."""
    interactive = sys.stdin.isatty()

    def read(prompt: str) -> str | None:
        try:
            if interactive:
                return console.input(prompt)
            console.print(prompt, end="", highlight=False, markup=False)
            console.file.flush()
            line = sys.stdin.readline()
            if not line:
                return None
            return line.rstrip("\n")
        except (EOFError, KeyboardInterrupt):
            return None

    return read


@click.command()
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
@click.option("--base-mana", type=click.IntRange(6, 10), default=None, help="solo R8.2: automaton base mana.")
@click.option(
    "--extra-mana",
    type=click.IntRange(1, 2),
    default=None,
    help="solo R8.2: automaton mana per creature of yours.",
)
@click.option("--automaton-starts", is_flag=True, help="solo R8.2: the automaton plays first.")
@click.option(
    "--resilience",
    type=click.Choice(["bastion", "fort"]),
    default=None,
    help="solo R8.2: fort = the automaton has no Bastion.",
)
@click.option(
    "--defence",
    type=click.Choice(["full", "minus_one"]),
    default=None,
    help="solo R8.2: minus_one = your attacks on the automaton deal 1 less.",
)
@click.option(
    "--ability",
    "abilities",
    type=click.Choice(list(THREAT_ABILITIES)),
    multiple=True,
    help="solo R8.2: an ability every automaton card gains (repeatable).",
)
@click.option(
    "--vs",
    type=click.Choice(AGENT_CHOICES),
    default=None,
    help="duel opponent: human (hot-seat), random, greedy, mcts, ismcts, or a named strength: beginner, "
    "casual, strong, strongest (docs/agents.md). [default: greedy]",
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
    help="thinking time of the 'hint' command.",
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
    help="continue a saved game record instead of starting a new game.",
)
def play(
    mode: str | None,
    fmt: str,
    deck: int | None,
    level: int | None,
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
    pace: float | None,
    hint_seconds: float,
    max_turns: int | None,
    load_path: str | None,
) -> None:
    """Play Clash of Decks in the terminal (default: a solo quick game, draft, against the automaton).

    Type the number of an action or its notation (e.g. `play BRUTE top`, `cast BOOM 1.top.0`,
    `end`); `help` explains the rules and abilities; `hint`, `undo`, `save FILE`, `load FILE`,
    `quit`.
    """
    if mode is None:
        mode = "duel" if vs is not None else "solo"
    solo_options = (
        level is not None
        or any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
    if mode == "solo" and vs is not None:
        raise click.UsageError("--vs chooses the duel opponent; solo is always against the automaton")
    if mode == "duel" and solo_options:
        raise click.UsageError("--level and the threat options (R8.2) are for solo games")
    if deck is not None and fmt != "precon":
        raise click.UsageError("--deck N chooses a preconstructed deck: use it with --format precon")
    no_color = no_color or bool(os.environ.get("NO_COLOR"))
    console = Console(no_color=no_color, highlight=False, emoji=False)
    interactive = sys.stdin.isatty() and console.is_terminal
    if pace is None:
        pace = 0.3 if interactive else 0.0
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)

    if load_path is not None:
        session = Session(game=Game.random_duel(0), console=console, lang=lang)
        session.read_line = stdin_reader(console)
        if not session.load(load_path):
            sys.exit(1)
    else:
        try:
            threat = (
                _threat_from_options(
                    level, base_mana, extra_mana, automaton_starts, resilience, defence, abilities
                )
                if mode == "solo"
                else None
            )
            ruleset = Ruleset(max_turns=max_turns)
            game = new_game(mode=mode, format=fmt, seed=seed, ruleset=ruleset, threat=threat)
        except ClashError as exc:
            raise click.UsageError(str(exc)) from None
        opponent = vs or "greedy"
        me = seat_of(game, 0)
        if mode == "solo":
            humans = frozenset({0})
            agents: dict[int, Agent] = {}
            names = ("@player", "@automaton")
            players = ("human", "automaton")
        elif opponent == "human":
            humans = frozenset({0, 1})
            agents = {}
            names = ("@player 1", "@player 2") if me == 0 else ("@player 2", "@player 1")
            players = ("human", "human")
        else:
            humans = frozenset({me})
            try:
                agents = {1 - me: make_agent(opponent, seed)}
            except ClashError as exc:
                raise click.UsageError(str(exc)) from None
            names = ("@player", opponent.capitalize()) if me == 0 else (opponent.capitalize(), "@player")
            players = ("human", opponent) if me == 0 else (opponent, "human")
        session = Session(
            game=game,
            console=console,
            lang=lang,
            humans=humans,
            agents=agents,
            names=localised_names(names, lang),
            players=players,
            preset_deck=deck,
            preset_seat=me,
        )
        session.read_line = stdin_reader(console)
        desc = f"{mode} · {fmt} · seed {seed}"
        if threat is not None:
            desc += f" · threat {threat.threat_points()}"
        if mode == "duel":
            desc += f" · {session.names[0]} starts (R2.6)"
        console.print(f"Clash of Decks · {desc}", style="bold", highlight=False)
    session.pace = pace
    session.hint_seconds = hint_seconds
    try:
        status = session.run()
    except KeyboardInterrupt:  # Ctrl-C while the other side plays: leave quietly
        console.print()
        session.say("bye")
        status = 130
    sys.exit(status)
