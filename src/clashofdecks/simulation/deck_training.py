"""Training data and measurement for the deck evaluation (``clash train-decks``, docs/ai.md).

A training game is a duel record replayed to the end of its setup: each seat's cards, who starts
and the result (:class:`~clashofdecks.agents.deck_evaluation.DeckGame`).  Games are generated as
draft duels whose setup choices are random (the agent setting ``setup=random``: varied decks, every
card with every other) and whose play is the given agent's self-play: the model then values a
deck as that agent plays it.  The ridge is chosen by 5-fold cross-validation by game; held-out
games (a stable split by file name) measure the model beside a model of who starts alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents.deck_evaluation import DeckGame, DeckModel, decks_at_first_turn, fit_deck_model, starts_feature
from ..agents.evaluation import fit_logistic, logistic, reliability_table
from ..agents.registry import make_agent
from ..errors import ClashError
from ..record import GameRecord, Replay
from .training import generate_records, record_files

#: The ridges cross-validation chooses from (``fit_logistic``'s penalty per game).
RIDGES: tuple[float, ...] = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
FOLDS = 5


def random_setup_spec(agent: str) -> str:
    """``agent`` with the setting ``setup=random`` (a search agent's spec; checked)."""
    spec = f"{agent},setup=random" if ":" in agent else f"{agent}:setup=random"
    make_agent(spec)  # a clear AgentSpecError for an agent without the setting
    return spec


def deck_game_of(path: Path) -> DeckGame | None:
    """The training game in the record at ``path``; None for a record that is not a finished duel
    with a setup stage (solo, a game from a position, an unfinished or resigned game)."""
    try:
        record = GameRecord.load(path)
        result = record.result or {}
        if record.mode != "duel" or record.format == "position" or "winner" not in result:
            return None
        if result.get("termination") in ("resigned", "time"):
            return None
        steps = Replay(record)
        game = steps.game
        for _step in steps:
            if game.phase != "setup":
                break
        if game.phase == "setup":
            return None
        winner = result["winner"]
        if winner not in (0, 1, "draw"):
            raise ClashError(f"unknown winner {winner!r}")
        return DeckGame(decks_at_first_turn(game), game.active, None if winner == "draw" else winner)
    except (ClashError, ValueError) as exc:
        raise ClashError(f"{path}: {exc}") from None


def generate_deck_records(
    out: Path,
    *,
    agent: str,
    games: int,
    seed: int = 0,
    workers: int | None = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Play ``games`` draft duels of ``agent`` against itself, setup choices at random, writing
    their records under ``out``; the record files."""
    folders = generate_records(
        out, agent=random_setup_spec(agent), duel_games=games, seed=seed, workers=workers, progress=progress
    )
    return record_files(folders)


def cross_validate(games: Sequence[DeckGame], ridges: Sequence[float] = RIDGES) -> dict[float, float]:
    """Mean log loss of out-of-fold predictions (game i in fold i mod 5) for each ridge."""
    if len(games) < FOLDS:
        raise ClashError(f"cross-validation needs at least {FOLDS} games, not {len(games)}")
    out: dict[float, float] = {}
    for ridge in ridges:
        predicted, labels = [], []
        for k in range(FOLDS):
            model = fit_deck_model([g for i, g in enumerate(games) if i % FOLDS != k], ridge)
            for g in games[k::FOLDS]:
                predicted.append(model.win_chance(g.decks, g.starter, 0))
                labels.append(g.label)
        out[ridge] = reliability_table(predicted, labels).log_loss
    return out


@dataclass(frozen=True, slots=True)
class DeckScores:
    """The model and the who-starts-only model on held-out games."""

    games: int
    log_loss: float
    brier: float
    starts_only_log_loss: float
    starts_only_brier: float
    reliability: dict[str, Any]


def measure(model: DeckModel, train: Sequence[DeckGame], held_out: Sequence[DeckGame]) -> DeckScores:
    """Held-out log loss and Brier score of ``model``, beside who starts alone (fitted on ``train``),
    and the reliability table (seat 0's predicted chance against its result, by decile)."""
    if not held_out:
        raise ClashError("no held-out games to measure the deck evaluation on")
    starts = fit_logistic([[starts_feature(g.starter)] for g in train], [g.label for g in train])
    labels = [g.label for g in held_out]
    model_table = reliability_table([model.win_chance(g.decks, g.starter, 0) for g in held_out], labels)
    starts_table = reliability_table(
        [logistic(starts[0] * starts_feature(g.starter)) for g in held_out], labels
    )
    return DeckScores(
        games=len(held_out),
        log_loss=model_table.log_loss,
        brier=model_table.brier,
        starts_only_log_loss=starts_table.log_loss,
        starts_only_brier=starts_table.brier,
        reliability=model_table.to_dict(),
    )


__all__ = [
    "RIDGES",
    "DeckScores",
    "cross_validate",
    "deck_game_of",
    "generate_deck_records",
    "measure",
    "random_setup_spec",
]
