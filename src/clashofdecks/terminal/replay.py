"""``clash replay``'s game at the terminal: a saved game record stepped forward and back.

A replay is seen by a spectator: every card is shown (no R9 hiding).  Moving forward applies the
next recorded action and prints the events it caused; moving back replays from the start, so the
events shown always belong to the step on screen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..errors import ClashError
from ..events import Event
from ..formats import seat_of
from ..record import GameRecord, Replay
from ..rules import Game
from ..words.i18n import has_key, t
from .line_reader import localised_names, stdin_reader
from .render import Context, render_event, render_game


class Replayer:
    """A game record and a cursor: ``step`` actions applied, 0 to ``len(record.actions)``.  The
    actions are stepped by :class:`~clashofdecks.record.Replay` (the one replay stepper); going back
    replays from the start (a record of a few hundred actions: milliseconds)."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self._restart()

    def _restart(self) -> None:
        replay = Replay(self.record, record_events=True)
        self.game: Game = replay.game
        self.game.take_events()
        self.events: Sequence[Event] = ()
        self.step = 0
        self._steps = replay.steps(apply=self._apply)
        next(self._steps, None)  # the first action waits, not yet applied

    def _apply(self, action: int) -> None:
        self.events = self.game.apply(action)

    @property
    def total(self) -> int:
        return len(self.record.actions)

    def go(self, target: int) -> None:
        """Move to ``target`` (clamped), keeping the events of the last action applied."""
        target = max(0, min(self.total, target))
        if target < self.step:
            self._restart()
        while self.step < target:
            next(self._steps, None)  # applies the waiting action
            self.step += 1


def _names(record: GameRecord, game: Game, lang: str) -> tuple[str, str]:
    """Display names by seat; two humans are Player 1 and 2 by participant (as ``clash play`` names them)."""
    if record.mode == "solo":
        return localised_names(("@player", "@automaton"), lang)
    players = list(record.players)
    if players == ["human", "human"]:
        first = seat_of(game, 0)
        return localised_names(("@player 1", "@player 2") if first == 0 else ("@player 2", "@player 1"), lang)
    raw = []
    for p in players:
        raw.append("@player" if p == "human" else p.split(":", 1)[0].capitalize())
    return localised_names((raw[0], raw[1]), lang)


def _show(console: Console, rep: Replayer, ctx: Context) -> None:
    lang = ctx.lang
    for event in rep.events:
        console.print(render_event(event, ctx), highlight=False)
    console.print(render_game(rep.game, ctx), highlight=False)
    where = Text()
    if rep.step == 0:
        where.append(t(lang, "replay_start"), style="bold")
    else:
        where.append(t(lang, "replay_step", i=rep.step, n=rep.total), style="bold")
        where.append(f"  ·  {rep.record.actions[rep.step - 1]}", style="bold cyan")
    if rep.step == rep.total:
        where.append(f"  ({t(lang, 'replay_end')})", style="dim")
    console.print(where, highlight=False)


def run_replay(rep: Replayer, console: Console, ctx: Context, read_line: Callable[[str], str | None]) -> int:
    """The interactive loop; returns the exit status."""
    _show(console, rep, ctx)
    console.print(t(ctx.lang, "replay_hint"), style="dim", highlight=False)
    while True:
        line = read_line("replay> ")
        if line is None:
            return 0
        cmd = line.strip().lower()
        if cmd in ("q", "quit", "exit"):
            return 0
        if cmd in ("", "n", "next", "f"):
            target = rep.step + 1
        elif cmd in ("b", "back", "p", "prev"):
            target = rep.step - 1
        elif cmd == "first":
            target = 0
        elif cmd == "last":
            target = rep.total
        elif cmd.isdigit() and int(cmd) <= rep.total:
            target = int(cmd)
        else:
            console.print(t(ctx.lang, "replay_bad", n=rep.total), style="bold red", highlight=False)
            continue
        if target < 0 or target > rep.total:
            console.print(t(ctx.lang, "replay_end"), style="yellow", highlight=False)
            continue
        rep.go(target)
        _show(console, rep, ctx)


def replay_in_terminal(
    file: str,
    *,
    lang: str = "en",
    no_color: bool = False,
    at: int | None = None,
    show_all: bool = False,
    rule_numbers: bool = False,
) -> int:
    """Step through the game record ``file`` at this terminal (``show_all``: print every step and
    stop); the exit status: 0 at the end, 1 when the file cannot be read or does not replay, 130 after
    Ctrl-C."""
    console = Console(no_color=no_color or bool(os.environ.get("NO_COLOR")), highlight=False, emoji=False)
    try:
        record = GameRecord.load(Path(file).expanduser())
        rep = Replayer(record)
    except ClashError as exc:
        console.print(f"clash replay: {exc}", style="bold red", highlight=False)
        return 1
    names = _names(record, rep.game, lang)
    ctx = Context(lang=lang, names=names, viewer=None, width=console.width, rule_numbers=rule_numbers)
    seed = record.seed if record.seed is not None else "-"
    players = " vs ".join(ctx.names)
    mode = t(lang, f"mode_{record.mode}")
    fmt = t(lang, f"format_{record.format}") if has_key(f"format_{record.format}") else record.format
    console.print(
        t(lang, "replay_title", mode=mode, format=fmt, seed=seed, players=players),
        style="bold",
        highlight=False,
    )
    try:
        if show_all:
            _show(console, rep, ctx)
            while rep.step < rep.total:
                rep.go(rep.step + 1)
                _show(console, rep, ctx)
            return 0
        if at is not None:
            rep.go(at)
        reader = stdin_reader(console, commands=("next", "back", "first", "last", "quit"))
        return run_replay(rep, console, ctx, reader)
    except KeyboardInterrupt:
        console.print()
        return 130
    except ClashError as exc:
        console.print(f"clash replay: {exc}", style="bold red", highlight=False)
        return 1


__all__ = ["Replayer", "replay_in_terminal", "run_replay"]
