"""``clash train-neural``: train the ``neural`` agent's network by self-play.

docs/ai.md, "The neural agent"."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import click


@click.command(name="train-neural")
@click.option(
    "--out-dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Checkpoints (iter-K.bin, latest.bin), settings.json and log.jsonl go here.",
)
@click.option(
    "--method",
    type=click.Choice(["expert", "selfplay", "search"]),
    default="expert",
    show_default=True,
    help="expert: expert iteration (search games, distillation); selfplay: PPO self-play on the"
    " batched environment, starting from the shipped network; search: neural-search self-play, the"
    " network fitted to its visit shares and results (docs/ai.md).",
)
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option(
    "--address", help="With --backend ray: join this Ray cluster (e.g. auto) instead of a local one."
)
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 256), help="Self-play processes."
)
@click.option(
    "--hours", type=click.FloatRange(0.0, 1000.0, min_open=True), help="Stop after this much wall time."
)
@click.option("--iterations", type=click.IntRange(1, 100_000), help="Stop after this many iterations.")
@click.option("--games", type=click.IntRange(1, 1_000_000), help="Self-play games per iteration.")
@click.option("--teacher", help="The search agent of the first iteration (an agent spec).")
@click.option(
    "--search-iterations", type=click.IntRange(1, 1_000_000), help="neural:N's search in later iterations."
)
@click.option("--hidden", type=click.IntRange(8, 1024), help="Units per hidden layer.")
@click.option("--epochs", type=click.IntRange(1, 1000), help="Passes over the samples per iteration.")
@click.option("--learning-rate", type=click.FloatRange(0.0, 1.0, min_open=True), help="Adam's step size.")
@click.option("--seed", type=int, help="Seed of the first game and of the network's initialisation.")
@click.option(
    "--ship", type=click.Path(path_type=Path, dir_okay=False), help="Copy the last checkpoint here."
)
@click.option(
    "--value-data",
    type=click.Path(path_type=Path, file_okay=False),
    help="Then fit the calibrated value head on the value data in this folder (generated first if"
    " --value-games is given: clash neural-value generate) and write out-dir/value.bin.",
)
@click.option(
    "--value-games", type=click.IntRange(1, 1_000_000), help="Value data games per context to generate."
)
@click.option("--steps", type=click.IntRange(1, 100_000), help="selfplay: decisions per game per rollout.")
@click.option(
    "--shards",
    type=click.IntRange(1, 4096),
    help="selfplay: the batch's shards (a worker plays whole shards).",
)
@click.option(
    "--start",
    type=click.Path(path_type=Path, dir_okay=False),
    help="selfplay, search: the starting network (default: the shipped one).",
)
@click.option(
    "--checkpoint-minutes",
    type=click.FloatRange(0.0, 10_000.0),
    help="selfplay: minutes between checkpoints.",
)
@click.option(
    "--eval-games",
    type=click.IntRange(0, 100_000),
    help="selfplay: duels of the policy alone vs greedy per checkpoint.",
)
@click.option(
    "--temperature-moves",
    type=click.IntRange(0, 10_000),
    help="search: play-phase decisions per seat drawn by visit share (then the most visited).",
)
@click.option(
    "--root-noise",
    type=click.FloatRange(0.0, 1.0),
    help="search: the share of Dirichlet noise in each self-play search's root prior (default 0: none).",
)
@click.option(
    "--setup-iterations",
    type=click.IntRange(1, 1_000_000),
    help="search: the setup stage's search iterations.",
)
@click.option(
    "--window", type=click.IntRange(1, 10_000), help="search: iterations of samples the learner keeps."
)
@click.option(
    "--train-trunk",
    is_flag=True,
    default=None,
    help="search: train the whole network (the calibrated value head is dropped); default: the heads only.",
)
def train_neural(
    out_dir: Path,
    method: str,
    backend: str,
    address: str | None,
    workers: int,
    ship: Path | None,
    value_data: Path | None,
    value_games: int | None,
    **overrides: Any,
) -> None:
    """Train the neural network: expert iteration (play search duels, fit, checkpoint, repeat) or
    PPO self-play on the batched environment (--method selfplay)."""
    selfplay_only = ("steps", "shards", "start", "checkpoint_minutes", "eval_games")
    search_only = ("temperature_moves", "root_noise", "setup_iterations", "window", "train_trunk")
    if method != "search":
        _refuse(method, [k for k in search_only if overrides.pop(k) is not None])
    if method == "search":
        last = _train_on_search(out_dir, backend, address, workers, overrides)
    elif method == "selfplay":
        last = _train_selfplay(out_dir, backend, address, workers, overrides)
    if method != "expert":
        if value_data is not None:
            last = _fit_value(last, value_data, value_games, workers, out_dir / "value.bin")
        if ship is not None:
            shutil.copyfile(last, ship)
            click.echo(f"shipped {last} to {ship}")
        return
    given_selfplay = [f"--{k.replace('_', '-')}" for k in selfplay_only if overrides.pop(k) is not None]
    if given_selfplay:
        raise click.UsageError(f"{', '.join(given_selfplay)} apply to --method selfplay only")
    from ..simulation.neural_training import TrainingError, TrainSettings, local_selfplay, ray_selfplay, train

    renamed = {"games": "games_per_iteration"}
    given = {renamed.get(k, k): v for k, v in overrides.items() if v is not None}
    settings = dataclasses.replace(TrainSettings(), **given)
    try:
        selfplay, close = ray_selfplay(workers, address) if backend == "ray" else local_selfplay(workers)
        try:
            last = train(settings, out_dir, selfplay, log=lambda entry: click.echo(json.dumps(entry)))
        finally:
            close()
    except TrainingError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"interrupted; the last checkpoint is {out_dir / 'latest.bin'}") from None
    if value_data is not None:
        last = _fit_value(last, value_data, value_games, workers, out_dir / "value.bin")
    if ship is not None:
        shutil.copyfile(last, ship)
        click.echo(f"shipped {last} to {ship}")


def _refuse(method: str, given: list[str]) -> None:
    if given:
        flags = ", ".join(f"--{k.replace('_', '-')}" for k in given)
        raise click.UsageError(f"{flags} apply to --method search only, not {method}")


def _train_on_search(
    out_dir: Path, backend: str, address: str | None, workers: int, overrides: dict[str, Any]
) -> Path:
    from ..agents.neural import NeuralModelError
    from ..simulation.neural_search_training import (
        SearchTrainSettings,
        search_selfplay_chunk,
        train_on_search,
    )
    from ..simulation.neural_training import TrainingError, local_selfplay, ray_selfplay

    not_here = ("teacher", "hidden", "steps", "shards", "checkpoint_minutes", "eval_games")
    unused = [f"--{k.replace('_', '-')}" for k in not_here if overrides.pop(k) is not None]
    if unused:
        raise click.UsageError(f"{', '.join(unused)} do not apply to --method search")
    renamed = {"games": "games_per_iteration"}
    given: dict[str, Any] = {renamed.get(k, k): v for k, v in overrides.items() if v is not None}
    if "start" in given:
        given["start"] = str(given["start"])
    if given.pop("train_trunk", None):
        given["freeze_trunk"] = False
    settings = dataclasses.replace(SearchTrainSettings(), **given)
    try:
        selfplay, close = (
            ray_selfplay(workers, address, search_selfplay_chunk)
            if backend == "ray"
            else local_selfplay(workers, search_selfplay_chunk)
        )
        try:
            return train_on_search(
                settings, out_dir, selfplay, log=lambda entry: click.echo(json.dumps(entry))
            )
        finally:
            close()
    except (TrainingError, NeuralModelError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"interrupted; the last checkpoint is {out_dir / 'latest.bin'}") from None


def selfplay_batch(num_games: int, settings: Any) -> Any:
    """A shard's batch for ``--method selfplay``: duels of ``settings`` (a
    :class:`~clashofdecks.simulation.neural_selfplay.SelfPlaySettings`) in a
    :class:`~clashofdecks.envs.selfplay.SelfPlayBatch`."""
    from ..envs.selfplay import SelfPlayBatch

    return SelfPlayBatch(
        num_games=num_games,
        mode="duel",
        observation_dtype="float32",
        backend=settings.batch_backend,
        copy=False,  # the rollout copies the rows it keeps
        format="draft",
        max_turns=settings.max_turns,
    )


def _train_selfplay(
    out_dir: Path, backend: str, address: str | None, workers: int, overrides: dict[str, Any]
) -> Path:
    from ..agents.neural import NeuralModelError
    from ..simulation.neural_selfplay import SelfPlaySettings, local_collector, ray_collector, train_selfplay
    from ..simulation.neural_training import TrainingError

    unused = [f"--{k}" for k in ("teacher", "search_iterations") if overrides.get(k) is not None]
    if unused:
        raise click.UsageError(f"{', '.join(unused)} apply to --method expert only")
    given: dict[str, Any] = {
        k: (str(v) if k == "start" else v) for k, v in overrides.items() if v is not None
    }
    settings = dataclasses.replace(SelfPlaySettings(), **given)
    try:
        collector = (
            ray_collector(settings, selfplay_batch, workers, address)
            if backend == "ray"
            else local_collector(settings, selfplay_batch)
        )
        return train_selfplay(settings, out_dir, collector, echo=lambda entry: click.echo(json.dumps(entry)))
    except (TrainingError, NeuralModelError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"interrupted; the last checkpoint is {out_dir / 'latest.bin'}") from None


def _fit_value(network: Path, data_dir: Path, games: int | None, workers: int, out: Path) -> Path:
    """The run's value head stage (docs/ai.md, "The calibrated value head"): data, fit, table."""
    from ..agents.neural import NeuralModelError, load_model
    from ..simulation.neural_training import TrainingError
    from ..simulation.neural_value import (
        calibration_table,
        fit_value_head,
        format_calibration,
        generate_value_data,
        load_samples,
    )

    if games is not None:
        generate_value_data(data_dir, games, workers, log=click.echo)
    try:
        model = load_model(network)
        data = load_samples(sorted(data_dir.glob("block-*.npz")), model)
        fitted, figures = fit_value_head(model, data)
    except (NeuralModelError, TrainingError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    fitted.save(out)
    click.echo(json.dumps(figures))
    click.echo(format_calibration(calibration_table(fitted, data)))
    return out
