"""``clash simulate``: many games between two agents (duel) or an agent and the automaton (solo).

A thin front end over :mod:`clashofdecks.simulation.batch`: options →
:class:`~clashofdecks.simulation.batch.SimConfig`, a progress bar on stderr, and a table (or
``--json``) of win rates with Wilson 95% intervals.
"""

from __future__ import annotations

import json
import sys
import time

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import ClashError
from ..simulation.batch import DEFAULT_MAX_TURNS, SimConfig, Summary, run_games, summarize
from ..simulation.game import GameResult
from ..simulation.runner import MAX_GAMES, MAX_WORKERS, default_workers


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _table(summary: Summary, workers: int) -> Table:
    what = (
        f"duel, {summary.format}"
        if summary.mode == "duel"
        else f"solo level {summary.level if summary.level is not None else 'custom'}, {summary.format}"
    )
    table = Table(
        title=f"clash simulate: {summary.games} games ({what}), seed {summary.seed}",
        caption=(
            "win rate: wins / games, 95% CI: Wilson interval, won 1st: wins / games as starting player\n"
            f"draws (turn cap {summary.max_turns}): {summary.draws} · avg turns {summary.avg_turns:.2f} · "
            f"avg actions {summary.avg_actions:.1f} · first seat wins {_pct(summary.first_seat_win_rate)} · "
            f"{summary.elapsed_s:.1f} s on {workers} worker(s)"
        ),
    )
    table.add_column("side")
    table.add_column("agent")
    table.add_column("wins", justify="right")
    table.add_column("losses", justify="right")
    table.add_column("draws", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("won 1st", justify="right")
    for a in summary.agents:
        table.add_row(
            a.label,
            a.name,
            str(a.wins),
            str(a.losses),
            str(a.draws),
            _pct(a.win_rate),
            f"{_pct(a.ci_low)}–{_pct(a.ci_high)}",
            f"{a.wins_first}/{a.games_first}",
        )
    return table


@click.command()
@click.option(
    "--mode", type=click.Choice(["duel", "solo"]), default="duel", show_default=True, help="Duel or solo."
)
@click.option("--agents", nargs=2, metavar="A B", help="Duel: the two agents (e.g. greedy random).")
@click.option("--agent", metavar="A", help="Solo: the agent that plays against the automaton.")
@click.option(
    "--level",
    type=click.IntRange(0, 5),
    default=0,
    show_default=True,
    help="Solo difficulty (R8.3): 0 quick game … 5 mythic.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["draft", "precon", "custom", "random"]),
    default="draft",
    show_default=True,
    help="Format (R2); 'random' is the benchmark deal (duel only).",
)
@click.option(
    "--games",
    type=click.IntRange(1, MAX_GAMES),
    default=100,
    show_default=True,
    help=f"Number of games (at most {MAX_GAMES:,}: every result is kept in memory).",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Master seed (results depend only on it)."
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help=f"Worker processes (1 to {MAX_WORKERS}) [default: all cores]; results do not depend on it.",
)
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_TURNS,
    show_default=True,
    help="Turn cap: a game reaching it is a draw (the rules have none).",
)
@click.option(
    "--records", "records_dir", type=click.Path(file_okay=False), help="Write each game's record here."
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (no progress bar).")
@click.option("--games-json", is_flag=True, help="With --json, include every game's result.")
def simulate(
    mode: str,
    agents: tuple[str, str] | None,
    agent: str | None,
    level: int,
    fmt: str,
    games: int,
    seed: int,
    workers: int | None,
    max_turns: int,
    records_dir: str | None,
    as_json: bool,
    games_json: bool,
) -> None:
    """Run many games and print win rates (Wilson 95% intervals), average turns and actions.

    \b
    Duel:  clash simulate --mode duel --agents greedy random --games 400
    Solo:  clash simulate --mode solo --agent greedy --level 2 --games 200

    In duel the agents swap seats every other game.  The results are identical for a given
    --seed whatever --workers is.
    """
    if mode == "duel":
        if agent is not None:
            raise click.UsageError("--agent is for solo; a duel takes --agents A B")
        names: tuple[str, ...] = agents or ("greedy", "random")
    else:
        if agents is not None:
            raise click.UsageError(
                "--agents is for duel; solo takes --agent A (the automaton is the other side)"
            )
        names = (agent or "greedy",)
    config = SimConfig(
        mode=mode,
        agents=names,
        games=games,
        seed=seed,
        format=fmt,
        level=level,
        max_turns=max_turns,
        records_dir=records_dir,
    )
    n_workers = min(workers or default_workers(), games)
    err = Console(stderr=True)
    try:
        config.check()
    except ClashError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(2)

    start = time.perf_counter()
    show_bar = not as_json and err.is_terminal
    try:
        if show_bar:
            with Progress(
                TextColumn("simulating"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            ) as bar:
                task = bar.add_task("games", total=games)

                def tick(_res: GameResult) -> None:
                    bar.advance(task)

                results = run_games(config, workers=n_workers, progress=tick)
        else:
            results = run_games(config, workers=n_workers)
    except ClashError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(1)
    summary = summarize(config, results, time.perf_counter() - start)
    if as_json:
        out = summary.to_dict(include_games=games_json)
        out["workers"] = n_workers
        click.echo(json.dumps(out, indent=2))
        return
    Console().print(_table(summary, n_workers))
    if records_dir is not None:
        err.print(f"records written to {records_dir}/game-NNNNNN.json", highlight=False)
