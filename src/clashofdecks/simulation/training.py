"""Training data and calibration for the learned evaluation (``clash train-eval``).

Positions come from game records (``clash simulate --records DIR`` or games this module plays with
:func:`generate_records`): each record is replayed and every decision where the player to move
had a choice becomes a position, labelled with that player's result (1 win, 0 loss, 1/2 draw).
Its features are :func:`clashofdecks.agents.evaluation.features` for the player to move, from
that player's view; in a duel the other seat gets a position too (its own view, its own result),
so the model also answers for a seat that is not to move (the chance after a move).  Held-out
positions are scored by the model, by the greedy heuristic's
logistic (the old cut-off value) and, on a subsample, by the search's rollout value (what ``hint``
reported before), so the three can be compared on the same positions.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..agents.evaluation import (
    LEVEL_STAGE2_RIDGE,
    SOLO_LEVEL_GROUPS,
    STAGE2_GROUPS,
    EvaluationModel,
    features,
    fit_logistic,
    stage2_group,
    stage2_inputs,
    stage2_mode,
)
from ..agents.greedy import evaluate
from ..agents.mcts import EVAL_SCALE_DUEL, EVAL_SCALE_SOLO, Search
from ..errors import ClashError
from ..options import Ruleset, Threat
from ..record import GameRecord, Replay
from ..rules import DecisionKind, Game
from .game import AUTOMATON, GameSpec
from .runner import LocalBackend, run_specs
from .seeds import derive_seed

#: Solo levels named in reports (R8.3); other threat allocations are "solo custom".
LEVELS = range(6)


@dataclass(frozen=True, slots=True)
class Position:
    """One training or held-out position."""

    x: list[float]
    #: The player to move's result: 1 win, 0 loss, 1/2 draw.
    y: float
    #: "duel", "solo 0" … "solo 5" or "solo custom".
    group: str
    phase: str
    turn: int
    #: The game it came from (a file path), to split by game.
    game: str
    #: The seat is the player to move (else: the duel opponent of the player to move, whose
    #: chance is also needed, e.g. after an ``end``).
    to_move: bool
    #: The old values for comparison: the heuristic's logistic, the search's rollout value (or -1).
    heuristic: float
    rollout: float = -1.0


def group_of(record: GameRecord) -> str:
    """The report group of a record: ``duel``, ``solo N`` for an R8.3 level, else ``solo custom``."""
    if record.mode != "solo":
        return "duel"
    threat = record.threat or Threat()
    for level in LEVELS:
        if threat == Threat.level(level):
            return f"solo {level}"
    return "solo custom"


def record_files(dirs: Iterable[Path]) -> list[Path]:
    """Every ``*.json`` record under ``dirs``, sorted (so runs are reproducible)."""
    out: list[Path] = []
    for d in dirs:
        if d.is_file():
            out.append(d)
        elif d.is_dir():
            out.extend(sorted(d.rglob("*.json")))
        else:
            raise ClashError(f"no such records folder: {d}")
    return out


def is_held_out(path: Path, fraction: float) -> bool:
    """A stable split by game: a file whose name hashes below ``fraction`` is held out."""
    return (zlib.crc32(str(path.name).encode() + str(path.parent.name).encode()) % 10_000) < fraction * 10_000


def heuristic_chance(game: Game, seat: int) -> float:
    """The old cut-off value: the greedy heuristic through the logistic scale of ``mcts``."""
    if game.phase == "setup":
        return 0.5
    scale = EVAL_SCALE_SOLO if game.is_solo else EVAL_SCALE_DUEL
    z = max(-50.0, min(50.0, evaluate(game, seat) / scale))
    return 1.0 / (1.0 + math.exp(-z))


def positions_of(
    path: Path,
    *,
    sample: float = 1.0,
    rng: random.Random | None = None,
    rollout_rate: float = 0.0,
    rollout_iterations: int = 200,
) -> Iterator[Position]:
    """The positions of the record at ``path`` where the player to move had a choice (each kept
    with probability ``sample``); with ``rollout_rate`` > 0, that fraction of them also gets the
    search's rollout value (``rollout_iterations`` iterations, default settings)."""
    rng = rng or random.Random(0)
    record = GameRecord.load(path)
    result = record.result or {}
    winner = result.get("winner")
    group = group_of(record)
    steps = Replay(record)
    game = steps.game
    for _step in steps:
        seat = game.current_player
        legal = game.legal_actions()
        if (game.decision_kind is DecisionKind.BUILD or len(legal) > 1) and rng.random() < sample:
            rollout = -1.0
            if rollout_rate > 0 and rng.random() < rollout_rate:
                res = Search().run(game, random.Random(rng.getrandbits(64)), iterations=rollout_iterations)
                rollout = res.win_chance
            for who in (seat,) if game.is_solo else (seat, 1 - seat):
                y = 0.5 if winner is None else (1.0 if winner == who else 0.0)
                yield Position(
                    features(game, who),
                    y,
                    group,
                    game.phase,
                    game.turn,
                    str(path),
                    who == seat,
                    heuristic_chance(game, who),
                    rollout if who == seat else -1.0,
                )


def generate_records(
    out: Path,
    *,
    agent: str = "greedy",
    duel_games: int = 0,
    solo_games: int = 0,
    seed: int = 0,
    workers: int | None = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Play ``duel_games`` draft duels of ``agent`` against itself and ``solo_games`` solo draft
    games per level 0-5, writing their records under ``out`` (one folder per group)."""
    folders: list[Path] = []
    jobs: list[tuple[str, int, Threat | None]] = []
    if duel_games:
        jobs.append(("duel", duel_games, None))
    if solo_games:
        jobs.extend((f"solo{level}", solo_games, Threat.level(level)) for level in LEVELS)
    for k, (name, games, threat) in enumerate(jobs):
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        mode = "duel" if threat is None else "solo"
        specs = []
        for i in range(games):
            game_seed = derive_seed(seed, k, i)
            participants = (agent, agent) if threat is None else (agent, AUTOMATON)
            specs.append(
                GameSpec(
                    index=i,
                    mode=mode,
                    format="draft",
                    seed=game_seed,
                    participants=participants,
                    agent_seeds=(derive_seed(game_seed, 0), derive_seed(game_seed, 1)),
                    ruleset=Ruleset(),
                    threat=threat,
                    records_dir=str(folder),
                )
            )
        if progress is not None:
            progress(f"{games} {name} games of {agent}")
        run_specs(specs, games=games, backend=LocalBackend.for_games(workers, games))
        folders.append(folder)
    return folders


def fit_model(
    positions: list[Position], fit: Callable[[list[list[float]], list[float]], list[float]]
) -> dict[str, tuple[float, ...]]:
    """Coefficients for ``duel`` and ``solo`` fitted on the positions of each mode."""
    coefs: dict[str, tuple[float, ...]] = {}
    for mode in ("duel", "solo"):
        rows = [p for p in positions if p.group.startswith(mode)]
        if not rows:
            raise ClashError(f"no {mode} positions to train on")
        coefs[mode] = tuple(fit([p.x for p in rows], [p.y for p in rows]))
    return coefs


def level_of(position: Position) -> int | None:
    """The R8.3 level of a solo position's game (its group ``solo N``), else None."""
    mode, _, level = position.group.partition(" ")
    return int(level) if mode == "solo" and level.isdigit() else None


def stage2_group_of(position: Position) -> str:
    """The second stage (``agents.evaluation.STAGE2_GROUPS``) that judges ``position``."""
    mode = "solo" if position.group.startswith("solo") else "duel"
    return stage2_group(mode, position.to_move, level_of(position))


def model_predictions(model: EvaluationModel, positions: Iterable[Position]) -> list[float]:
    return [
        model.probability(p.x, "solo" if p.group.startswith("solo") else "duel", p.to_move, level_of(p))
        for p in positions
    ]


def fit_first_stage(
    files: Iterable[Path], *, sample: float, rng: random.Random
) -> tuple[EvaluationModel, dict[str, int]]:
    """The learned evaluation's first stage (logistic regression per mode, ridge 1e-3) fitted on the
    positions of the games in ``files`` (each kept with probability ``sample``), and how many
    positions each mode had."""
    positions: list[Position] = []
    for f in files:
        positions.extend(positions_of(f, sample=sample, rng=rng))
    counts: dict[str, int] = {}
    for p in positions:
        mode = "solo" if p.group.startswith("solo") else "duel"
        counts[mode] = counts.get(mode, 0) + 1
    if not positions:
        raise ClashError("the training games have no positions to fit on")
    coefs = fit_model(positions, lambda xs, ys: fit_logistic(xs, ys))
    return EvaluationModel(coefs, {}), counts


def fit_second_stage(
    model: EvaluationModel, positions: list[Position], kept: set[str]
) -> tuple[EvaluationModel, dict[str, int]]:
    """``model`` with a second stage (a recalibration per group, :data:`STAGE2_GROUPS`) fitted on
    ``positions``; the groups in ``kept`` (``solo`` keeps every level too) keep ``model``'s own.
    Returns the model and how many positions each fitted group had."""
    stage2: dict[str, tuple[float, ...]] = {}
    counts: dict[str, int] = {}
    for group in STAGE2_GROUPS:
        if group in kept or (group in SOLO_LEVEL_GROUPS and "solo" in kept):
            if group in model.stage2:
                stage2[group] = model.stage2[group]
            continue
        mode = stage2_mode(group)
        if group == "solo":  # the fall-back for every allocation: fitted on all solo games
            rows = [p for p in positions if p.group.startswith("solo")]
        else:
            rows = [p for p in positions if stage2_group_of(p) == group]
        counts[f"{group} stage 2"] = len(rows)
        if rows:
            xs = [stage2_inputs(p.x, model.logit(p.x, mode)) for p in rows]
            # A level's stage sees a sixth of the solo games: a stronger ridge (docs/ai.md).
            ridge = LEVEL_STAGE2_RIDGE if group in SOLO_LEVEL_GROUPS else 1e-3
            stage2[group] = tuple(fit_logistic(xs, [p.y for p in rows], ridge=ridge))
    return EvaluationModel(model.coefficients, {}, stage2), counts


__all__ = [
    "Position",
    "fit_first_stage",
    "fit_model",
    "fit_second_stage",
    "generate_records",
    "group_of",
    "heuristic_chance",
    "is_held_out",
    "level_of",
    "model_predictions",
    "positions_of",
    "record_files",
    "stage2_group_of",
]
