"""``clash arena AGENT...``: a round robin with shared deals and swapped seats (see arena.py)."""

from __future__ import annotations

import json
import os
import sys

import click


@click.command()
@click.argument("agents", nargs=-1, required=True)
@click.option(
    "--games",
    default=20,
    show_default=True,
    help="Games per pairing (even: every deal is played from both seats).",
)
@click.option(
    "--format", "fmt", default="draft", show_default=True, type=click.Choice(["draft", "precon", "custom"])
)
@click.option("--seed", default=1, show_default=True, help="First deal seed (deals are seed, seed+1, …).")
@click.option(
    "--workers",
    default=0,
    help="Worker processes (0: one per core).  Each game runs on one core.",
)
@click.option(
    "--max-turns",
    default=200,
    show_default=True,
    help="Turn cap (a capped game is a draw); 0 for none.",
)
@click.option(
    "--bootstrap", default=1000, show_default=True, help="Bootstrap resamples for the Elo intervals."
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def arena(
    agents: tuple[str, ...],
    games: int,
    fmt: str,
    seed: int,
    workers: int,
    max_turns: int,
    bootstrap: int,
    as_json: bool,
) -> None:
    """Play a round robin between AGENTS and print win rates and Elo ratings with 95% intervals.

    An agent is a name (random, greedy, mcts, ismcts) with optional search settings:
    `ismcts:1000` (iterations per decision), `ismcts:seconds=0.5`, `mcts:iterations=200,c=1.0`,
    `ismcts:rollout=greedy`.  Every pairing plays the same deals, each from both seats.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from ..arena import ArenaError, GameResult, agent_from_spec, run_arena, tasks_for

    err = Console(stderr=True)
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    try:
        for spec in agents:
            agent_from_spec(spec)
        total = len(tasks_for(len(agents), games, seed))
    except ArenaError as exc:
        click.echo(f"clash arena: {exc}", err=True)
        sys.exit(2)
    if len(agents) < 2:
        click.echo("clash arena: an arena needs at least two agents", err=True)
        sys.exit(2)
    progress = Progress(
        TextColumn("[bold]arena"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    with progress:
        bar = progress.add_task("games", total=total)

        def on_result(_r: GameResult, done: int, _total: int) -> None:
            progress.update(bar, completed=done)

        try:
            result = run_arena(
                agents,
                games=games,
                seed=seed,
                format=fmt,
                workers=n_workers,
                max_turns=max_turns or None,
                bootstrap=bootstrap,
                on_result=on_result,
            )
        except ArenaError as exc:
            click.echo(f"clash arena: {exc}", err=True)
            sys.exit(2)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    console = Console()
    table = Table(
        title=f"clash arena: {fmt} duels, {games} games per pairing (seeds {seed}…{seed + games // 2 - 1})"
    )
    for col in ("agent", "opponent", "games", "win rate", "95% interval"):
        table.add_column(col, justify="left" if col in ("agent", "opponent") else "right")
    for row in result.table():
        low, high = row["ci95"]
        table.add_row(
            row["agent"],
            row["opponent"],
            str(row["games"]),
            f"{100 * row['win_rate']:.1f}%",
            f"{100 * low:.1f}–{100 * high:.1f}%",
        )
    console.print(table)
    elo = Table(title="Elo (Bradley–Terry, mean 0; 95% bootstrap intervals)")
    for col in ("agent", "Elo", "95% interval"):
        elo.add_column(col, justify="left" if col == "agent" else "right")
    order = sorted(range(len(agents)), key=lambda i: -result.elo[i])
    for i in order:
        elo.add_row(
            agents[i], f"{result.elo[i]:+.0f}", f"{result.elo_low[i]:+.0f} … {result.elo_high[i]:+.0f}"
        )
    console.print(elo)
    if result.draws:
        console.print(f"{result.draws} games reached the {max_turns}-turn cap (draws count half).")
