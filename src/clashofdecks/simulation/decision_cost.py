"""What an agent costs per decision (docs/ai.md): the CPU time (``time.process_time`` of this process,
so other jobs on the machine do not inflate it) of every decision it makes in draft duels against an
opponent, split into the setup stage and the play phase; forced moves count as decisions (they cost
nearly nothing), as the named strengths' table counts them.

``python -m clashofdecks.simulation.decision_cost AGENT [AGENT...] [--opponent greedy] [--games 3]
[--seed 1]`` prints JSON: per agent the decisions, the mean and the largest CPU seconds, overall and
per stage.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..agents.base import Agent
from ..agents.registry import make_agent
from ..engine import GameEngine
from ..options import Ruleset
from .game import GameSpec, play_game


class _Timed(Agent):
    """An agent whose every decision's CPU time is kept, by stage."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.times: dict[str, list[float]] = {"setup": [], "play": []}

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, game: GameEngine) -> int:
        stage = "setup" if game.phase == "setup" else "play"
        started = time.process_time()
        action = self.inner.act(game)
        self.times[stage].append(time.process_time() - started)
        return action


def _summary(times: list[float]) -> dict[str, Any]:
    return {
        "decisions": len(times),
        "mean_cpu_seconds": sum(times) / len(times) if times else 0.0,
        "max_cpu_seconds": max(times, default=0.0),
    }


def decision_cost(spec: str, *, opponent: str = "greedy", games: int = 3, seed: int = 1) -> dict[str, Any]:
    """``spec``'s CPU per decision over ``games`` draft duels (deals ``seed``…) against ``opponent``, the
    agent in seat order of the deal (participant 0)."""
    timed = _Timed(make_agent(spec, 0))
    for i in range(games):
        deal = seed + i
        game = GameSpec(i, "duel", "draft", deal, (spec, opponent), (2 * deal, 2 * deal + 1), Ruleset())
        play_game(game, [timed, make_agent(opponent, 2 * deal + 1)])
    every = timed.times["setup"] + timed.times["play"]
    return {
        "agent": spec,
        "opponent": opponent,
        "games": games,
        **_summary(every),
        "setup": _summary(timed.times["setup"]),
        "play": _summary(timed.times["play"]),
    }


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m clashofdecks.simulation.decision_cost")
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    out = [decision_cost(a, opponent=args.opponent, games=args.games, seed=args.seed) for a in args.agents]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
