"""``clash train-eval``: train the learned evaluation and measure its calibration (docs/ai.md)."""

from __future__ import annotations

import datetime
import json
import random
import sys
import tempfile
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
    from ..agents.evaluation import (
        LEVEL_STAGE2_RIDGE,
        SOLO_LEVEL_GROUPS,
        STAGE2_GROUPS,
        EvaluationModel,
        fit_logistic,
        load_model,
        stage2_inputs,
        stage2_mode,
    )
    from ..errors import ClashError
    from ..simulation.training import (
        Position,
        fit_model,
        generate_records,
        is_held_out,
        positions_of,
        record_files,
        stage2_group_of,
    )

    kept = {STAGE2_GROUPS[STAGE2_CHOICES.index(k)] for k in keep_stage2}
    if kept and model_path is None:
        raise click.UsageError("--keep-stage2 keeps a second stage of --model: give --model")

    try:
        train_files = record_files(_paths(train_dirs))
        holdout_files = record_files(_paths(holdout_dirs))
        calibrate_files = record_files(_paths(calibrate_dirs))
        for f in record_files(_paths(split_dirs)):
            (holdout_files if is_held_out(f, holdout_fraction) else calibrate_files).append(f)
        tmp: tempfile.TemporaryDirectory[str] | None = None
        if generate_duel or generate_solo:
            tmp = tempfile.TemporaryDirectory(prefix="clash-train-eval-")
            folders = generate_records(
                Path(tmp.name),
                agent=agent,
                duel_games=generate_duel,
                solo_games=generate_solo,
                seed=seed,
                workers=workers,
                progress=lambda msg: click.echo(f"playing {msg}…", err=True),
            )
            train_files.extend(record_files(folders))
        rng = random.Random(seed)
        model: EvaluationModel
        n_train: dict[str, int] = {}
        stage1_card: dict[str, Any] = {}
        if model_path is not None:
            model = load_model(model_path)
            stage1_card = {
                "model": str(model_path),
                "training_data": model.card.get("training_data", {}),
                "command": model.card.get("command"),
                "date": model.card.get("date"),
            }
            if train_files:
                raise click.UsageError("--model reuses a model's first stage: give no --train games")
        else:
            if not train_files:
                raise click.UsageError("nothing to train on: give --train, --split or --generate-*")
            click.echo(f"reading {len(train_files)} training games…", err=True)
            train: list[Position] = []
            for f in train_files:
                train.extend(positions_of(f, sample=sample, rng=rng))
            for p in train:
                mode = "solo" if p.group.startswith("solo") else "duel"
                n_train[mode] = n_train.get(mode, 0) + 1
            click.echo(f"fitting on {len(train)} positions {n_train}…", err=True)
            coefs = fit_model(train, lambda xs, ys: fit_logistic(xs, ys))
            model = EvaluationModel(coefs, {})
        if calibrate_files:
            click.echo(f"reading {len(calibrate_files)} games for the second stage…", err=True)
            cal: list[Position] = []
            for f in calibrate_files:
                cal.extend(positions_of(f, rng=rng))
            stage2: dict[str, tuple[float, ...]] = {}
            for group in STAGE2_GROUPS:
                if group in kept or (group in SOLO_LEVEL_GROUPS and "solo" in kept):
                    if group in model.stage2:
                        stage2[group] = model.stage2[group]
                    continue
                mode = stage2_mode(group)
                if group == "solo":  # the fall-back for every allocation: fitted on all solo games
                    rows = [p for p in cal if p.group.startswith("solo")]
                else:
                    rows = [p for p in cal if stage2_group_of(p) == group]
                n_train[f"{group} stage 2"] = len(rows)
                if rows:
                    xs = [stage2_inputs(p.x, model.logit(p.x, mode)) for p in rows]
                    # A level's stage sees a sixth of the solo games: a stronger ridge (docs/ai.md).
                    ridge = LEVEL_STAGE2_RIDGE if group in SOLO_LEVEL_GROUPS else 1e-3
                    stage2[group] = tuple(fit_logistic(xs, [p.y for p in rows], ridge=ridge))
            model = EvaluationModel(model.coefficients, {}, stage2)
        click.echo(f"scoring {len(holdout_files)} held-out games…", err=True)
        held: list[Position] = []
        for f in holdout_files:
            held.extend(
                positions_of(f, rng=rng, rollout_rate=rollout_rate, rollout_iterations=rollout_iterations)
            )
        results = _calibration(model, held)
        if tmp is not None:
            tmp.cleanup()
    except ClashError as exc:
        click.echo(f"clash train-eval: {exc}", err=True)
        sys.exit(1)
    _print(results)
    trained = model_path is None or bool(calibrate_files)
    duel = [g for g in ("duel", "duel, seat not to move") if g in results]

    def passed(group: str) -> bool:
        return group in results and bool(results[group]["within"] and results[group]["deciles_checked"])

    # Each solo level's own check too: a front end labels a level's chance by it.
    levels = {g: passed(g) for g in SOLO_LEVEL_GROUPS}
    calibrated = {"duel": bool(duel) and all(passed(g) for g in duel), "solo": all(levels.values()), **levels}
    command = "clash train-eval " + " ".join(sys.argv[2:] if len(sys.argv) > 1 else [])
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    held_out: dict[str, Any] = {
        "games": len(holdout_files),
        "positions": len(held),
        "players": sorted({_players(f) for f in holdout_files}),
    }
    card: dict[str, Any]
    if trained:
        players = sorted({_players(f) for f in train_files})
        card = {
            "model": "logistic regression per mode (duel, solo), Newton's method, ridge 1e-3",
            "features": "clashofdecks.agents.evaluation.FEATURES (docs/ai.md, 'The learned evaluation')",
            "training_data": {
                "games": len(train_files),
                "positions": n_train,
                "position_sample": sample,
                "players": players,
                "stage1_folders": [str(d) for d in train_dirs],
                "stage2_folders": [str(d) for d in (*calibrate_dirs, *split_dirs)],
                "stage2_games": len(calibrate_files),
                "generated": {"duel": generate_duel, "solo_per_level": generate_solo, "agent": agent},
                "stage2_players": sorted({_players(f) for f in calibrate_files}),
                **({"stage2_kept_from_model": sorted(kept)} if kept else {}),
            },
            "command": command,
            "date": today,
            **({"stage1_reused_from": stage1_card} if stage1_card else {}),
        }
    else:  # a measurement of an existing model: its card, with this calibration
        card = dict(model.card)
        card["calibration_command"] = command
        card["calibration_date"] = today
    card["held_out"] = held_out
    card["calibrated"] = calibrated
    card["calibration"] = {g: r["model"] for g, r in results.items()}
    model = EvaluationModel(model.coefficients, card, model.stage2)
    if out is not None:
        model.save(out)
        click.echo(f"model written to {out}", err=True)
    if report is not None:
        report.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


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
