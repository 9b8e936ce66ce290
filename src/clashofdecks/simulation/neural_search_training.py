"""Training the network on ``neural-search``'s own targets (``clash train-neural --method search``;
docs/ai.md, "Training on the search's targets").

AlphaZero's loop on this game: both seats of a self-play duel are ``neural-search`` with the current
network (the play phase's PUCT search in the compiled core, :mod:`clashofdecks.agents.neural_search`);
for every play-phase decision with a choice the mover's observation, the root's visit shares and
(once the game is over) the mover's result (1 win, 0 loss, 1/2 draw) are kept.  The first
``temperature_moves`` play-phase decisions of each seat play an action drawn in proportion to its
visits instead of the most visited one (the exploration of AlphaZero's temperature); with
``root_noise`` every search's root prior is mixed with Dirichlet noise as well (AlphaZero's other
exploration; the agent at play has none).  The setup stage is searched with ``setup_iterations`` (it yields no
sample, and ``strongest``'s 1,500 would be most of a game's cost).

The learner (torch, one thread) starts from the shipped network (or ``start``) and fits the policy to
the visit shares (cross-entropy) and the first value head to the results (log loss) over the samples
of the last ``window`` iterations; each iteration writes a checkpoint that the next iteration's games
play with.  With ``freeze_trunk`` only the heads learn: the calibrated value head, which reads the
trunk, stays valid and is kept in the checkpoints (the search's value is then unchanged and only its
prior learns).  Without it the whole network learns and the checkpoints have no calibrated head (the
search then uses the first value head, trained here on the results).

A game's samples depend on the settings, the checkpoint and its deal (the seed) only, so the local
processes and the Ray tasks of :mod:`.neural_training` (``--backend local|ray``) give the same games.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..actions import ACTION_SPACE
from ..agents.neural import VALUE_TENSORS, NeuralModel, load_model
from ..formats import start_game
from ..game_loop import game_steps
from ..options import Ruleset
from ..rules import DecisionKind, Game
from .neural_training import Samples, SelfPlay, TrainingError, _arrays, _losses, _Net, held_out, import_torch
from .seeds import derive_seed


@dataclass(frozen=True, slots=True)
class SearchTrainSettings:
    """Everything one run depends on (written to ``out_dir/settings.json``)."""

    #: ``neural-search``'s play-phase iterations per decision, ``c`` and value share in self-play.
    search_iterations: int = 300
    c: float = 0.5  # the agent's default (docs/ai.md, "Tuning the network's search"; 1.5 before)
    value_weight: float = 0.5
    #: The setup stage's search iterations in self-play (no samples come from it).
    setup_iterations: int = 100
    #: Play-phase decisions per seat that sample the action by visit share (then: the most visited).
    temperature_moves: int = 8
    #: The share of Dirichlet(``noise_alpha``) noise in every self-play search's root prior (0: none).
    root_noise: float = 0.0
    noise_alpha: float = 1.0
    games_per_iteration: int = 40
    iterations: int = 100_000
    hours: float = 0.5
    epochs: int = 2
    batch: int = 256
    learning_rate: float = 3e-4
    weight_decay: float = 1e-4
    #: Iterations whose samples the learner keeps (a replay window).
    window: int = 4
    #: Train the heads only (the calibrated value head stays valid; module docstring).
    freeze_trunk: bool = True
    #: The starting network (``None``: the shipped one).
    start: str | None = None
    seed: int = 0
    max_turns: int = 200
    #: Games per self-play task.
    chunk: int = 2


def _player(settings: SearchTrainSettings, model_path: str | None, seed: int) -> Any:
    from ..agents.neural_search import NeuralSearchAgent

    return NeuralSearchAgent(
        seed,
        iterations=settings.search_iterations,
        c=settings.c,
        value_weight=settings.value_weight,
        model=model_path,
        setup_iterations=settings.setup_iterations,
        noise=settings.root_noise,
        noise_alpha=settings.noise_alpha,
    )


def _visit_shares(agent: Any) -> list[tuple[int, float]]:
    """The last play-phase search's root visit shares, ``[]`` if the last decision was not searched."""
    last = agent.last
    if last is None:
        return []
    stats = last[0].stats
    total = sum(v for _, v, _ in stats)
    return [(a, v / total) for a, v, _ in stats if a < ACTION_SPACE and v] if total else []


def search_selfplay_game(settings: SearchTrainSettings, model_path: str | None, seed: int) -> Samples:
    """One self-play duel of ``seed``: a sample per searched play-phase decision (module docstring)."""
    from ..encoding import encode_observation

    game: Game = start_game(
        mode="duel",
        format="draft",
        seed=seed,
        ruleset=Ruleset(max_turns=settings.max_turns),
        record_events=False,
    )
    agents = [_player(settings, model_path, derive_seed(seed, 7, s)) for s in (0, 1)]
    explore = random.Random(derive_seed(seed, 11))
    sampled = [0, 0]
    out = Samples()
    movers: list[int] = []

    def decide(game: Game) -> int:
        mover = game.current_player
        play = game.phase != "setup" and game.decision_kind is not DecisionKind.BUILD
        if not play or len(game.legal_actions()) < 2:
            return int(agents[mover].act(game))
        obs = encode_observation(game, mover).astype("<f2").tobytes()
        agents[mover].last = None
        action = int(agents[mover].act(game))
        shares = _visit_shares(agents[mover])
        if not shares:
            return action
        out.obs.append(obs)
        out.policy.append((tuple(a for a, _ in shares), tuple(p for _, p in shares)))
        out.seed.append(seed)
        movers.append(mover)
        if sampled[mover] < settings.temperature_moves:
            sampled[mover] += 1
            action = explore.choices([a for a, _ in shares], weights=[p for _, p in shares])[0]
        return action

    for _step in game_steps(game, [decide, decide]):
        pass
    winner = game.winner
    out.value = [0.5 if winner is None else float(winner == m) for m in movers]
    return out


def search_selfplay_chunk(
    settings: SearchTrainSettings, model_path: str | None, seeds: Sequence[int]
) -> Samples:
    """The games of ``seeds`` in order (module level: worker processes and Ray tasks import it)."""
    out = Samples()
    for seed in seeds:
        out.extend(search_selfplay_game(settings, model_path, seed))
    return out


def _start_net(torch: Any, start: NeuralModel, settings: SearchTrainSettings) -> _Net:
    from .neural_selfplay import net_from_model

    net = net_from_model(torch, start, settings.seed)
    if settings.freeze_trunk:
        for p in net.trunk.parameters():
            p.requires_grad_(False)
    return net


def _export(
    net: _Net, start: NeuralModel, settings: SearchTrainSettings, card: dict[str, Any]
) -> NeuralModel:
    model = net.export(card)
    if settings.freeze_trunk and start.has_value_head:
        # The trunk is the start's, so its calibrated value head still reads the same features.
        model = NeuralModel({**model.tensors, **{n: start.tensors[n] for n in VALUE_TENSORS}}, card)
    return model


def fit_search_targets(
    net: _Net, samples: Samples, settings: SearchTrainSettings, rng_seed: int
) -> dict[str, float]:
    """``epochs`` passes of Adam over the training samples (policy cross-entropy + value log loss);
    the held-out figures after (:func:`.neural_training._measure`)."""
    from .neural_training import _measure

    torch = net.torch
    obs, policy, value = (torch.from_numpy(a) for a in _arrays(samples, lambda s: not held_out(s)))
    params = [p for p in net.modules.parameters() if p.requires_grad]
    optimiser = getattr(net, "optimiser", None) or torch.optim.Adam(
        params, lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    net.optimiser = optimiser  # type: ignore[attr-defined]  # Adam's moments carry over iterations
    generator = torch.Generator().manual_seed(rng_seed)
    for _ in range(settings.epochs):
        order = torch.randperm(obs.shape[0], generator=generator)
        for first in range(0, obs.shape[0], settings.batch):
            idx = order[first : first + settings.batch]
            policy_loss, value_loss = _losses(net, obs[idx].float(), policy[idx], value[idx])
            optimiser.zero_grad()
            (policy_loss + value_loss).backward()
            optimiser.step()
    return _measure(net, samples)


def _seeds(settings: SearchTrainSettings, iteration: int) -> list[list[int]]:
    first = settings.seed + iteration * settings.games_per_iteration
    seeds = list(range(first, first + settings.games_per_iteration))
    return [seeds[i : i + settings.chunk] for i in range(0, len(seeds), settings.chunk)]


def _windowed(recent: list[Samples]) -> Samples:
    out = Samples()
    for part in recent:
        out.extend(part)
    return out


def train_on_search(
    settings: SearchTrainSettings,
    out_dir: Path,
    selfplay: SelfPlay,
    *,
    log: Callable[[dict[str, Any]], None] = lambda entry: None,
) -> Path:
    """Run the loop (module docstring); returns the last checkpoint.  Each iteration writes
    ``out_dir/iter-K.bin`` and ``latest.bin`` and a line of ``out_dir/log.jsonl``."""
    torch = import_torch()
    torch.set_num_threads(1)  # the cores play the games
    if settings.window < 1 or settings.games_per_iteration < 1 or settings.chunk < 1:
        raise TrainingError("window, games per iteration and chunk must be at least 1")
    start = load_model(None if settings.start is None else Path(settings.start))
    net = _start_net(torch, start, settings)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "settings.json").write_text(json.dumps(asdict(settings), indent=1) + "\n", encoding="utf-8")
    (out_dir / "log.jsonl").write_text("", encoding="utf-8")
    recent: list[Samples] = []
    clock = time.monotonic()
    player = settings.start  # the first iteration's games: the starting network itself
    latest = out_dir / "latest.bin"
    for iteration in range(settings.iterations):
        t0 = time.monotonic()
        fresh = Samples()
        for part in selfplay(settings, player, _seeds(settings, iteration)):
            fresh.extend(part)
        recent = [*recent, fresh][-settings.window :]
        selfplay_seconds = time.monotonic() - t0
        measured = fit_search_targets(net, _windowed(recent), settings, settings.seed + iteration)
        card = _card(settings, start, iteration, len(fresh), time.monotonic() - clock, measured)
        model = _export(net, start, settings, card)
        path = out_dir / f"iter-{iteration:03d}.bin"
        model.save(path)
        model.save(latest)
        player = str(path)
        entry = {"kind": "iteration", **card, "selfplay_seconds": round(selfplay_seconds, 1)}
        with (out_dir / "log.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        log(entry)
        if time.monotonic() - clock >= settings.hours * 3600:
            break
    return latest


def _card(
    settings: SearchTrainSettings,
    start: NeuralModel,
    iteration: int,
    samples: int,
    seconds: float,
    measured: dict[str, float],
) -> dict[str, Any]:
    return {
        "method": "search-targets",
        "command": 'clash train-neural --method search (docs/ai.md, "Training on the search\'s targets")',
        "started_from": start.card.get("method", "expert-iteration"),
        "iteration": iteration,
        "games": (iteration + 1) * settings.games_per_iteration,
        "samples": samples,
        "train_seconds": round(seconds, 1),
        "search_iterations": settings.search_iterations,
        "freeze_trunk": settings.freeze_trunk,
        "root_noise": settings.root_noise,
        **{k: round(v, 4) for k, v in measured.items()},
    }


__all__ = [
    "SearchTrainSettings",
    "fit_search_targets",
    "search_selfplay_chunk",
    "search_selfplay_game",
    "train_on_search",
]
