"""``clash neural-curve``: measure a training run's checkpoints and draw its curve as an SVG.

docs/ai.md, "Self-play on the batch"."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.group(name="neural-curve")
def neural_curve() -> None:
    """The neural network's training curve: strength by training time."""


@neural_curve.command(name="plot")
@click.option(
    "--log",
    "logs",
    required=True,
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The run's log.jsonl (repeat to add measurements kept in other files).",
)
@click.option(
    "--out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="The SVG to write."
)
@click.option("--title", default="neural: strength by training time", show_default=True)
def plot_cmd(logs: tuple[Path, ...], out: Path, title: str) -> None:
    """Draw the run's strength lines (one per agent and opponent, 95 % whiskers) as an SVG."""
    from ..simulation.neural_curve import CurveError, plot

    try:
        series = plot(logs, out, title)
    except CurveError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {out}: {', '.join(f'{label} ({len(p)} points)' for label, p in series.items())}")


@neural_curve.command(name="measure")
@click.option(
    "--log",
    "log",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The run's log.jsonl.",
)
@click.option(
    "--checkpoint",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="A checkpoint of the run.",
)
@click.option(
    "--search",
    default=0,
    show_default=True,
    type=click.IntRange(0, 1_000_000),
    help="neural:N's search iterations (0: the policy alone).",
)
@click.option(
    "--agent",
    "kind",
    type=click.Choice(["neural", "neural-search"]),
    default="neural",
    show_default=True,
    help="The checkpoint's agent: neural:N (--search 0: the policy alone) or neural-search:N.",
)
@click.option("--opponent", default="greedy", show_default=True, help="The opponent's agent spec.")
@click.option(
    "--games",
    default=40,
    show_default=True,
    type=click.IntRange(2, 100_000),
    help="Draft duels (even: each deal from both seats).",
)
@click.option("--seed", default=100_000, show_default=True, type=int, help="The first deal.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 256))
def measure_cmd(
    log: Path, checkpoint: Path, search: int, kind: str, opponent: str, games: int, seed: int, workers: int
) -> None:
    """Play a checkpoint against an opponent and append the result to the run's log."""
    from ..agents.spec import AgentSpecError
    from ..simulation.game import SimulationError
    from ..simulation.neural_curve import CurveError, measure

    if kind == "neural-search" and search == 0:
        raise click.UsageError("--agent neural-search needs --search N (its play-phase iterations)")
    try:
        entry = measure(log, checkpoint, opponent, games, seed, search, workers, kind)
    except (CurveError, AgentSpecError, SimulationError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(entry))
