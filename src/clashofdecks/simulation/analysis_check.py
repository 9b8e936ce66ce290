"""How far a player can believe ``clash analyze`` (docs/ai.md, issue 38): on a directory of game records,

* ``calibration``: the chance the analysis gives the mover after each move with a choice against the
  mover's result, in bins of 0.1, with the expected calibration error (ECE) and its bootstrap interval
  over games;
* ``fit``: the calibration map of ``analyze.CALIBRATION`` for one context from its games;
* ``mistakes``: each flagged move searched again from its position by a much deeper search, counting
  how often the played move really was worse than the analysis's best move there.

``python -m clashofdecks.simulation.analysis_check calibration DIR`` (or ``fit DIR``, ``mistakes DIR``)
prints JSON.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..agents.evaluation import fit_logistic
from ..agents.mcts import Search
from ..analyze import ANALYSIS_CUTOFF, DEFAULT_ITERATIONS, Analysis, analyze_record, context_of
from ..record import GameRecord, Replay

#: Bootstrap resamples of the games for the ECE interval.
RESAMPLES = 1000


def _records(directory: Path) -> list[GameRecord]:
    return [GameRecord.load(p) for p in sorted(directory.glob("*.json"))]


def _points(analysis: Analysis) -> list[tuple[float, float]]:
    """(the mover's chance after a move with a choice, the mover's result: 1, 0 or 1/2)."""
    winner = analysis.record.result.get("winner") if isinstance(analysis.record.result, dict) else None
    out = []
    for d in analysis.decisions:
        if d.best is None or d.player not in (0, 1):
            continue
        result = 0.5 if winner is None else float(winner == d.player)
        out.append((d.after, result))
    return out


def expected_calibration_error(points: Sequence[tuple[float, float]], bins: int = 10) -> float:
    """Sum over bins of the bin's share times |mean chance - mean result|."""
    if not points:
        return 0.0
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for chance, result in points:
        b = sums[min(bins - 1, int(chance * bins))]
        b[0] += chance
        b[1] += result
        b[2] += 1
    return sum(abs(c - r) for c, r, n in sums if n) / len(points)


def fit(directory: Path, iterations: int = DEFAULT_ITERATIONS) -> dict[str, Any]:
    """``(a, b)`` of ``analyze.CALIBRATION`` for the records of ``directory`` (one context): the
    maximum-likelihood ``sigmoid(a x logit(p) + b)`` from the search's own chances to the results."""
    records = _records(directory)
    points = [p for r in records for p in _points(analyze_record(r, iterations=iterations, calibrate=False))]
    xs = []
    for chance, _ in points:
        p = min(max(chance, 1e-4), 1.0 - 1e-4)
        xs.append([1.0, math.log(p / (1.0 - p))])
    b, a = fit_logistic(xs, [r for _, r in points])
    return {
        "context": context_of(records[0]),
        "games": len(records),
        "moves": len(points),
        "a": a,
        "b": b,
        "ece_before": expected_calibration_error(points),
    }


def calibration(directory: Path, iterations: int = DEFAULT_ITERATIONS, seed: int = 0) -> dict[str, Any]:
    """The calibration of the analysis on the records of ``directory`` (see the module)."""
    analyses = [analyze_record(r, iterations=iterations) for r in _records(directory)]
    per_game = [_points(a) for a in analyses]
    points = [p for g in per_game for p in g]
    rng = random.Random(seed)
    eces = sorted(
        expected_calibration_error([p for _ in per_game for p in per_game[rng.randrange(len(per_game))]])
        for _ in range(RESAMPLES)
    )
    bins = []
    for b in range(10):
        inside = [(c, r) for c, r in points if min(9, int(c * 10)) == b]
        if inside:
            mean_c = sum(c for c, _ in inside) / len(inside)
            bins.append(
                {
                    "bin": b / 10,
                    "moves": len(inside),
                    "chance": mean_c,
                    "won": sum(r for _, r in inside) / len(inside),
                }
            )
    return {
        "games": len(per_game),
        "moves": len(points),
        "cpu_seconds_per_game": sum(a.cpu_seconds for a in analyses) / max(1, len(analyses)),
        "ece": expected_calibration_error(points),
        "ece_interval_95": [eces[int(0.025 * RESAMPLES)], eces[int(0.975 * RESAMPLES) - 1]],
        "bins": bins,
    }


def mistakes(directory: Path, deep: int = 20000, iterations: int = DEFAULT_ITERATIONS) -> dict[str, Any]:
    """Each flagged move (``Analysis.mistakes``) judged again by a search of ``deep`` iterations from its
    position (a tenth of it in the setup stage, whose search runs in Python): really worse when the deep
    search gives the played move a lower chance than the analysis's best move."""
    search = Search(cutoff=ANALYSIS_CUTOFF, evaluation="learned", setup="learned")
    flagged = worse = 0
    gaps: list[float] = []
    kinds: dict[str, list[int]] = {"setup": [0, 0], "play": [0, 0]}
    for record in _records(directory):
        analysis = analyze_record(record, iterations=iterations)
        marked = {d.index: d for d in analysis.mistakes(top=3)}
        steps = Replay(record)
        for step in steps:
            d = marked.get(step.index)
            if d is None or d.best_action is None:
                continue
            game = steps.game
            best = game.parse_action(d.best_action)
            budget = deep if game.phase != "setup" else deep // 10  # the setup's tree runs in Python
            res = search.run(game, random.Random(step.index), iterations=budget)
            chance = {a: mean for a, visits, mean in res.stats if visits}
            flagged += 1
            gap = chance.get(best, 0.0) - chance.get(step.action, 0.0)
            gaps.append(gap)
            worse += gap > 0
            kind = kinds["setup" if game.phase == "setup" else "play"]
            kind[0] += 1
            kind[1] += gap > 0
    return {
        "flagged": flagged,
        "really_worse": worse,
        "by_stage": kinds,
        "deep_iterations": deep,
        "gaps": gaps,
    }


def main(argv: Sequence[str]) -> int:
    checks: dict[str, Callable[[Path], dict[str, Any]]] = {
        "calibration": calibration,
        "mistakes": mistakes,
        "fit": fit,
    }
    if len(argv) != 2 or argv[0] not in checks:
        print(
            "usage: python -m clashofdecks.simulation.analysis_check calibration|mistakes|fit DIR",
            file=sys.stderr,
        )
        return 2
    print(json.dumps(checks[argv[0]](Path(argv[1])), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
