"""Self-play reinforcement learning of the ``neural`` network on the batched environment
(``clash train-neural --method selfplay``; docs/ai.md, "Self-play on the batch").

PPO with the search's policy as the anchor: training starts from a network whose policy was
distilled from the ISMCTS search (the expert-iteration run of :mod:`.neural_training`).  ``games``
duels are played at once in :class:`~clashofdecks.envs.selfplay.SelfPlayBatch` rows, cut into
``shards`` (a worker plays whole shards); both seats of every game are the current network (numpy
inference: one forward pass for all rows of a shard, an action sampled from the masked softmax).  A
rollout advances every row ``steps`` decisions; each decision with a choice is kept (observation,
mask, action, log-probability, value, mover) and, once its game is over, gets the mover's result (1
win, 0 loss, 1/2 draw: the return, gamma = 1) and the advantage result - value.  A game still on
when the rollout ends keeps its decisions for the next rollout.  The learner (torch, one CPU
thread) then takes a few epochs of the PPO clipped policy loss + value log loss - an entropy bonus
+ a KL penalty toward the starting network's policy (which keeps the policy near the search it was
distilled from: the stand-in for a distillation term, as the expert-iteration samples are not
kept).

The samples depend on the settings, the seed and the weights only: a shard's games and its
sampling generator are seeded by (seed, shard, iteration), so ``--backend local`` and ``--backend
ray`` (each worker a Ray actor holding its shards, the learner sending the weights) and any number
of workers give the same samples.  The log (``out_dir/log.jsonl``) has a line per iteration and per
strength measurement (the policy alone against ``greedy`` at every checkpoint; :mod:`.neural_curve`
adds the searches' and draws the curve).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..actions import ACTION_SPACE
from ..agents.neural import TENSORS, NeuralModel, import_numpy, load_model
from .neural_training import TrainingError, _Net, import_torch


@dataclass(frozen=True, slots=True)
class SelfPlaySettings:
    """Everything a self-play run depends on (written to ``out_dir/settings.json``)."""

    #: Games in play at once, over all shards (a row of the batch each).
    games: int = 256
    #: The batch is cut into this many shards; a worker plays whole shards, so the samples do not
    #: depend on the number of workers.
    shards: int = 2
    #: Decisions per row per rollout.
    steps: int = 48
    iterations: int = 100_000
    hours: float = 0.5
    epochs: int = 2
    minibatch: int = 512
    learning_rate: float = 1e-4
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    #: Weight of KL(current || start) in the loss: keeps the policy near the search-distilled one.
    anchor_coef: float = 0.05
    #: The starting network (``None``: the shipped one); with ``hidden`` set, a fresh one instead.
    start: str | None = None
    hidden: int | None = None
    seed: int = 0
    max_turns: int = 200
    #: Write a checkpoint (and measure it) every this many minutes of training.
    checkpoint_minutes: float = 5.0
    #: Draft duels of the policy alone against ``greedy`` per checkpoint (0: none), on deals ``eval_seed``….
    eval_games: int = 40
    eval_seed: int = 100_000
    #: ``"auto"``, ``"compiled"`` or ``"python"``: the batch's backend.
    batch_backend: str = "auto"


@dataclass(slots=True)
class Rollout:
    """The finished decisions of one shard's rollout (numpy arrays, rows in a fixed order)."""

    obs: Any  # (k, OBS) float16
    mask: Any  # (k, ACTION_SPACE) bool
    action: Any  # (k,) int64
    logp: Any  # (k,) float32: the behaviour policy's log-probability of the action
    value: Any  # (k,) float32: the behaviour network's win chance for the mover
    ret: Any  # (k,) float32: the mover's result
    positions: int = 0  # decisions stepped (forced ones too)
    games: int = 0  # games that ended
    seat0_points: float = 0.0
    seconds: float = 0.0

    @staticmethod
    def join(parts: Sequence[Rollout]) -> Rollout:
        np_ = import_numpy()
        cat = {
            name: np_.concatenate([getattr(p, name) for p in parts])
            for name in ("obs", "mask", "action", "logp", "value", "ret")
        }
        return Rollout(
            **cat,
            positions=sum(p.positions for p in parts),
            games=sum(p.games for p in parts),
            seat0_points=sum(p.seat0_points for p in parts),
            seconds=sum(p.seconds for p in parts),
        )

    def __len__(self) -> int:
        return int(self.action.shape[0])


#: Makes a shard's self-play batch: ``(num_games, settings)`` to a
#: :class:`~clashofdecks.envs.selfplay.SelfPlayBatch` (or any object of its interface).  The
#: environments are a front-end layer above this one, so the caller passes it in
#: (:func:`clashofdecks.cli.train_neural_cmd.selfplay_batch`); a module-level function, so that
#: Ray can send it to its workers by name.
BatchFactory = Callable[[int, "SelfPlaySettings"], Any]


def policy_and_value(tensors: dict[str, Any], obs: Any, mask: Any) -> tuple[Any, Any]:
    """Masked log-probabilities ``(n, ACTION_SPACE)`` and win chances ``(n,)``: one forward pass."""
    np_ = import_numpy()
    logits, value = NeuralModel(tensors, {}).forward(obs)
    logits = np_.where(mask, logits, -np_.inf)
    top = logits.max(axis=1, keepdims=True)
    logp = logits - top - np_.log(np_.exp(logits - top).sum(axis=1, keepdims=True))
    return logp, value


def sample_actions(logp: Any, rng: Any) -> Any:
    """One action per row from the masked distribution ``exp(logp)`` (inverse CDF, one uniform a row)."""
    np_ = import_numpy()
    cdf = np_.cumsum(np_.exp(logp), axis=1)
    u = rng.random(logp.shape[0]) * cdf[:, -1]
    picked = (cdf < u[:, None]).sum(axis=1)
    # Round-off may point past the last legal action: take the row's last legal one instead.
    legal_last = ACTION_SPACE - 1 - np_.argmax(np_.isfinite(logp)[:, ::-1], axis=1)
    return np_.minimum(picked, legal_last).astype(np_.int64)


@dataclass(slots=True)
class _Decision:
    obs: Any
    mask: Any
    action: int
    logp: float
    value: float
    mover: int


@dataclass
class Shard:
    """Rows ``index·n … index·n + n - 1`` of the run's games: a batch of its own, the games in
    progress (their decisions waiting for a result) kept from one rollout to the next."""

    settings: SelfPlaySettings
    index: int
    make_batch: BatchFactory
    batch: Any = None
    pending: list[list[_Decision]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.settings.games // self.settings.shards
        self.batch = self.make_batch(n, self.settings)
        self.batch.reset(seed=self.settings.seed * 1_000_003 + self.index * n)
        self.pending = [[] for _ in range(n)]

    def rollout(self, tensors: dict[str, Any], iteration: int) -> Rollout:
        """Advance every row ``steps`` decisions with the network ``tensors`` (module docstring)."""
        np_ = import_numpy()
        t0 = time.process_time()
        rng = np_.random.default_rng([self.settings.seed, self.index, iteration])
        done_rows: list[_Decision] = []
        results: list[float] = []
        out = Rollout(None, None, None, None, None, None)
        batch = self.batch
        for _ in range(self.settings.steps):
            obs, mask, mover = batch.obs, batch.mask, batch.mover
            logp, value = policy_and_value(tensors, obs, mask)
            actions = sample_actions(logp, rng)
            choice = mask.sum(axis=1) > 1
            for row in np_.flatnonzero(choice):
                a = int(actions[row])
                self.pending[row].append(
                    _Decision(
                        obs[row].astype(np_.float16),
                        mask[row].copy(),
                        a,
                        float(logp[row, a]),
                        float(value[row]),
                        int(mover[row]),
                    )
                )
            step = batch.step(actions)
            out.positions += len(actions)
            for row in np_.flatnonzero(step.done):
                winner = int(step.winner[row])
                out.games += 1
                out.seat0_points += 0.5 if winner < 0 else float(winner == 0)
                for d in self.pending[row]:
                    done_rows.append(d)
                    results.append(0.5 if winner < 0 else float(winner == d.mover))
                self.pending[row] = []
        return self._finish(out, done_rows, results, time.process_time() - t0)

    @staticmethod
    def _finish(out: Rollout, rows: list[_Decision], results: list[float], seconds: float) -> Rollout:
        np_ = import_numpy()
        from ..encoding import OBSERVATION_LAYOUT

        out.obs = (
            np_.stack([d.obs for d in rows]) if rows else np_.zeros((0, OBSERVATION_LAYOUT.size), np_.float16)
        )
        out.mask = np_.stack([d.mask for d in rows]) if rows else np_.zeros((0, ACTION_SPACE), bool)
        out.action = np_.array([d.action for d in rows], dtype=np_.int64)
        out.logp = np_.array([d.logp for d in rows], dtype=np_.float32)
        out.value = np_.array([d.value for d in rows], dtype=np_.float32)
        out.ret = np_.array(results, dtype=np_.float32)
        out.seconds = seconds
        return out


class ShardHost:
    """The shards one worker plays, in order (in this process for ``local``, a Ray actor for ``ray``)."""

    def __init__(self, settings: SelfPlaySettings, indices: Sequence[int], make_batch: BatchFactory) -> None:
        self.shards = [Shard(settings, i, make_batch) for i in indices]

    def rollout(self, tensors: dict[str, Any], iteration: int) -> list[Rollout]:
        return [shard.rollout(tensors, iteration) for shard in self.shards]


#: Plays one rollout of every shard with the given weights; returns them in shard order.
Collector = Callable[[dict[str, Any], int], Rollout]


def _assign(shards: int, workers: int) -> list[list[int]]:
    return [list(range(w, shards, workers)) for w in range(min(workers, shards))]


def _in_shard_order(assigned: list[list[int]], parts: list[list[Rollout]]) -> list[Rollout]:
    by_index = {i: r for idx, rs in zip(assigned, parts, strict=True) for i, r in zip(idx, rs, strict=True)}
    return [by_index[i] for i in sorted(by_index)]


def local_collector(
    settings: SelfPlaySettings, make_batch: BatchFactory
) -> tuple[Collector, Callable[[], None]]:
    """Every shard in this process, one after the other."""
    host = ShardHost(settings, range(settings.shards), make_batch)
    return lambda tensors, iteration: Rollout.join(host.rollout(tensors, iteration)), lambda: None


def ray_collector(
    settings: SelfPlaySettings, make_batch: BatchFactory, workers: int, address: str | None = None
) -> tuple[Collector, Callable[[], None]]:
    """The shards on ``workers`` Ray actors (a local instance of ``workers`` CPUs, or a cluster)."""
    from .neural_training import ray_selfplay

    _, close = ray_selfplay(workers, address)  # starts (or joins) Ray with the same clear errors
    import ray

    actor: Any = ray.remote(num_cpus=1)(ShardHost)
    assigned = _assign(settings.shards, workers)
    hosts: list[Any] = [actor.remote(settings, idx, make_batch) for idx in assigned]

    def collect(tensors: dict[str, Any], iteration: int) -> Rollout:
        shared = ray.put(tensors)
        parts = ray.get([h.rollout.remote(shared, iteration) for h in hosts])
        return Rollout.join(_in_shard_order(assigned, parts))

    def stop() -> None:
        for h in hosts:
            ray.kill(h)
        close()

    return collect, stop


# ------------------------------------------------------------------------------------- learner


def net_from_model(torch: Any, model: NeuralModel, seed: int) -> _Net:
    """A torch network holding ``model``'s trunk and first heads (the calibrated value head, which
    sits on the trunk, is left behind: it must be refitted once the trunk changes)."""
    t = model.tensors
    net = _Net(torch, model.inputs, int(t["b1"].shape[0]), seed)
    layers = {"1": net.trunk[0], "2": net.trunk[2], "p": net.policy, "v": net.value}
    with torch.no_grad():
        for key, layer in layers.items():
            layer.weight.copy_(torch.from_numpy(t[f"w{key}"].T.copy()))
            layer.bias.copy_(torch.from_numpy(t[f"b{key}"].copy()))
    return net


def numpy_tensors(net: _Net) -> dict[str, Any]:
    """The network's weights as the numpy tensors the workers play with."""
    return {name: a for name, a in net.export({}).tensors.items() if name in TENSORS}


def _masked_logp(torch: Any, logits: Any, mask: Any) -> Any:
    return torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)


def ppo_update(
    net: _Net, anchor: _Net, data: Rollout, settings: SelfPlaySettings, seed: int
) -> dict[str, float]:
    """``epochs`` passes of minibatch Adam steps on the PPO loss (module docstring); mean figures."""
    torch = net.torch
    obs = torch.from_numpy(data.obs)
    mask, action = torch.from_numpy(data.mask), torch.from_numpy(data.action)
    old_logp, ret = torch.from_numpy(data.logp), torch.from_numpy(data.ret)
    adv = ret - torch.from_numpy(data.value)
    adv = (adv - adv.mean()) / (adv.std() + 1e-6) if len(data) > 1 else adv
    optimiser = getattr(net, "optimiser", None) or torch.optim.Adam(
        net.modules.parameters(), lr=settings.learning_rate
    )
    net.optimiser = optimiser  # type: ignore[attr-defined]  # Adam's moments carry over iterations
    generator = torch.Generator().manual_seed(seed)
    sums: dict[str, float] = {}
    steps = 0
    for _ in range(settings.epochs):
        order = torch.randperm(len(data), generator=generator)
        for start in range(0, len(data), settings.minibatch):
            idx = order[start : start + settings.minibatch]
            figures, loss = _ppo_loss(
                net,
                anchor,
                obs[idx].float(),
                mask[idx],
                action[idx],
                old_logp[idx],
                ret[idx],
                adv[idx],
                settings,
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            for k, v in figures.items():
                sums[k] = sums.get(k, 0.0) + v
            steps += 1
    return {k: round(v / max(1, steps), 5) for k, v in sums.items()}


def _ppo_loss(
    net: _Net,
    anchor: _Net,
    obs: Any,
    mask: Any,
    action: Any,
    old_logp: Any,
    ret: Any,
    adv: Any,
    s: SelfPlaySettings,
) -> tuple[dict[str, float], Any]:
    torch = net.torch
    logits, v = net(obs)
    logp_all = _masked_logp(torch, logits, mask)
    logp = logp_all.gather(1, action[:, None])[:, 0]
    ratio = torch.exp(logp - old_logp)
    clipped = torch.clamp(ratio, 1.0 - s.clip, 1.0 + s.clip)
    policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(v, ret)
    probs = torch.exp(logp_all)
    entropy = -(probs * logp_all).sum(dim=1).mean()
    with torch.no_grad():
        anchor_logp = _masked_logp(torch, anchor(obs)[0], mask)
    kl_anchor = (probs * (logp_all - anchor_logp)).sum(dim=1).mean()
    loss = policy_loss + s.value_coef * value_loss - s.entropy_coef * entropy + s.anchor_coef * kl_anchor
    with torch.no_grad():
        approx_kl = (old_logp - logp).mean()
        clip_fraction = ((ratio - 1.0).abs() > s.clip).float().mean()
    parts = (policy_loss, value_loss, entropy, kl_anchor, approx_kl, clip_fraction)
    names = ("policy_loss", "value_loss", "entropy", "kl_anchor", "approx_kl", "clip_fraction")
    figures = {name: float(part.detach()) for name, part in zip(names, parts, strict=True)}
    return figures, loss


# ------------------------------------------------------------------------------------ the loop


def policy_strength(
    model_path: Path,
    opponent: str,
    games: int,
    seed: int,
    search: int = 0,
    workers: int = 1,
    kind: str = "neural",
) -> dict[str, Any]:
    """``neural:search`` (or ``neural-search:search`` with ``kind``) with the weights ``model_path``
    against ``opponent`` over ``games`` draft duels (deals ``seed``…, seats swapped;
    :func:`.arena.run_arena`): points, games, the Wilson interval."""
    from .arena import run_arena

    agent = f"{kind}:iterations={search},model={model_path}"
    row = run_arena([agent, opponent], games=games, seed=seed, workers=workers, bootstrap=0).table()[0]
    return {
        "agent": f"{kind}:{search}",
        "opponent": opponent,
        "games": row["games"],
        "points": row["points"],
        "win_rate": round(row["win_rate"], 4),
        "ci95": [round(x, 4) for x in row["ci95"]],
        "seed": seed,
    }


class _Run:
    """The run's files: settings, checkpoints, the log (one JSON object a line)."""

    def __init__(
        self, out_dir: Path, settings: SelfPlaySettings, echo: Callable[[dict[str, Any]], None]
    ) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.out_dir, self.settings, self.echo = out_dir, settings, echo
        (out_dir / "settings.json").write_text(
            json.dumps(asdict(settings), indent=1) + "\n", encoding="utf-8"
        )
        self.log_path = out_dir / "log.jsonl"
        self.log_path.write_text("", encoding="utf-8")

    def log(self, entry: dict[str, Any]) -> None:
        with self.log_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        self.echo(entry)

    def checkpoint(self, net: _Net, card: dict[str, Any], number: int) -> Path:
        model = net.export(card)
        path = self.out_dir / f"ckpt-{number:03d}.bin"
        model.save(path)
        model.save(self.out_dir / "latest.bin")
        self.log({"kind": "checkpoint", "checkpoint": path.name, **card})
        if self.settings.eval_games:
            strength = policy_strength(path, "greedy", self.settings.eval_games, self.settings.eval_seed)
            self.log(
                {
                    "kind": "strength",
                    "checkpoint": path.name,
                    "train_seconds": card["train_seconds"],
                    **strength,
                }
            )
        return path


def _card(settings: SelfPlaySettings, start: NeuralModel, totals: dict[str, float]) -> dict[str, Any]:
    return {
        "method": "selfplay-ppo",
        "command": "clash train-neural --method selfplay (docs/ai.md, 'Self-play on the batch')",
        "started_from": start.card.get("method", "expert-iteration"),
        "start_card": {k: v for k, v in start.card.items() if k != "start_card"},
        "ppo": {
            k: v
            for k, v in asdict(settings).items()
            if k in ("games", "steps", "epochs", "learning_rate", "clip", "entropy_coef", "anchor_coef")
        },
        **{k: (round(v, 1) if isinstance(v, float) else v) for k, v in totals.items()},
    }


def train_selfplay(
    settings: SelfPlaySettings,
    out_dir: Path,
    collector: tuple[Collector, Callable[[], None]],
    *,
    echo: Callable[[dict[str, Any]], None] = lambda entry: None,
) -> Path:
    """Run the self-play loop (module docstring); returns the last checkpoint.  ``collector``
    (:func:`local_collector`, :func:`ray_collector`) plays the rollouts; it is closed at the end."""
    torch = import_torch()
    torch.set_num_threads(1)  # the cores play the games
    if settings.games % settings.shards or settings.games < settings.shards:
        raise TrainingError(f"games ({settings.games}) must be a multiple of shards ({settings.shards})")
    start = load_model(None if settings.start is None else Path(settings.start))
    if settings.hidden is None:
        net = net_from_model(torch, start, settings.seed)
    else:
        from ..encoding import OBSERVATION_LAYOUT

        net = _Net(torch, OBSERVATION_LAYOUT.size, settings.hidden, settings.seed)
    anchor = net_from_model(torch, net.export({}), settings.seed)
    run = _Run(out_dir, settings, echo)
    collect, close = collector
    totals: dict[str, float] = {
        "iterations": 0,
        "positions": 0,
        "samples": 0,
        "games": 0,
        "train_seconds": 0.0,
    }
    try:
        last = run.checkpoint(net, _card(settings, start, totals), 0)
        clock, number = time.monotonic(), 0
        for iteration in range(settings.iterations):
            t0 = time.monotonic()
            data = collect(numpy_tensors(net), iteration)
            t1 = time.monotonic()
            figures = ppo_update(net, anchor, data, settings, settings.seed + iteration) if len(data) else {}
            t2 = time.monotonic()
            totals["iterations"] += 1
            totals["positions"] += data.positions
            totals["samples"] += len(data)
            totals["games"] += data.games
            totals["train_seconds"] += t2 - t0
            run.log(_iteration_entry(iteration, data, figures, t1 - t0, t2 - t1, totals))
            out_of_time = totals["train_seconds"] >= settings.hours * 3600
            last_one = out_of_time or iteration == settings.iterations - 1
            if last_one or time.monotonic() - clock >= settings.checkpoint_minutes * 60:
                number += 1
                last = run.checkpoint(net, _card(settings, start, totals), number)
                clock = time.monotonic()
            if out_of_time:
                break
    finally:
        close()
    return last


def _iteration_entry(
    iteration: int,
    data: Rollout,
    figures: dict[str, float],
    rollout_s: float,
    update_s: float,
    totals: dict[str, float],
) -> dict[str, Any]:
    return {
        "kind": "iteration",
        "iteration": iteration,
        "train_seconds": round(totals["train_seconds"], 1),
        "rollout_seconds": round(rollout_s, 2),
        "rollout_cpu_seconds": round(data.seconds, 2),
        "update_seconds": round(update_s, 2),
        "positions": data.positions,
        "positions_per_second": round(data.positions / rollout_s, 1) if rollout_s > 0 else None,
        "samples": len(data),
        "games": data.games,
        "seat0_win_rate": round(data.seat0_points / data.games, 3) if data.games else None,
        "mean_return": round(float(data.ret.mean()), 3) if len(data) else None,
        **figures,
    }


__all__ = [
    "Rollout",
    "SelfPlaySettings",
    "Shard",
    "ShardHost",
    "local_collector",
    "policy_and_value",
    "policy_strength",
    "ppo_update",
    "ray_collector",
    "sample_actions",
    "train_selfplay",
]
