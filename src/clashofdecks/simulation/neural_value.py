"""The ``neural`` agent's value head: positions with outcomes, the fit, and the calibration table.

The value head answers "what is the chance that the player to move wins?" for a duel and for a
solo game at each R8.3 level 0–5.  Its training data are positions of games played by
:data:`VALUE_AGENT` (the search ``neural:N`` runs: the ``strongest`` settings at a self-play budget),
so its chances are those of that kind of play.  Each position is recorded with

* ``obs``: the encoder's observation of the player to move (float16, R9: its view only);
* ``features``: the learned logistic evaluation's 37 features of that seat and ``z``, that
  evaluation's logit for it (``agents/evaluation.py``: the same public information);
* ``context``: 0 for a duel, 1 + level for solo level 0–5 (:data:`CONTEXTS`);
* ``won``: 1 if the player to move won, 0 if it lost, 1/2 for a draw; ``game``: the deal's seed.

Games are split by seed: a deal whose seed is ≡ 7, 8 or 9 mod 10 is held out (never fitted).
:func:`calibration_table` gives the held-out table by decile per context (``clash neural-value``).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..agents.base import Agent
from ..agents.evaluation import FEATURES, Reliability, gap_intervals, reliability_table
from ..agents.neural import CONTEXTS, N_CONTEXTS, NeuralModel, import_numpy, value_inputs
from ..agents.registry import make_agent
from ..game_loop import play_out
from ..options import LEVELS, Ruleset
from ..rules import DecisionKind, Game
from .runner import ignore_sigint
from .seeds import derive_seed

#: The player whose games the value head learns: ``neural:N``'s search (``strongest``'s settings).
VALUE_AGENT: Final = "ismcts:iterations=100,cutoff=2,eval=learned,setup=learned"
#: Seeds of the value data: far from the self-play deals (0…) and the calibration duels of
#: ``value_calibration`` (200,000…).
VALUE_SEED_BASE: Final = 300_000


@dataclass(slots=True)
class ValueSamples:
    """Positions with outcomes as plain lists (picklable, numpy-free until fitting)."""

    obs: list[bytes] = field(default_factory=list)
    features: list[tuple[float, ...]] = field(default_factory=list)
    z: list[float] = field(default_factory=list)
    context: list[int] = field(default_factory=list)
    won: list[float] = field(default_factory=list)
    game: list[int] = field(default_factory=list)

    def extend(self, other: ValueSamples) -> None:
        for name in ("obs", "features", "z", "context", "won", "game"):
            getattr(self, name).extend(getattr(other, name))

    def __len__(self) -> int:
        return len(self.won)


def start_value_game(context: int, seed: int) -> Game:
    """The draft game of ``context`` (:data:`CONTEXTS`) on deal ``seed``."""
    from ..formats import start_game

    ruleset = Ruleset(max_turns=200)
    if context == 0:
        return start_game(mode="duel", format="draft", seed=seed, ruleset=ruleset, record_events=False)
    threat = LEVELS[context - 1]
    return start_game(
        mode="solo", format="draft", seed=seed, ruleset=ruleset, threat=threat, record_events=False
    )


def value_game(context: int, seed: int, agent: str = VALUE_AGENT) -> ValueSamples:
    """One game of ``agent`` (both duel seats) on deal ``seed``: a sample per decision with a choice."""
    from ..encoding import encode_observation

    game = start_value_game(context, seed)
    seats = 1 if game.is_solo else 2
    out = ValueSamples()
    movers: list[int] = []

    def sampled(agent: Agent) -> Callable[[Game], int]:
        """``agent``'s decision, after a sample of the position when it is a choice."""

        def decide(position: Game) -> int:
            mover = position.current_player
            if position.decision_kind is not DecisionKind.BUILD and len(position.legal_actions()) > 1:
                x, z = value_inputs(position, mover)
                out.obs.append(encode_observation(position, mover).astype("<f2").tobytes())
                out.features.append(tuple(x))
                out.z.append(z)
                movers.append(mover)
            return agent.act(position)

        return decide

    play_out(game, [sampled(make_agent(agent, derive_seed(seed, 11, s))) for s in range(seats)])
    winner = game.winner
    out.won = [0.5 if winner is None else float(winner == m) for m in movers]
    out.context = [context] * len(movers)
    out.game = [seed] * len(movers)
    return out


def value_chunk(jobs: Sequence[tuple[int, int]], agent: str = VALUE_AGENT) -> ValueSamples:
    """The games ``(context, seed)`` in order (module level: worker processes import it)."""
    out = ValueSamples()
    for context, seed in jobs:
        out.extend(value_game(context, seed, agent))
    return out


def value_jobs(games_per_context: int, first: int = 0) -> list[tuple[int, int]]:
    """``(context, seed)`` of the value data, contexts interleaved so that any prefix is balanced."""
    return [
        (c, VALUE_SEED_BASE + 10_000 * c + g)
        for g in range(first, first + games_per_context)
        for c in range(N_CONTEXTS)
    ]


#: Games per context in one data file (a block: ``block-FIRST.npz``, contexts interleaved).
VALUE_BLOCK: Final = 20


def value_block(path: Path, first: int, games: int, agent: str = VALUE_AGENT) -> int:
    """Play the block of ``games`` per context from game ``first`` and write it to ``path``."""
    samples = value_chunk(value_jobs(games, first), agent)
    save_samples(samples, path)
    return len(samples)


def generate_value_data(
    out_dir: Path,
    games_per_context: int,
    workers: int = 1,
    *,
    agent: str = VALUE_AGENT,
    block: int = VALUE_BLOCK,
    log: Callable[[str], None] = lambda line: None,
) -> list[Path]:
    """Play ``games_per_context`` games in every context, block by block (files already written are
    kept: an interrupted run resumes), in this process or a pool of ``workers``; the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    todo = []
    for first in range(0, games_per_context, block):
        path = out_dir / f"block-{first:06d}.npz"
        if not path.exists():
            todo.append((path, first, min(block, games_per_context - first)))
    if workers == 1:
        for path, first, games in todo:
            log(f"{path.name}: {value_block(path, first, games, agent)} positions")
    else:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(workers, initializer=ignore_sigint, initargs=(os.getpid(),)) as pool:
            pending = [(job[0], pool.apply_async(value_block, (*job, agent))) for job in todo]
            for path, result in pending:
                log(f"{path.name}: {result.get()} positions")
    return sorted(out_dir.glob("block-*.npz"))


def save_samples(samples: ValueSamples, path: Path) -> None:
    """Write samples as a numpy ``.npz`` file (float16 observations)."""
    np_ = import_numpy()
    np_.savez_compressed(
        path,
        obs=np_.frombuffer(b"".join(samples.obs), dtype="<f2").reshape(len(samples), -1),
        features=np_.array(samples.features, dtype=np_.float32).reshape(len(samples), -1),
        z=np_.array(samples.z, dtype=np_.float32),
        context=np_.array(samples.context, dtype=np_.int8),
        won=np_.array(samples.won, dtype=np_.float32),
        game=np_.array(samples.game, dtype=np_.int64),
    )


def load_samples(paths: Sequence[Path], model: NeuralModel) -> dict[str, Any]:
    """The arrays of several ``.npz`` files of :func:`save_samples`, concatenated, with the
    observations replaced by ``model``'s trunk's hidden layer (``hidden``: what the value head reads)."""
    np_ = import_numpy()
    if not paths:
        raise ValueError("no value data files")
    out: dict[str, list[Any]] = {k: [] for k in ("hidden", "features", "z", "context", "won", "game")}
    for path in paths:
        with np_.load(path) as part:
            out["hidden"].append(hidden_of(model, part["obs"]))
            for k in ("features", "z", "context", "won", "game"):
                out[k].append(part[k])
    return {k: np_.concatenate(v) for k, v in out.items()}


def held_out_mask(games: Any) -> Any:
    """Which rows belong to held-out deals: three in ten (seed ≡ 7, 8, 9 mod 10), for ≥ 200
    positions in every decile of every context in the calibration table."""
    return games % 10 >= 7


#: The value head's hidden units, epochs (the best on the validation deals is kept), batch, step.
VALUE_HIDDEN: Final = 32
VALUE_EPOCHS: Final = 20
VALUE_BATCH: Final = 1024
VALUE_LEARNING_RATE: Final = 1e-3
VALUE_WEIGHT_DECAY: Final = 1e-4


def hidden_of(model: NeuralModel, obs: Any, block: int = 4096) -> Any:
    """The trunk's hidden layer for float16 observations, block by block (float32 only per block)."""
    np_ = import_numpy()
    parts = [model.hidden(obs[i : i + block].astype(np_.float32)) for i in range(0, len(obs), block)]
    return np_.concatenate(parts) if parts else np_.zeros((0, model.tensors["b2"].shape[0]), np_.float32)


def _head_inputs(torch: Any, data: dict[str, Any], rows: Any, mean: Any, std: Any) -> tuple[Any, ...]:
    """The value head's input rows (as :meth:`NeuralModel.value_logit` joins them), ``z``, the
    context and the outcome, as torch tensors."""
    np_ = import_numpy()
    xs = (data["features"][rows] - mean) / std
    z = data["z"][rows][:, None]
    onehot = np_.eye(N_CONTEXTS, dtype=np_.float32)[data["context"][rows].astype(np_.int64)]
    u = np_.concatenate([data["hidden"][rows], xs, z, onehot], axis=1).astype(np_.float32)
    return (
        torch.from_numpy(u),
        torch.from_numpy(data["z"][rows].astype(np_.float32)),
        torch.from_numpy(data["context"][rows].astype(np_.int64)),
        torch.from_numpy(data["won"][rows].astype(np_.float32)),
    )


def fit_value_head(
    model: NeuralModel,
    data: dict[str, Any],
    *,
    hidden: int = VALUE_HIDDEN,
    epochs: int = VALUE_EPOCHS,
    seed: int = 0,
) -> tuple[NeuralModel, dict[str, float]]:
    """``model`` with a calibrated value head (:data:`~clashofdecks.agents.neural.VALUE_TENSORS`)
    fitted on the rows of ``data`` (:func:`load_samples`, plus ``hidden``: :func:`hidden_of`) that are
    not held out; deals ≡ 6 mod 10 are its validation set (the epoch with the lowest validation log
    loss is kept).  The trunk and the policy are unchanged.  Returns the model and the fit's figures."""
    from .neural_training import import_torch

    np_ = import_numpy()
    torch = import_torch()
    torch.manual_seed(seed)
    games = data["game"]
    fit_rows = np_.flatnonzero(games % 10 <= 5)
    val_rows = np_.flatnonzero(games % 10 == 6)
    if len(fit_rows) == 0 or len(val_rows) == 0:
        raise ValueError("the value data needs deals of both the fitting and the validation sets")
    mean = data["features"][fit_rows].mean(axis=0)
    std = np_.maximum(data["features"][fit_rows].std(axis=0), 1e-3)

    fit_t, val_t = (_head_inputs(torch, data, rows, mean, std) for rows in (fit_rows, val_rows))
    width = fit_t[0].shape[1]
    p = {
        "vw1": torch.nn.Parameter(torch.randn(width, hidden) * 0.01),
        "vb1": torch.nn.Parameter(torch.zeros(hidden)),
        "vw2": torch.nn.Parameter(torch.zeros(hidden, 1)),
        "vb2": torch.nn.Parameter(torch.zeros(1)),
        "va": torch.nn.Parameter(torch.zeros(N_CONTEXTS)),
        "vk": torch.nn.Parameter(torch.ones(N_CONTEXTS)),
    }

    def logits(u: Any, z: Any, c: Any) -> Any:
        h = torch.relu(u @ p["vw1"] + p["vb1"])
        return (h @ p["vw2"] + p["vb2"])[:, 0] + p["va"][c] + p["vk"][c] * z

    def loss(t: tuple[Any, ...]) -> Any:
        return torch.nn.functional.binary_cross_entropy_with_logits(logits(t[0], t[1], t[2]), t[3])

    optimiser = torch.optim.Adam(list(p.values()), lr=VALUE_LEARNING_RATE, weight_decay=VALUE_WEIGHT_DECAY)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        best = (float(loss(val_t)), -1, {k: v.detach().clone() for k, v in p.items()})
    n = fit_t[0].shape[0]
    for epoch in range(epochs):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, VALUE_BATCH):
            idx = order[start : start + VALUE_BATCH]
            optimiser.zero_grad()
            loss(tuple(t[idx] for t in fit_t)).backward()
            optimiser.step()
        with torch.no_grad():
            current = float(loss(val_t))
        if current < best[0]:
            best = (current, epoch, {k: v.detach().clone() for k, v in p.items()})
    head = {k: v.numpy().astype(np_.float32) for k, v in best[2].items()}
    head["vmean"], head["vstd"] = mean.astype(np_.float32), std.astype(np_.float32)
    figures = {
        "value_fit_positions": float(len(fit_rows)),
        "value_validation_positions": float(len(val_rows)),
        "value_validation_logloss": round(best[0], 4),
        "value_best_epoch": float(best[1] + 1),
    }
    card = {**model.card, **figures, "value_hidden": hidden}
    return NeuralModel({**model.tensors, **head}, card), figures


def predictions(model: NeuralModel, data: dict[str, Any], rows: Any) -> dict[str, Any]:
    """The win chances of ``rows`` by the calibrated value head (``network``), the first value head
    (``first head``) and the logistic evaluation (``logistic``)."""
    np_ = import_numpy()
    h = data["hidden"][rows]
    out: dict[str, Any] = {"logistic": 1.0 / (1.0 + np_.exp(-data["z"][rows]))}
    t = model.tensors
    out["first head"] = 1.0 / (1.0 + np_.exp(-(h @ t["wv"] + t["bv"])[:, 0]))
    if model.has_value_head:
        logit = model.value_logit(
            h, data["features"][rows], data["z"][rows], data["context"][rows].astype(np_.int64)
        )
        out["network"] = 1.0 / (1.0 + np_.exp(-logit))
    return out


_SETUP: Final = FEATURES.index("setup")
#: The calibration check of the issue: every bin with at least this many held-out positions …
MIN_BIN_POSITIONS: Final = 200
#: … within this many points of its observed win rate.
TOLERANCE: Final = 0.05


@dataclass(frozen=True, slots=True)
class ContextCalibration:
    """One context's held-out calibration by predictor: the reliability table (ten equal-width bins,
    as the learned evaluation's check, ``agents/evaluation.py``) and, for bins of at least
    :data:`MIN_BIN_POSITIONS` positions, a 95 % interval of the gap resampling whole games."""

    games: int
    tables: dict[str, Reliability]
    intervals: dict[str, list[tuple[float, float] | None]]


def calibration_table(
    model: NeuralModel, data: dict[str, Any], *, resamples: int = 200
) -> dict[str, ContextCalibration]:
    """Per context (:data:`CONTEXTS`), each predictor's (:func:`predictions`) held-out calibration
    over the play phase's positions: as the learned evaluation's check (``clash train-eval``), the
    setup's positions are left out — in a context they all share one logistic input (only the
    ``setup`` flags), so a bin of them is really one bet per game."""
    np_ = import_numpy()
    held = held_out_mask(data["game"]) & (data["features"][:, _SETUP] == 0)
    out: dict[str, ContextCalibration] = {}
    for c, name in enumerate(CONTEXTS):
        rows = np_.flatnonzero(held & (data["context"] == c))
        if len(rows) == 0:
            continue
        won = data["won"][rows].tolist()
        games = [str(g) for g in data["game"][rows].tolist()]
        tables: dict[str, Reliability] = {}
        intervals: dict[str, list[tuple[float, float] | None]] = {}
        for predictor, p in predictions(model, data, rows).items():
            chances = np_.clip(p.astype(np_.float64), 0.0, 1.0).tolist()
            tables[predictor] = reliability_table(chances, won)
            intervals[predictor] = gap_intervals(chances, won, games, resamples=resamples)
        out[name] = ContextCalibration(len(set(games)), tables, intervals)
    return out


def format_calibration(table: dict[str, ContextCalibration]) -> str:
    """The table as text: per context and predictor, every bin's predicted/observed win rate in %
    (its positions), the largest gap in points among the bins of ≥ 200 positions and whether all of
    those are within 5 points; for the network, each checked bin's 95 % interval of the gap."""
    lines = []
    for context, cal in table.items():
        n = next(iter(cal.tables.values())).n
        lines.append(f"{context}: {n} held-out play positions, {cal.games} games")
        for predictor, rel in cal.tables.items():
            big = [r for r in rel.rows if r.n >= MIN_BIN_POSITIONS]
            gap = max((abs(r.gap) for r in big), default=0.0)
            verdict = "within" if rel.within(TOLERANCE, MIN_BIN_POSITIONS) and big else "NOT within"
            cells = " ".join(
                f"{100 * r.predicted:.1f}/{100 * r.observed:.1f}({r.n})" for r in rel.rows if r.n
            )
            lines.append(
                f"  {predictor:>10}: largest gap {100 * gap:4.1f} in {len(big)} bins of >= "
                f"{MIN_BIN_POSITIONS} ({verdict} +-{100 * TOLERANCE:.0f}); Brier {rel.brier:.4f}; {cells}"
            )
            if predictor == "network":
                spans = [
                    f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"
                    for r, iv in zip(rel.rows, cal.intervals[predictor], strict=True)
                    if r.n >= MIN_BIN_POSITIONS and iv is not None
                    for lo, hi in (iv,)
                ]
                lines.append(
                    f"  {'':>10}  95 % intervals of the checked bins' gaps (by game): {' '.join(spans)}"
                )
    return "\n".join(lines)


__all__ = [
    "CONTEXTS",
    "N_CONTEXTS",
    "VALUE_AGENT",
    "ValueSamples",
    "load_samples",
    "save_samples",
    "value_chunk",
    "value_game",
    "value_jobs",
]
