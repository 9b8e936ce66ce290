"""``clash analyze RECORD``: estimated win chance after each turn and the biggest mistakes (analyze.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

import click

#: Search iterations per decision by default: ``analyze.DEFAULT_ITERATIONS``, the web's setting (a test
#: checks the three agree; the number is repeated here so that ``clash --help`` imports no search).
DEFAULT_ITERATIONS: Final = 1000

#: Most search iterations per decision (the search tree grows with them).
MAX_ITERATIONS: Final = 1_000_000


@click.command()
@click.argument("record", type=click.Path(path_type=Path))
@click.option(
    "--iterations",
    default=DEFAULT_ITERATIONS,
    show_default=True,
    type=click.IntRange(1, MAX_ITERATIONS),
    help=f"Search iterations per decision (1 to {MAX_ITERATIONS:,}); the default is the web's analysis.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of the searches (same seed, same notes).")
@click.option(
    "--perfect",
    is_flag=True,
    help="Judge with MCTS on the true state (hidden cards known) instead of ISMCTS from each player's view.",
)
@click.option(
    "--top",
    default=3,
    show_default=True,
    type=click.IntRange(min=0),
    help="How many mistakes to flag (0: none).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def analyze(record: Path, iterations: int, seed: int, perfect: bool, top: int, as_json: bool) -> None:
    """Annotate the game record RECORD (a JSON file written by `clash play` or `clash simulate`)
    with P0's estimated win chance after each turn (the learned evaluation, agents/evaluation.py,
    from the mover's view; its calibration is in docs/ai.md), and flag the biggest mistakes."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from ..agents.evaluation import shipped_model, threat_level
    from ..analyze import analyze_record
    from ..errors import RecordError
    from ..options import Threat
    from ..record import GameRecord

    try:
        rec = GameRecord.load(record)
    except RecordError as exc:
        click.echo(f"clash analyze: {exc}", err=True)
        sys.exit(2)
    err = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]analysing"), BarColumn(), MofNCompleteColumn(), console=err, transient=True
    )
    try:
        with progress:
            bar = progress.add_task("actions", total=len(rec.actions))
            result = analyze_record(
                rec,
                iterations=iterations,
                seed=seed,
                perfect_information=perfect,
                progress=lambda done, _total: progress.update(bar, completed=done),
            )
    except RecordError as exc:
        click.echo(f"clash analyze: {exc}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(result.to_dict(top), indent=2))
        return
    names = rec.players
    console = Console()
    table = Table(
        title=f"{rec.mode} {rec.format} game{'' if rec.seed is None else f', seed {rec.seed}'}: "
        f"{names[0]} (P0) vs {names[1]} (P1)",
        caption=f"best moves: {'MCTS (true state)' if perfect else 'ISMCTS (each player’s view)'}, "
        f"{iterations} iterations per decision; win chances: the learned evaluation",
    )
    table.add_column("turn", justify="right")
    table.add_column("player")
    table.add_column("actions")
    # "win chance" only where the shipped evaluation's card says it is calibrated (docs/ai.md).
    level = threat_level(rec.threat or Threat()) if rec.mode == "solo" else None
    chance_words = shipped_model().chance_label("solo" if rec.mode == "solo" else "duel", level)
    table.add_column(f"P0 {chance_words}", justify="right")
    for t in result.turns:
        who = "setup" if t.turn == 0 else f"P{t.active}"
        table.add_row(str(t.turn), who, " · ".join(t.actions), f"{100 * t.p0_win_chance:.0f}%")
    console.print(table)
    mistakes = result.mistakes(top)
    if not mistakes:
        console.print(f"No move lost 5 points or more of its player's {chance_words}.")
    for rank, d in enumerate(mistakes, 1):
        console.print(
            f"{rank}. turn {d.turn}, P{d.player} ({names[d.player]}): [bold]{d.action}[/bold] "
            f"— estimated win chance {100 * (d.best or 0):.0f}% → {100 * d.after:.0f}% "
            f"(search preferred [bold]{d.best_action}[/bold])",
            soft_wrap=True,
        )
    if rec.result is not None:
        w = rec.result.get("winner")
        if w in (0, 1):
            console.print(f"Result: P{w} ({names[w]}) wins.")
        else:
            console.print("Result: draw (turn cap).")
