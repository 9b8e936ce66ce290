"""What agents cost per decision (docs/ai.md): the CPU time (``time.process_time`` of this process, so
other jobs on the machine do not inflate it) of every decision in draft duels against an opponent,
split into the setup stage and the play phase; forced moves count as decisions (they cost nearly
nothing), as the named strengths' table counts them.  The first agent plays; every agent named is
timed on the very same positions (each decides every one of them, the others' choices discarded), so
the agents' means are paired: the games' differences do not enter them.

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
    """The first of ``agents`` plays; each one's CPU time on every position is kept, by stage."""

    def __init__(self, agents: Sequence[Agent]) -> None:
        self.agents = agents
        self.name = agents[0].name
        self.times: list[dict[str, list[float]]] = [{"setup": [], "play": []} for _ in agents]

    def reset(self, seed: int | None = None) -> None:
        for agent in self.agents:
            agent.reset(seed)

    def act(self, game: GameEngine) -> int:
        stage = "setup" if game.phase == "setup" else "play"
        actions = []
        for agent, times in zip(self.agents, self.times, strict=True):
            started = time.process_time()
            actions.append(agent.act(game))
            times[stage].append(time.process_time() - started)
        return actions[0]


def _summary(times: list[float]) -> dict[str, Any]:
    return {
        "decisions": len(times),
        "mean_cpu_seconds": sum(times) / len(times) if times else 0.0,
        "max_cpu_seconds": max(times, default=0.0),
    }


def decision_cost(
    specs: Sequence[str], *, opponent: str = "greedy", games: int = 3, seed: int = 1
) -> list[dict[str, Any]]:
    """Each agent's CPU per decision on the positions of ``games`` draft duels (deals ``seed``…) that the
    first agent plays against ``opponent`` (participant 0; see the module)."""
    timed = _Timed([make_agent(spec, 0) for spec in specs])
    for i in range(games):
        deal = seed + i
        game = GameSpec(i, "duel", "draft", deal, (specs[0], opponent), (2 * deal, 2 * deal + 1), Ruleset())
        play_game(game, [timed, make_agent(opponent, 2 * deal + 1)])
    return [
        {
            "agent": spec,
            "played_by": specs[0],
            "opponent": opponent,
            "games": games,
            **_summary(times["setup"] + times["play"]),
            "setup": _summary(times["setup"]),
            "play": _summary(times["play"]),
        }
        for spec, times in zip(specs, timed.times, strict=True)
    ]


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m clashofdecks.simulation.decision_cost")
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    out = decision_cost(args.agents, opponent=args.opponent, games=args.games, seed=args.seed)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
