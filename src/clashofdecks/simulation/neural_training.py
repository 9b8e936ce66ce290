"""Training the ``neural`` agent's network by self-play and search distillation (``clash train-neural``).

One iteration: play ``games`` draft duels in which both seats are the current player — the ISMCTS
teacher (``TrainSettings.teacher``) before any network exists, afterwards ``neural:N`` with the
latest weights (the same search with the network's policy as its root prior, docs/ai.md) — and
record at every decision with a choice the mover's observation, the search's root visit shares
(the policy target) and, once the game is over, the mover's result (1 win, 0 loss, 1/2 draw: the
value target).  Then fit the network on every sample so far (warm-started: Adam, policy
cross-entropy + value log loss; the games of every tenth seed held out to measure it), and write
a checkpoint.  Iterations repeat until the time budget or the iteration count runs out; a run
that is interrupted keeps its last checkpoint.

Self-play games run on a backend: ``local`` (a process pool of ``workers``) or ``ray`` (Ray tasks,
as ``clash simulate --backend ray``), one task per chunk of games; the results do not depend on the
backend.  torch is needed to fit (the ``train`` extra), numpy to play; Ray for ``--backend ray``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..actions import ACTION_SPACE
from ..agents.base import Agent
from ..agents.mcts import SearchResult
from ..agents.neural import NeuralModel, import_numpy
from ..agents.registry import make_agent
from ..errors import ClashError
from ..formats import start_game
from ..game_loop import game_steps
from ..options import Ruleset
from ..rules import DecisionKind, Game
from .runner import ignore_sigint
from .seeds import derive_seed


class TrainingError(ClashError):
    """A training run that cannot start (a missing dependency, bad settings)."""


@dataclass(frozen=True, slots=True)
class TrainSettings:
    """Everything one run depends on (written beside its checkpoints; the shipped run's are in docs/ai.md)."""

    teacher: str = "ismcts:iterations=300,cutoff=2,eval=learned,setup=learned"
    #: Search iterations of ``neural:N`` once a network exists (the self-play player).
    search_iterations: int = 300
    games_per_iteration: int = 40
    iterations: int = 100
    hours: float = 0.75
    hidden: int = 128
    epochs: int = 4
    batch: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    seed: int = 0
    format: str = "draft"
    #: A self-play game that reaches this turn is a draw (as ``clash arena --max-turns``): two weak
    #: policies can otherwise pass turns forever.
    max_turns: int = 200
    #: Games per self-play task (a chunk).
    chunk: int = 2


@dataclass(slots=True)
class Samples:
    """Self-play samples as lists (picklable, numpy-free until fitting)."""

    obs: list[bytes] = field(default_factory=list)
    policy: list[tuple[tuple[int, ...], tuple[float, ...]]] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    seed: list[int] = field(default_factory=list)

    def extend(self, other: Samples) -> None:
        self.obs += other.obs
        self.policy += other.policy
        self.value += other.value
        self.seed += other.seed

    def __len__(self) -> int:
        return len(self.value)


def _player(settings: TrainSettings, model_path: str | None, seed: int) -> Agent:
    if model_path is None:
        return make_agent(settings.teacher, seed)
    return make_agent(f"neural:iterations={settings.search_iterations},model={model_path}", seed)


def _last_search(agent: Agent) -> SearchResult | None:
    last = getattr(agent, "last", None)
    return last if isinstance(last, SearchResult) else None


def selfplay_game(settings: TrainSettings, model_path: str | None, seed: int) -> Samples:
    """One self-play duel of ``seed``: a sample per searched decision (module docstring)."""
    from ..encoding import encode_observation

    ruleset = Ruleset(max_turns=settings.max_turns)
    game: Game = start_game(
        mode="duel", format=settings.format, seed=seed, ruleset=ruleset, record_events=False
    )
    agents = [_player(settings, model_path, derive_seed(seed, 7, s)) for s in (0, 1)]
    for s, agent in enumerate(agents):
        agent.reset(derive_seed(seed, 7, s))
    out = Samples()
    movers: list[int] = []

    def decide(game: Game) -> int:
        """The mover's agent decides; a searched decision's position and visit shares are kept."""
        mover = game.current_player
        building = game.decision_kind is DecisionKind.BUILD
        obs = None if building else encode_observation(game, mover).astype("<f2").tobytes()
        action = agents[mover].act(game)
        result = _last_search(agents[mover])
        if obs is not None and result is not None and result.stats:
            total = sum(v for _, v, _ in result.stats)
            kept = [(a, v / total) for a, v, _ in result.stats if a < ACTION_SPACE and v]
            if kept:
                out.obs.append(obs)
                out.policy.append((tuple(a for a, _ in kept), tuple(p for _, p in kept)))
                out.seed.append(seed)
                movers.append(mover)
        return action

    for _step in game_steps(game, [decide, decide]):
        pass
    winner = game.winner
    out.value = [0.5 if winner is None else float(winner == m) for m in movers]
    return out


def selfplay_chunk(settings: TrainSettings, model_path: str | None, seeds: Sequence[int]) -> Samples:
    """The games of ``seeds`` in order (module level: worker processes and Ray tasks import it)."""
    out = Samples()
    for seed in seeds:
        out.extend(selfplay_game(settings, model_path, seed))
    return out


Chunks = Sequence[Sequence[int]]
#: Plays chunks of self-play games (seeds) with the settings and a checkpoint (None: the teacher).
#: (The settings are a :class:`TrainSettings` for :func:`selfplay_chunk`, or those of another ``play``
#: function: :mod:`.neural_search_training`.)
SelfPlay = Callable[[Any, str | None, Chunks], Iterator[Samples]]
#: Plays one chunk: ``(settings, model, seeds)`` to its samples (a module-level function: picklable).
PlayChunk = Callable[[Any, str | None, Sequence[int]], Samples]


def local_selfplay(workers: int, play: PlayChunk = selfplay_chunk) -> tuple[SelfPlay, Callable[[], None]]:
    """Self-play in this process (1 worker) or a pool of ``workers`` processes; and its closer."""
    if workers == 1:

        def inline(settings: Any, model: str | None, chunks: Sequence[Sequence[int]]) -> Iterator[Samples]:
            for chunk in chunks:
                yield play(settings, model, chunk)

        return inline, lambda: None
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(workers, initializer=ignore_sigint, initargs=(os.getpid(),))

    def pooled(settings: Any, model: str | None, chunks: Sequence[Sequence[int]]) -> Iterator[Samples]:
        pending = [pool.apply_async(play, (settings, model, chunk)) for chunk in chunks]
        for result in pending:
            yield result.get()

    def close() -> None:
        pool.terminate()
        pool.join()

    return pooled, close


def ray_selfplay(
    workers: int, address: str | None = None, play: PlayChunk = selfplay_chunk
) -> tuple[SelfPlay, Callable[[], None]]:
    """Self-play as Ray tasks (a local instance of ``workers`` CPUs, or the cluster at ``address``)."""
    from .game import SimulationError
    from .ray_backend import import_ray

    try:
        ray = import_ray()
    except SimulationError as exc:
        raise TrainingError(str(exc)) from None
    started = not ray.is_initialized()
    if started:
        try:
            if address is None:
                ray.init(
                    num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False
                )
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        except Exception as exc:  # Ray raises plain Exception when its node times out at start-up
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise TrainingError(f"could not start or join {where}: {exc}") from None
    remote = ray.remote(num_cpus=1, max_retries=3)(play)

    def on_ray(settings: Any, model: str | None, chunks: Sequence[Sequence[int]]) -> Iterator[Samples]:
        refs = [remote.remote(settings, model, list(chunk)) for chunk in chunks]
        for ref in refs:
            yield ray.get(ref)

    def close() -> None:
        if started:
            ray.shutdown()

    return on_ray, close


def held_out(seed: int) -> bool:
    """Every tenth game is held out (by seed), to measure the fit on games it never saw."""
    return seed % 10 == 9


def import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise TrainingError(
            "training the neural agent needs torch: pip install 'clashofdecks[train]'"
        ) from exc
    return torch


def _arrays(samples: Samples, keep: Callable[[int], bool]) -> tuple[Any, Any, Any]:
    """Observations, dense policy targets and value targets of the samples whose seed ``keep`` takes."""
    np_ = import_numpy()
    rows = [i for i, s in enumerate(samples.seed) if keep(s)]
    # float16 (half the memory; every feature is a small multiple of 1/10, 1/9, 1/12, 1/24 or 1/32):
    # widened to float32 batch by batch.
    obs = np_.stack([np_.frombuffer(samples.obs[i], dtype="<f2") for i in rows]) if rows else None
    policy = np_.zeros((len(rows), ACTION_SPACE), dtype=np_.float32)
    for r, i in enumerate(rows):
        actions, probs = samples.policy[i]
        policy[r, list(actions)] = probs
    value = np_.array([samples.value[i] for i in rows], dtype=np_.float32)
    return obs, policy, value


class _Net:
    """The torch twin of :class:`~clashofdecks.agents.neural.NeuralModel` (the same tensors)."""

    def __init__(self, torch: Any, inputs: int, hidden: int, seed: int) -> None:
        torch.manual_seed(seed)
        nn = torch.nn
        self.torch = torch
        self.trunk = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.policy = nn.Linear(hidden, ACTION_SPACE)
        self.value = nn.Linear(hidden, 1)
        self.modules = nn.ModuleList([self.trunk, self.policy, self.value])

    def __call__(self, x: Any) -> tuple[Any, Any]:
        h = self.trunk(x)
        return self.policy(h), self.value(h)[:, 0]

    def export(self, card: dict[str, Any]) -> NeuralModel:
        np_ = import_numpy()

        def t(layer: Any) -> tuple[Any, Any]:
            w = layer.weight.detach().numpy().T.astype(np_.float32)
            return np_.ascontiguousarray(w), layer.bias.detach().numpy().astype(np_.float32)

        (w1, b1), (w2, b2) = t(self.trunk[0]), t(self.trunk[2])
        (wp, bp), (wv, bv) = t(self.policy), t(self.value)
        return NeuralModel(
            {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "wp": wp, "bp": bp, "wv": wv, "bv": bv}, card
        )


def _losses(net: _Net, obs: Any, policy: Any, value: Any) -> tuple[Any, Any]:
    torch = net.torch
    logits, v = net(obs)
    # Illegal actions never carry target mass; masking them out of the softmax is not needed for the
    # target's cross-entropy, and the agent masks at play time.
    policy_loss = -(policy * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(v, value)
    return policy_loss, value_loss


def fit(net: _Net, samples: Samples, settings: TrainSettings, rng_seed: int) -> dict[str, float]:
    """A few epochs of Adam over the training samples; the held-out losses and agreement after."""
    torch = net.torch
    train = [torch.from_numpy(a) for a in _arrays(samples, lambda s: not held_out(s))]
    optimiser = torch.optim.Adam(
        net.modules.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    generator = torch.Generator().manual_seed(rng_seed)
    n = train[0].shape[0]
    for _ in range(settings.epochs):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, settings.batch):
            idx = order[start : start + settings.batch]
            policy_loss, value_loss = _losses(net, train[0][idx].float(), train[1][idx], train[2][idx])
            optimiser.zero_grad()
            (policy_loss + value_loss).backward()
            optimiser.step()
    return _measure(net, samples)


def _measure(net: _Net, samples: Samples) -> dict[str, float]:
    """Held-out policy cross-entropy, agreement with the search's choice, value log loss."""
    torch = net.torch
    obs, policy, value = _arrays(samples, held_out)
    if obs is None:
        return {}
    with torch.no_grad():
        o, p, v = torch.from_numpy(obs).float(), torch.from_numpy(policy), torch.from_numpy(value)
        policy_loss, value_loss = _losses(net, o, p, v)
        logits, _ = net(o)
        masked = torch.where(p > 0, logits, torch.full_like(logits, -1e9))
        agree = (masked.argmax(dim=1) == p.argmax(dim=1)).float().mean()
    return {
        "heldout_positions": float(obs.shape[0]),
        "heldout_policy_loss": float(policy_loss),
        "heldout_agreement": float(agree),
        "heldout_value_logloss": float(value_loss),
    }


def _chunks(settings: TrainSettings, iteration: int) -> list[list[int]]:
    first = settings.seed + iteration * settings.games_per_iteration
    seeds = list(range(first, first + settings.games_per_iteration))
    return [seeds[i : i + settings.chunk] for i in range(0, len(seeds), settings.chunk)]


def train(
    settings: TrainSettings,
    out_dir: Path,
    selfplay: SelfPlay,
    *,
    log: Callable[[dict[str, Any]], None] = lambda entry: None,
) -> Path:
    """Run the training loop (module docstring); returns the last checkpoint.  Each iteration
    writes ``out_dir/iter-K.bin`` and ``out_dir/latest.bin`` and appends a line to ``out_dir/log.jsonl``."""
    from ..encoding import OBSERVATION_LAYOUT

    torch = import_torch()
    import_numpy()
    torch.set_num_threads(1)  # the machine's cores play the self-play games
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "settings.json").write_text(json.dumps(asdict(settings), indent=1) + "\n", encoding="utf-8")
    net = _Net(torch, OBSERVATION_LAYOUT.size, settings.hidden, settings.seed)
    samples = Samples()
    start = time.monotonic()
    latest: Path | None = None
    player: Path | None = None  # the checkpoint the self-play games use (never rewritten)
    for iteration in range(settings.iterations):
        t0 = time.monotonic()
        for chunk_samples in selfplay(
            settings, None if player is None else str(player), _chunks(settings, iteration)
        ):
            samples.extend(chunk_samples)
        selfplay_seconds = time.monotonic() - t0
        measured = fit(net, samples, settings, settings.seed + iteration)
        card = _card(settings, iteration, len(samples), time.monotonic() - start, measured)
        latest = out_dir / "latest.bin"
        model = net.export(card)
        player = out_dir / f"iter-{iteration:03d}.bin"
        model.save(player)
        model.save(latest)
        entry = {**card, "selfplay_seconds": round(selfplay_seconds, 1)}
        with (out_dir / "log.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        log(entry)
        if time.monotonic() - start >= settings.hours * 3600:
            break
    if latest is None:
        raise TrainingError("no iteration ran")
    return latest


def _card(
    settings: TrainSettings, iteration: int, samples: int, seconds: float, measured: dict[str, float]
) -> dict[str, Any]:
    return {
        "iteration": iteration,
        "games": (iteration + 1) * settings.games_per_iteration,
        "samples": samples,
        "training_seconds": round(seconds, 1),
        "teacher": settings.teacher,
        "search_iterations": settings.search_iterations,
        "hidden": settings.hidden,
        "command": "clash train-neural (docs/ai.md, 'The neural agent')",
        **{k: (round(v, 4) if math.isfinite(v) else None) for k, v in measured.items()},
    }


def _noting_win_chance(
    agents: Sequence[Agent], chance: Callable[[Game, int], float], rows: list[tuple[float, int]]
) -> Callable[[Game], int]:
    """A decider for both seats: the mover's agent decides, and where there is a choice the
    network's win chance for the mover is noted in ``rows`` first."""

    def decide(game: Game) -> int:
        mover = game.current_player
        if game.decision_kind is not DecisionKind.BUILD and len(game.legal_actions()) > 1:
            rows.append((chance(game, mover), mover))
        return agents[mover].act(game)

    return decide


def value_calibration(
    model_path: str | None, games: int, *, seed: int = 200_000, agent: str = "greedy"
) -> list[dict[str, float]]:
    """The value head by decile: over every decision with a choice in ``games`` draft duels of
    ``agent`` against itself (deals ``seed``, ``seed + 1``, … — far from the training deals), the
    network's win chance for the player to move against how often that player won.  Each row:
    ``n``, ``predicted`` (mean), ``observed`` (win rate, a draw counting 1/2)."""
    from ..agents.neural import load_model, shipped_model, win_chance

    model = shipped_model() if model_path is None else load_model(Path(model_path))
    pairs: list[tuple[float, int]] = []
    for deal in range(seed, seed + games):
        game: Game = start_game(
            mode="duel", format="draft", seed=deal, ruleset=Ruleset(max_turns=200), record_events=False
        )
        agents = [make_agent(agent, derive_seed(deal, 7, s)) for s in (0, 1)]
        rows: list[tuple[float, int]] = []
        decide = _noting_win_chance(agents, lambda g, mover: win_chance(g, mover, model), rows)
        for _step in game_steps(game, [decide, decide]):
            pass
        winner = game.winner
        pairs += [(p, 1 if winner == m else 0) if winner is not None else (p, -1) for p, m in rows]
    pairs.sort()
    table: list[dict[str, float]] = []
    for k in range(10):
        part = pairs[k * len(pairs) // 10 : (k + 1) * len(pairs) // 10]
        if part:
            observed = sum(0.5 if won < 0 else won for _, won in part) / len(part)
            predicted = sum(p for p, _ in part) / len(part)
            table.append({"n": len(part), "predicted": round(predicted, 3), "observed": round(observed, 3)})
    return table


__all__ = [
    "Samples",
    "TrainSettings",
    "TrainingError",
    "held_out",
    "local_selfplay",
    "ray_selfplay",
    "selfplay_chunk",
    "selfplay_game",
    "train",
    "value_calibration",
]
