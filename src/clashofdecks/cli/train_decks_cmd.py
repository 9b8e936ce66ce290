"""``clash train-decks``: train the deck evaluation (the draft's learned value) and measure it.

docs/ai.md, "The deck evaluation".
"""

from __future__ import annotations

import datetime
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import click


@click.command(name="train-decks")
@click.option(
    "--records",
    "record_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Duel records to train on (a folder of game records, repeatable).",
)
@click.option(
    "--generate",
    default=0,
    show_default=True,
    type=click.IntRange(0, 1_000_000),
    help="Also play this many draft duels of --agent against itself, setup choices at random.",
)
@click.option(
    "--agent",
    default="ismcts:1000",
    show_default=True,
    help="The search agent of the generated games (it is given setup=random).",
)
@click.option("--seed", default=0, show_default=True, help="Seed of the generated games.")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Worker processes for the generated games.",
)
@click.option(
    "--keep-records",
    type=click.Path(path_type=Path, file_okay=False),
    help="Keep the generated games' records in this folder (default: a temporary folder, removed).",
)
@click.option(
    "--holdout-fraction",
    default=0.2,
    show_default=True,
    type=click.FloatRange(0.0, 1.0, max_open=True),
    help="Share of the games held out (a stable split by file name) to measure the model on.",
)
@click.option(
    "--ridge",
    type=click.FloatRange(0.0, min_open=False),
    help="The ridge penalty (default: the best of a grid by 5-fold cross-validation by game).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the model here (e.g. src/clashofdecks/data/deck_evaluation.json).",
)
@click.option(
    "--report", type=click.Path(path_type=Path, dir_okay=False), help="Write the measurements as JSON."
)
def train_decks(
    record_dirs: tuple[Path, ...],
    generate: int,
    agent: str,
    seed: int,
    workers: int,
    keep_records: Path | None,
    holdout_fraction: float,
    ridge: float | None,
    out: Path | None,
    report: Path | None,
) -> None:
    """Train the deck evaluation: a duel seat's chance from both decks and who starts, when the
    setup ends (a logistic regression, one coefficient per card), which search agents use with
    the setting setup=learned to score draft picks.  Prints the cross-validation, the held-out
    log loss and Brier score beside who starts alone, and each card's value.

    \b
    clash train-decks --generate 10000 --workers 2 --seed 1 --out src/clashofdecks/data/deck_evaluation.json
    clash train-decks --records runs/duels/ --report decks.json
    """
    from ..agents.deck_evaluation import DeckGame, DeckModel, fit_deck_model
    from ..errors import ClashError
    from ..simulation.deck_training import (
        RIDGES,
        cross_validate,
        deck_game_of,
        generate_deck_records,
        measure,
        random_setup_spec,
    )
    from ..simulation.training import is_held_out, record_files

    if not record_dirs and not generate:
        raise click.UsageError("nothing to train on: give --records or --generate")
    try:
        spec = random_setup_spec(agent) if generate else None
        files = record_files(list(record_dirs))
        # Generated records are read before their temporary folder goes (--keep-records keeps them).
        with tempfile.TemporaryDirectory(prefix="clash-train-decks-") as tmp:
            if generate:
                files += generate_deck_records(
                    keep_records or Path(tmp),
                    agent=agent,
                    games=generate,
                    seed=seed,
                    workers=workers,
                    progress=lambda msg: click.echo(f"playing {msg}…", err=True),
                )
            click.echo(f"reading {len(files)} records…", err=True)
            games_by_file = list(zip(files, map(deck_game_of, files), strict=True))
    except ClashError as exc:
        click.echo(f"clash train-decks: {exc}", err=True)
        sys.exit(1)
    # A record that is no training game (solo, unfinished, resigned) is None: skipped.
    train: list[DeckGame] = []
    held: list[DeckGame] = []
    for f, g in games_by_file:
        if g is not None:
            (held if is_held_out(f, holdout_fraction) else train).append(g)
    try:
        click.echo(f"{len(train)} training games, {len(held)} held out", err=True)
        cv = cross_validate(train) if ridge is None else {}
        chosen = ridge if ridge is not None else min(RIDGES, key=lambda r: (cv[r], r))
        model = fit_deck_model(train, chosen)
        scores = measure(model, train, held) if held else None
    except ClashError as exc:
        click.echo(f"clash train-decks: {exc}", err=True)
        sys.exit(1)
    _print(cv, chosen, scores, model)
    generated = {"games": generate, "agent": spec} if generate else None
    card = _card(chosen, len(train), record_dirs, generated, cv, scores)
    model = DeckModel(model.weights, card)
    if out is not None:
        model.save(out)
        click.echo(f"model written to {out}", err=True)
    if report is not None:
        data = {"card": card, "reliability": None if scores is None else scores.reliability}
        report.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _card(
    ridge: float,
    games: int,
    record_dirs: tuple[Path, ...],
    generated: dict[str, Any] | None,
    cv: dict[float, float],
    scores: Any,
) -> dict[str, Any]:
    """The model card: what the deck evaluation is, what it was trained on, how it scored held out."""
    return {
        "model": f"logistic regression, one coefficient per card and one for who starts, ridge {ridge:g}",
        "features": "clashofdecks.agents.deck_evaluation.DECK_FEATURES (docs/ai.md, 'The deck evaluation')",
        "training_data": {
            "games": games,
            "record_folders": [str(d) for d in record_dirs],
            "generated": generated,
        },
        "cross_validation": {f"{r:g}": v for r, v in cv.items()},
        "held_out": None
        if scores is None
        else {
            "games": scores.games,
            "log_loss": scores.log_loss,
            "brier": scores.brier,
            "starts_only_log_loss": scores.starts_only_log_loss,
            "starts_only_brier": scores.starts_only_brier,
        },
        "command": "clash train-decks " + " ".join(sys.argv[2:] if len(sys.argv) > 1 else []),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
    }


def _print(cv: dict[float, float], chosen: float, scores: Any, model: Any) -> None:
    if cv:
        click.echo("cross-validation (5 folds by game), log loss by ridge:")
        for r, v in cv.items():
            click.echo(f"  {r:<8g} {v:.4f}{'  <- chosen' if r == chosen else ''}")
    if scores is not None:
        click.echo(f"held out: {scores.games} games")
        click.echo(f"  deck evaluation   log loss {scores.log_loss:.4f}  Brier {scores.brier:.4f}")
        baseline = f"log loss {scores.starts_only_log_loss:.4f}  Brier {scores.starts_only_brier:.4f}"
        click.echo(f"  who starts alone  {baseline}")
        click.echo("  decile      n  predicted  observed")
        for row in scores.reliability["deciles"]:
            if row["n"]:
                where = f"{row['lo']:.1f}-{row['hi']:.1f}"
                click.echo(f"  {where} {row['n']:6d}  {row['predicted']:9.3f}  {row['observed']:8.3f}")
    click.echo(f"who starts: {model.weights[0]:+.3f}; card values (log-odds for the seat holding the card):")
    for cid, v in sorted(model.card_values().items(), key=lambda t: -t[1]):
        click.echo(f"  {cid:<13} {v:+.3f}")
