"""``clash neural-value``: the ``neural`` agent's calibrated value head — its data, its fit and its
calibration table by decile (duel and solo levels 0–5).

docs/ai.md, "The calibrated value head"."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..agents.neural import NeuralModel

_DATA = click.option(
    "--data",
    "data_dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="The folder of value data files (block-*.npz, written by `clash neural-value generate`).",
)


@click.group(name="neural-value")
def neural_value() -> None:
    """The neural agent's value head: generate positions with outcomes, fit, measure calibration."""


@neural_value.command(name="generate")
@_DATA
@click.option("--games", required=True, type=click.IntRange(1, 1_000_000), help="Games per context.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 256))
@click.option(
    "--agent",
    help="The player of every seat (an agent spec; default: neural:N's search, VALUE_AGENT).",
)
def generate(data_dir: Path, games: int, workers: int, agent: str | None) -> None:
    """Play GAMES games per context (duel, solo 0-5) and record every decision with a choice
    (resumes: blocks already written are kept)."""
    from ..agents.registry import make_agent
    from ..agents.spec import AgentSpecError
    from ..simulation.neural_value import VALUE_AGENT, generate_value_data

    agent = agent or VALUE_AGENT
    try:
        make_agent(agent, 0)  # a bad spec is a usage error before any game starts
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent") from None
    files = generate_value_data(data_dir, games, workers, agent=agent, log=click.echo)
    click.echo(f"{len(files)} data files in {data_dir}")


def _load(data_dir: Path, model_path: Path | None) -> tuple[NeuralModel, dict[str, Any]]:
    """The network and the value data (a clear error for a bad model file or no data)."""
    from ..agents.neural import NeuralModelError, load_model
    from ..simulation.neural_value import load_samples

    try:
        model = load_model(model_path)
        files = sorted(data_dir.glob("block-*.npz"))
        return model, load_samples(files, model)
    except (NeuralModelError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None


@neural_value.command(name="fit")
@_DATA
@click.option(
    "--model",
    "model_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The network (default: the shipped one).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The model with its value head.",
)
@click.option("--epochs", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option(
    "--hidden",
    default=32,
    show_default=True,
    type=click.IntRange(0, 1024),
    help="The head's hidden units (0: a recalibration per context of the logistic evaluation alone).",
)
@click.option("--seed", default=0, show_default=True, type=int)
def fit(data_dir: Path, model_path: Path | None, out: Path, epochs: int, hidden: int, seed: int) -> None:
    """Fit the calibrated value head (trunk and policy unchanged), write it, print the held-out table."""
    from ..simulation.neural_training import TrainingError
    from ..simulation.neural_value import (
        calibration_table,
        fit_value_head,
        format_calibration,
    )

    model, data = _load(data_dir, model_path)
    try:
        fitted, figures = fit_value_head(model, data, hidden=hidden, epochs=epochs, seed=seed)
    except (TrainingError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    fitted.save(out)
    click.echo(" ".join(f"{k}={v:g}" for k, v in figures.items()))
    click.echo(format_calibration(calibration_table(fitted, data)))


@neural_value.command(name="calibration")
@_DATA
@click.option(
    "--model",
    "model_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The network (default: the shipped one).",
)
def calibration(data_dir: Path, model_path: Path | None) -> None:
    """Print the held-out calibration table by decile (predicted/observed win rate, in %) per context."""
    from ..simulation.neural_value import calibration_table, format_calibration

    model, data = _load(data_dir, model_path)
    click.echo(format_calibration(calibration_table(model, data)))
