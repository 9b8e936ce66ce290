"""Train sb3-contrib's MaskablePPO (CPU) on Clash of Decks, then measure the trained policy.

    pip install -e '.[rl,train]'
    python examples/train_maskable_ppo.py --env duel --opponent random --steps 200000 --out runs/duel
    python examples/train_maskable_ppo.py --env solo --level 0 --steps 200000 --out runs/solo

What it does: trains on ``ClashOfDecks/Duel-v1`` against a fixed opponent (or ``ClashOfDecks/Solo-v1``,
the quick game against the automaton) with the legal-action mask; every ``--eval-every`` steps it plays
``--curve-games`` games with the current policy (deterministic, masked) and records the win rate;
at the end it plays ``--final-games`` games against each of ``--final-opponents`` (duel) or the
automaton (solo) and reports win rates with 95 % Wilson intervals.  Writes ``curve.csv``,
``curve.png`` (win rate against training steps, drawn with Pillow), ``results.json``, the model and
SB3's own training log ``progress.csv`` to ``--out``.
The policy is an MLP over the observation vector of ``docs/envs.md``; torch runs on one CPU thread.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from PIL import Image, ImageDraw, ImageFont
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

import clashofdecks.envs  # noqa: F401  (registers the environments)


def make_env(args: argparse.Namespace, opponent: str | None = None) -> gym.Env[Any, Any]:
    if args.env == "solo":
        return gym.make(
            "ClashOfDecks/Solo-v1", level=args.level, format=args.format, max_turns=args.max_turns
        )
    return gym.make(
        "ClashOfDecks/Duel-v1",
        opponent=opponent or args.opponent,
        format=args.format,
        max_turns=args.max_turns,
    )


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion (draws count as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(model: MaskablePPO, env: gym.Env[Any, Any], games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` games with the policy (deterministic, masked): wins, losses, draws, win rate."""
    wins = losses = draws = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        reward = 0.0
        while not done:
            masks = env.unwrapped.action_masks()  # type: ignore[attr-defined]
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        if reward > 0:
            wins += 1
        elif reward < 0:
            losses += 1
        else:
            draws += 1
    score = wins + 0.5 * draws
    low, high = wilson(score, games)
    return {
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": score / games,
        "interval95": [low, high],
    }


class CurveCallback(BaseCallback):
    """Every ``every`` steps, the win rate of the current policy over ``games`` games."""

    def __init__(self, env: gym.Env[Any, Any], every: int, games: int, seed: int) -> None:
        super().__init__()
        self.env, self.every, self.games, self.seed = env, every, games, seed
        self.points: list[tuple[int, float, float, float]] = []
        self._next = 0

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            result = evaluate(self.model, self.env, self.games, self.seed)  # type: ignore[arg-type]
            low, high = result["interval95"]
            self.points.append((self.num_timesteps, result["win_rate"], low, high))
            print(
                f"steps {self.num_timesteps:>8}: win rate {result['win_rate']:.3f} [{low:.3f}, {high:.3f}]",
                flush=True,
            )
            self._next += self.every
        return True


def plot_curve(points: list[tuple[int, float, float, float]], title: str, path: Path) -> None:
    """A line plot of win rate against steps with its 95 % band, drawn with Pillow."""
    width, height, margin = 720, 420, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    x0, y0, x1, y1 = margin, height - margin, width - 20, 30
    draw.line((x0, y0, x1, y0), fill="black")
    draw.line((x0, y0, x0, y1), fill="black")
    max_steps = max((p[0] for p in points), default=1) or 1

    def xy(steps: float, rate: float) -> tuple[float, float]:
        return x0 + (x1 - x0) * steps / max_steps, y0 - (y0 - y1) * rate

    for k in range(0, 11, 2):
        y = xy(0, k / 10)[1]
        draw.line((x0 - 4, y, x0, y), fill="black")
        draw.text((x0 - 34, y - 6), f"{k / 10:.1f}", fill="black", font=font)
        draw.line((x0, y, x1, y), fill=(230, 230, 230))
    for k in range(0, 5):
        steps = max_steps * k / 4
        x = xy(steps, 0)[0]
        draw.text((x - 14, y0 + 8), f"{int(steps):,}", fill="black", font=font)
    if len(points) > 1:
        band = [xy(s, hi) for s, _, _, hi in points] + [xy(s, lo) for s, _, lo, _ in reversed(points)]
        draw.polygon(band, fill=(200, 220, 245))
        draw.line([xy(s, r) for s, r, _, _ in points], fill=(30, 90, 200), width=2)
    for s, r, _, _ in points:
        x, y = xy(s, r)
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(30, 90, 200))
    draw.text((x0, 8), title, fill="black", font=font)
    draw.text(((x0 + x1) // 2 - 40, height - 24), "training steps", fill="black", font=font)
    draw.text((6, y1 - 20), "win rate", fill="black", font=font)
    image.save(path)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", choices=("duel", "solo"), default="duel")
    parser.add_argument("--opponent", default="random", help="duel: the training opponent (an agent spec)")
    parser.add_argument("--level", type=int, default=0, help="solo: the threat level (0 = quick game)")
    parser.add_argument("--format", default="draft")
    parser.add_argument("--max-turns", type=int, default=100)
    parser.add_argument("--steps", type=int, default=200_000, help="training budget (environment steps)")
    parser.add_argument("--n-steps", type=int, default=2048, help="PPO rollout length")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--eval-every", type=int, default=20_000)
    parser.add_argument("--curve-games", type=int, default=100)
    parser.add_argument("--final-games", type=int, default=1000)
    parser.add_argument(
        "--final-opponents", default="random,greedy", help="duel: comma-separated agent specs"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/maskable_ppo"))
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    env = make_env(args)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    # SB3's training log (progress.csv) goes with the run's other outputs, not to a fresh
    # SB3-<date> folder in the system's temporary directory that nothing removes.
    model.set_logger(configure(str(args.out), ["csv"]))
    curve = CurveCallback(make_env(args), args.eval_every, args.curve_games, seed=10_000_000)
    started = time.time()
    model.learn(total_timesteps=args.steps, callback=curve)
    trained_seconds = time.time() - started
    final = evaluate(model, make_env(args), args.curve_games, seed=10_000_000)
    low, high = final["interval95"]
    curve.points.append((model.num_timesteps, final["win_rate"], low, high))
    model.save(args.out / "model.zip")

    opponents = ["automaton"] if args.env == "solo" else [o for o in args.final_opponents.split(",") if o]
    finals = {
        name: evaluate(
            model, make_env(args, None if args.env == "solo" else name), args.final_games, seed=20_000_000
        )
        for name in opponents
    }
    with (args.out / "curve.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["steps", "win_rate", "low95", "high95"])
        writer.writerows(curve.points)
    what = f"solo level {args.level}" if args.env == "solo" else f"duel vs {args.opponent}"
    plot_curve(
        curve.points,
        f"MaskablePPO, {what} ({args.format}): win rate vs training steps",
        args.out / "curve.png",
    )
    results = {
        "env": args.env,
        "opponent": args.opponent if args.env == "duel" else "automaton",
        "level": args.level,
        "format": args.format,
        "steps": int(model.num_timesteps),
        "training_seconds": round(trained_seconds, 1),
        "curve": [list(p) for p in curve.points],
        "final": finals,
        "command": "python examples/train_maskable_ppo.py " + " ".join(argv or []),
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    for name, result in finals.items():
        lo, hi = result["interval95"]
        print(f"final vs {name}: {result['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] over {result['games']} games")
    return results


if __name__ == "__main__":
    main()
