"""``clash train-eval``: train the learned evaluation and measure its calibration (docs/ai.md)."""

from __future__ import annotations

import datetime
import json
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

#: ``--keep-stage2`` names of the second stages (agents.evaluation.STAGE2_GROUPS, in order).
STAGE2_CHOICES = ("duel", "duel-not-to-move", "solo")
GROUPS = ("duel", "solo 0", "solo 1", "solo 2", "solo 3", "solo 4", "solo 5", "solo custom")


def _paths(values: tuple[Path, ...]) -> list[Path]:
    return list(values)


@click.command(name="train-eval")
@click.option(
    "--train",
    "train_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Records to train on (a folder of game records, repeatable).",
)
@click.option(
    "--split",
    "split_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Records split by game: --holdout-fraction of the games held out, the rest used like --calibrate "
    "(repeatable).",
)
@click.option(
    "--calibrate",
    "calibrate_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Records of the agent the model is for, to fit the second stage on (repeatable).",
)
@click.option(
    "--holdout",
    "holdout_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Records only held out (repeatable).",
)
@click.option(
    "--holdout-fraction",
    default=0.3,
    show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="Share of the --split games held out.",
)
@click.option(
    "--generate-duel",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100_000),
    help="Also play this many draft duels of --agent against itself to train on.",
)
@click.option(
    "--generate-solo",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100_000),
    help="Also play this many solo draft games per level 0-5 to train on.",
)
@click.option("--agent", default="greedy", show_default=True, help="The agent of the generated games.")
@click.option(
    "--seed", default=0, show_default=True, help="Seed of the generated games and of the position sampling."
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Worker processes for the generated games.",
)
@click.option(
    "--sample",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.0, 1.0, min_open=True),
    help="Share of the training positions kept (held-out positions are all kept).",
)
@click.option(
    "--rollout-rate",
    default=0.0,
    show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="Share of held-out positions also scored by the search's rollout value (slow).",
)
@click.option(
    "--rollout-iterations",
    default=200,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Search iterations for that rollout value.",
)
@click.option(
    "--model",
    "model_path",
    type=click.Path(path_type=Path),
    help="Measure this model on the held-out games instead of training one.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Write the trained model here (e.g. src/clashofdecks/data/evaluation.json).",
)
@click.option("--report", type=click.Path(path_type=Path), help="Write the calibration report here as JSON.")
@click.option(
    "--keep-stage2",
    "keep_stage2",
    multiple=True,
    type=click.Choice(STAGE2_CHOICES),
    help="With --model: keep this second stage of the model instead of refitting it (repeatable; "
    "duel = the player to move, duel-not-to-move = the other duel seat, solo = every solo stage).",
)
def train_eval(
    train_dirs: tuple[Path, ...],
    split_dirs: tuple[Path, ...],
    calibrate_dirs: tuple[Path, ...],
    holdout_dirs: tuple[Path, ...],
    holdout_fraction: float,
    generate_duel: int,
    generate_solo: int,
    agent: str,
    seed: int,
    workers: int,
    sample: float,
    rollout_rate: float,
    rollout_iterations: int,
    model_path: Path | None,
    out: Path | None,
    report: Path | None,
    keep_stage2: tuple[str, ...],
) -> None:
    """Train the learned evaluation (logistic regression on documented features, per duel / solo)
    on simulated games, and print its reliability table on held-out games beside the old values.

    Stage 1 is fitted on the --train and generated games, stage 2 (a recalibration: bias, stage-1
    logit and a few features, agents.evaluation.STAGE2_FEATURES) on the --calibrate games and the
    kept part of the --split games, one per group: duel player to move, duel seat not to move,
    solo.  Each held-out decile's gap gets a 95 % interval that resamples whole games.

    \b
    clash train-eval --generate-duel 2000 --generate-solo 1000 --out model.json
    clash train-eval --train greedy/ --split strong/ --out src/clashofdecks/data/evaluation.json
    """
    from ..agents.evaluation import STAGE2_GROUPS, EvaluationModel
    from ..errors import ClashError

    kept = {STAGE2_GROUPS[STAGE2_CHOICES.index(k)] for k in keep_stage2}
    if kept and model_path is None:
        raise click.UsageError("--keep-stage2 keeps a second stage of --model: give --model")
    games = _Games()
    try:
        with tempfile.TemporaryDirectory(prefix="clash-train-eval-") as tmp:
            games = _game_files(train_dirs, split_dirs, calibrate_dirs, holdout_dirs, holdout_fraction)
            if generate_duel or generate_solo:
                games.train.extend(_generated(Path(tmp), agent, generate_duel, generate_solo, seed, workers))
            rng = random.Random(seed)
            model, n_train, stage1_card = _first_stage(model_path, games.train, sample, rng)
            model = _second_stage(model, games.calibrate, kept, n_train, rng)
            click.echo(f"scoring {len(games.holdout)} held-out games…", err=True)
            held = _held_out_positions(games.holdout, rng, rollout_rate, rollout_iterations)
            results = _calibration(model, held)
    except ClashError as exc:
        click.echo(f"clash train-eval: {exc}", err=True)
        sys.exit(1)
    _print(results)

    command = "clash train-eval " + " ".join(sys.argv[2:] if len(sys.argv) > 1 else [])
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    if model_path is None or games.calibrate:  # trained here: a new card
        sources = _Sources(
            train_dirs, (*calibrate_dirs, *split_dirs), generate_duel, generate_solo, agent, kept
        )
        card = _training_card(games, n_train, sample, sources, command, today, stage1_card)
    else:  # a measurement of an existing model: its card, with this calibration
        card = {**model.card, "calibration_command": command, "calibration_date": today}
    card["held_out"] = {
        "games": len(games.holdout),
        "positions": len(held),
        "players": sorted({_players(f) for f in games.holdout}),
    }
    card["calibrated"] = _calibrated(results)
    card["calibration"] = {g: r["model"] for g, r in results.items()}
    model = EvaluationModel(model.coefficients, card, model.stage2)
    if out is not None:
        model.save(out)
        click.echo(f"model written to {out}", err=True)
    if report is not None:
        report.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def _calibrated(results: dict[str, dict[str, Any]]) -> dict[str, bool]:
    """Which groups passed the held-out check (every decile within 5 points): duel, solo and each
    solo level (a front end labels a level's chance by its own check)."""
    from ..agents.evaluation import SOLO_LEVEL_GROUPS

    def passed(group: str) -> bool:
        return group in results and bool(results[group]["within"] and results[group]["deciles_checked"])

    duel = [g for g in ("duel", "duel, seat not to move") if g in results]
    levels = {g: passed(g) for g in SOLO_LEVEL_GROUPS}
    return {"duel": bool(duel) and all(passed(g) for g in duel), "solo": all(levels.values()), **levels}


@dataclass
class _Games:
    """The record files of a run: to train the first stage, to fit the second, to hold out."""

    train: list[Path] = field(default_factory=list)
    calibrate: list[Path] = field(default_factory=list)
    holdout: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class _Sources:
    """Where a trained model's games came from (its card names them)."""

    train_dirs: tuple[Path, ...]
    stage2_dirs: tuple[Path, ...]
    generate_duel: int
    generate_solo: int
    agent: str
    kept: set[str]


def _game_files(
    train_dirs: tuple[Path, ...],
    split_dirs: tuple[Path, ...],
    calibrate_dirs: tuple[Path, ...],
    holdout_dirs: tuple[Path, ...],
    holdout_fraction: float,
) -> _Games:
    """The games of the given folders; a --split folder's games go to the second stage or are held
    out, each by its name (:func:`is_held_out`)."""
    from ..simulation.training import is_held_out, record_files

    games = _Games(
        record_files(_paths(train_dirs)),
        record_files(_paths(calibrate_dirs)),
        record_files(_paths(holdout_dirs)),
    )
    for f in record_files(_paths(split_dirs)):
        (games.holdout if is_held_out(f, holdout_fraction) else games.calibrate).append(f)
    return games


def _generated(folder: Path, agent: str, duel: int, solo: int, seed: int, workers: int) -> list[Path]:
    """Games played now for the first stage (``--generate-duel``, ``--generate-solo``)."""
    from ..simulation.training import generate_records, record_files

    folders = generate_records(
        folder,
        agent=agent,
        duel_games=duel,
        solo_games=solo,
        seed=seed,
        workers=workers,
        progress=lambda msg: click.echo(f"playing {msg}…", err=True),
    )
    return record_files(folders)


def _first_stage(
    model_path: Path | None, train_files: list[Path], sample: float, rng: random.Random
) -> tuple[Any, dict[str, int], dict[str, Any]]:
    """The first stage: fitted on the training games, or reused from ``--model`` (with what its
    card says of it); the positions per mode it was fitted on."""
    from ..agents.evaluation import load_model
    from ..simulation.training import fit_first_stage

    if model_path is not None:
        if train_files:
            raise click.UsageError("--model reuses a model's first stage: give no --train games")
        model = load_model(model_path)
        card = {
            "model": str(model_path),
            "training_data": model.card.get("training_data", {}),
            "command": model.card.get("command"),
            "date": model.card.get("date"),
        }
        return model, {}, card
    if not train_files:
        raise click.UsageError("nothing to train on: give --train, --split or --generate-*")
    click.echo(f"reading {len(train_files)} training games…", err=True)
    model, counts = fit_first_stage(train_files, sample=sample, rng=rng)
    click.echo(f"fitted on {sum(counts.values())} positions {counts}", err=True)
    return model, counts, {}


def _second_stage(
    model: Any, files: list[Path], kept: set[str], n_train: dict[str, int], rng: random.Random
) -> Any:
    """``model`` with its second stage fitted on ``files`` (counted into ``n_train``); unchanged
    without such games."""
    from ..simulation.training import Position, fit_second_stage, positions_of

    if not files:
        return model
    click.echo(f"reading {len(files)} games for the second stage…", err=True)
    positions: list[Position] = []
    for f in files:
        positions.extend(positions_of(f, rng=rng))
    model, counts = fit_second_stage(model, positions, kept)
    n_train.update(counts)
    return model


def _held_out_positions(files: list[Path], rng: random.Random, rate: float, iterations: int) -> list[Any]:
    from ..simulation.training import positions_of

    held: list[Any] = []
    for f in files:
        held.extend(positions_of(f, rng=rng, rollout_rate=rate, rollout_iterations=iterations))
    return held


def _training_card(
    games: _Games,
    n_train: dict[str, int],
    sample: float,
    sources: _Sources,
    command: str,
    today: str,
    stage1_card: dict[str, Any],
) -> dict[str, Any]:
    """The model card of a model trained here: what it is, on what, by which command, when."""
    return {
        "model": "logistic regression per mode (duel, solo), Newton's method, ridge 1e-3",
        "features": "clashofdecks.agents.evaluation.FEATURES (docs/ai.md, 'The learned evaluation')",
        "training_data": {
            "games": len(games.train),
            "positions": n_train,
            "position_sample": sample,
            "players": sorted({_players(f) for f in games.train}),
            "stage1_folders": [str(d) for d in sources.train_dirs],
            "stage2_folders": [str(d) for d in sources.stage2_dirs],
            "stage2_games": len(games.calibrate),
            "generated": {
                "duel": sources.generate_duel,
                "solo_per_level": sources.generate_solo,
                "agent": sources.agent,
            },
            "stage2_players": sorted({_players(f) for f in games.calibrate}),
            **({"stage2_kept_from_model": sorted(sources.kept)} if sources.kept else {}),
        },
        "command": command,
        "date": today,
        **({"stage1_reused_from": stage1_card} if stage1_card else {}),
    }


def _players(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return " vs ".join(str(p) for p in data.get("players", []))
    except (OSError, ValueError):
        return "?"


def _calibration(model: Any, held: list[Any]) -> dict[str, dict[str, Any]]:
    """Per group (play positions of the player to move, setup excluded; and in duel the other
    seat's) the model's, the heuristic's and, where measured, the rollout value's reliability."""
    from ..agents.evaluation import gap_intervals, reliability_table
    from ..simulation.training import model_predictions

    out: dict[str, dict[str, Any]] = {}
    for group, to_move in [(g, True) for g in GROUPS] + [("duel", False)]:
        rows = [p for p in held if p.group == group and p.phase != "setup" and p.to_move == to_move]
        if not to_move:
            group = "duel, seat not to move"
        if not rows:
            continue
        ys = [p.y for p in rows]
        predicted = model_predictions(model, rows)
        table = reliability_table(predicted, ys)
        heur = reliability_table([p.heuristic for p in rows], ys)
        model_entry = table.to_dict()
        for decile, interval in zip(
            model_entry["deciles"], gap_intervals(predicted, ys, [p.game for p in rows]), strict=True
        ):
            decile["gap_95"] = list(interval) if interval is not None else None
        sub = [p for p in rows if p.rollout >= 0]
        entry: dict[str, Any] = {
            "positions": len(rows),
            "games": len({p.game for p in rows}),
            "within": table.within(),
            "deciles_checked": table.checked(),
            "model": model_entry,
            "heuristic": {"brier": heur.brier, "log_loss": heur.log_loss},
        }
        if sub:
            sy = [p.y for p in sub]
            entry["rollout_subsample"] = {
                "positions": len(sub),
                "model": _scores(reliability_table(model_predictions(model, sub), sy)),
                "heuristic": _scores(reliability_table([p.heuristic for p in sub], sy)),
                "rollout": _scores(reliability_table([p.rollout for p in sub], sy)),
            }
        out[group] = entry
    return out


def _scores(table: Any) -> dict[str, float]:
    return {"brier": table.brier, "log_loss": table.log_loss}


def _print(results: dict[str, dict[str, Any]]) -> None:
    for group, r in results.items():
        m = r["model"]
        click.echo(
            f"\n{group}: {r['positions']} held-out play positions from {r['games']} games; "
            f"model Brier {m['brier']:.4f} log loss {m['log_loss']:.4f}; heuristic Brier "
            f"{r['heuristic']['brier']:.4f} log loss {r['heuristic']['log_loss']:.4f}; "
            f"{'within' if r['within'] else 'NOT within'} ±5 points in every decile of ≥ 200 "
            f"({r['deciles_checked']} such deciles)"
        )
        if "rollout_subsample" in r:
            s = r["rollout_subsample"]
            m_, h_, r_ = s["model"], s["heuristic"], s["rollout"]
            click.echo(
                f"  subsample of {s['positions']}: Brier model {m_['brier']:.4f} / heuristic "
                f"{h_['brier']:.4f} / rollout {r_['brier']:.4f}; log loss "
                f"{m_['log_loss']:.4f} / {h_['log_loss']:.4f} / {r_['log_loss']:.4f}"
            )
        click.echo("  decile      n  predicted  observed   gap  (95 %, games resampled)")
        for d in m["deciles"]:
            if d["n"]:
                gap = 100 * (d["observed"] - d["predicted"])
                ci = d.get("gap_95")
                interval = f"  ({100 * ci[0]:+.1f} … {100 * ci[1]:+.1f})" if ci else ""
                click.echo(
                    f"  {d['lo']:.1f}-{d['hi']:.1f} {d['n']:6d}  {100 * d['predicted']:8.1f}% "
                    f"{100 * d['observed']:8.1f}% {gap:+5.1f}{interval}"
                )
