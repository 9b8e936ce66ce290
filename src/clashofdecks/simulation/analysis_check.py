"""How far a player can believe ``clash analyze`` (docs/ai.md, issue 38): on game records,

* ``points``: every record of some directories analysed once at the web's setting, the search's own
  chances kept (no map) with each game's context, into a JSON file the next two read;
* ``calibration``: per context (duel, solo0..solo5), the chance the analysis shows the mover after each
  move with a choice (the shipped map applied) against the mover's result, in bins of 0.1, each bin's
  95 % interval of (won - chance) and the expected calibration error (ECE) with its interval, by
  bootstrap resamples of the games, and whether the issue's target holds;
* ``fit``: per context, the calibration map of ``analyze.CALIBRATION`` from its games, and the curve
  of ``analyze.CALIBRATION_CURVES`` (:func:`fit_curve`);
* ``crossval``: per context, its own logistic map against its curve, by cross-validation over the
  games (training games: how a level's kind of map is chosen without looking at held-out games);
* ``mistakes``: each flagged move searched again from its position by a much deeper search, counting
  how often the played move really was worse than the analysis's best move there.

``python -m clashofdecks.simulation.analysis_check points DIR... --out POINTS``, then ``fit POINTS``
and ``crossval POINTS`` (training games) and ``calibration POINTS`` (held-out games) print JSON;
these also take a directory of records, and ``mistakes DIR``.
"""

from __future__ import annotations

import bisect
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..agents.evaluation import fit_logistic
from ..agents.mcts import Search
from ..analyze import (
    ANALYSIS_CUTOFF,
    CALIBRATION,
    CALIBRATION_CURVES,
    DEFAULT_ITERATIONS,
    Analysis,
    Curve,
    analyze_record,
    context_of,
    curve_map,
    logistic_map,
)
from ..record import GameRecord, Replay

#: Bootstrap resamples of the games for the intervals.
RESAMPLES = 1000
#: The issue's target: each bin's interval reaches the diagonal within this much, or the ECE is at most
#: TARGET_ECE.
TOLERANCE = 0.05
TARGET_ECE = 0.02
#: The groups of the search's chance a :func:`fit_curve` curve starts from (finer where most moves lie).
CURVE_EDGES = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: A group of fewer moves joins the next one.
CURVE_LEAST_MOVES = 30
#: Folds of the games in :func:`crossval`.
FOLDS = 5


def _records(directory: Path) -> list[GameRecord]:
    return [GameRecord.load(p) for p in sorted(directory.glob("*.json"))]


#: One move with a choice: (the search's own chance of the played move, or None where a proof or the
#: learned evaluation gave it; the analysis's chance before any map; the mover's result 1, 0 or 1/2).
Point = tuple[float | None, float, float]


def _points(analysis: Analysis) -> list[Point]:
    """The moves with a choice of one analysis (made with ``calibrate=False``), as :data:`Point`."""
    winner = analysis.record.result.get("winner") if isinstance(analysis.record.result, dict) else None
    out: list[Point] = []
    for d in analysis.decisions:
        if d.best is None or d.player not in (0, 1):
            continue
        result = 0.5 if winner is None else float(winner == d.player)
        out.append((d.raw_after, d.after, result))
    return out


def collect(directories: Sequence[Path], iterations: int = DEFAULT_ITERATIONS) -> dict[str, Any]:
    """Every record of ``directories`` analysed once (the search's own chances, no map): per game its
    context and points, so that maps are fitted and checked without analysing again."""
    games = []
    for directory in directories:
        for path in sorted(directory.glob("*.json")):
            record = GameRecord.load(path)
            analysis = analyze_record(record, iterations=iterations, calibrate=False)
            games.append(
                {
                    "file": str(path),
                    "context": context_of(record),
                    "cpu_seconds": analysis.cpu_seconds,
                    "points": [list(p) for p in _points(analysis)],
                }
            )
    return {"iterations": iterations, "games": games}


def _load_points(path: Path | dict[str, Any], iterations: int = DEFAULT_ITERATIONS) -> dict[str, Any]:
    """A points file of :func:`collect` (or its data), or a directory of records analysed now."""
    if isinstance(path, dict):
        return path
    if path.is_dir():
        return collect([path], iterations)
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _by_context(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for game in data["games"]:
        out.setdefault(game["context"], []).append(game)
    return out


def _mapped(
    point: Sequence[Any],
    context: str,
    maps: dict[str, tuple[float, float]],
    curves: dict[str, Curve] | None = None,
) -> tuple[float, float]:
    """(the chance a player is shown for the point, the result): the search's chance through the
    context's curve, else its map (as ``analyze.calibrated`` with these maps and curves)."""
    raw, after, result = point
    if raw is not None and curves and context in curves:
        return curve_map(float(raw), curves[context]), float(result)
    if raw is None or context not in maps:
        return float(after), float(result)
    return logistic_map(float(raw), maps[context]), float(result)


def expected_calibration_error(points: Sequence[tuple[float, float]], bins: int = 10) -> float:
    """Sum over bins of the bin's share times |mean chance - mean result|."""
    if not points:
        return 0.0
    sums = _bin_sums(points, bins)
    return sum(abs(c - r) for c, r, n in sums if n) / len(points)


def _bin_sums(points: Sequence[tuple[float, float]], bins: int = 10) -> list[list[float]]:
    """Per bin of the chance: [sum of chances, sum of results, moves]."""
    sums = [[0.0, 0.0, 0.0] for _ in range(bins)]
    for chance, result in points:
        b = sums[min(bins - 1, max(0, int(chance * bins)))]
        b[0] += chance
        b[1] += result
        b[2] += 1
    return sums


def _logit_rows(points: Sequence[tuple[float, float]]) -> list[float]:
    out = []
    for chance, _ in points:
        q = min(max(chance, 1e-4), 1.0 - 1e-4)
        out.append(math.log(q / (1.0 - q)))
    return out


def _search_points(games: list[dict[str, Any]]) -> list[tuple[float, float]]:
    return [(float(p[0]), float(p[2])) for g in games for p in g["points"] if p[0] is not None]


def fit(path: Path | dict[str, Any], iterations: int = DEFAULT_ITERATIONS) -> dict[str, Any]:
    """Per context, ``(a, b)`` of ``analyze.CALIBRATION`` from the games of ``path`` (a points file of
    :func:`collect` or a directory of records): the maximum-likelihood ``sigmoid(a x logit(p) + b)``
    from the search's own chances to the results.  The solo levels are fitted together too
    (``solo_shared``: one slope ``a`` for every level, an intercept ``b`` per level, so that each
    level's few outcomes set only its offset), the map ``analyze.CALIBRATION`` ships for solo."""
    out: dict[str, Any] = {}
    by_context = _by_context(_load_points(path, iterations))
    for context, games in sorted(by_context.items()):
        points = _search_points(games)
        b, a = fit_logistic([[1.0, x] for x in _logit_rows(points)], [r for _, r in points])
        out[context] = {
            "games": len(games),
            "moves": len(points),
            "a": round(a, 3),
            "b": round(b, 3),
            "ece_before": expected_calibration_error(points),
            "curve": [list(knot) for knot in fit_curve(points)],
        }
    solo = sorted(c for c in by_context if c.startswith("solo") and c != "solo?")
    if len(solo) > 1:
        rows: list[list[float]] = []
        results: list[float] = []
        for k, context in enumerate(solo):
            points = _search_points(by_context[context])
            for x, (_, r) in zip(_logit_rows(points), points, strict=True):
                rows.append([float(j == k) for j in range(len(solo))] + [x])
                results.append(r)
        coefficients = fit_logistic(rows, results, ridge=1e-6)  # the intercepts are not shrunk
        out["solo_shared"] = {
            c: {"a": round(coefficients[-1], 3), "b": round(coefficients[k], 3)} for k, c in enumerate(solo)
        }
    return out


def fit_curve(points: Sequence[tuple[float, float]]) -> Curve:
    """A monotone curve (``analyze.Curve``) from (the search's chance, result) points: the moves
    grouped by :data:`CURVE_EDGES` of the chance (a group of fewer than :data:`CURVE_LEAST_MOVES`
    moves joins the next, the last the one before), each group's share won made non-decreasing by
    pooling it with the groups before it (pool adjacent violators, weighted by moves), one knot per
    pooled group: (the mean logit of its chances, the logit of its share won with half a win and half
    a loss added, so that a group all won or all lost stays finite)."""
    grouped: list[list[float]] = [[0.0, 0.0, 0.0] for _ in CURVE_EDGES]  # logits, wins, moves
    for (chance, result), x in zip(points, _logit_rows(points), strict=True):
        g = grouped[bisect.bisect_right(CURVE_EDGES, chance) - 1]
        g[0], g[1], g[2] = g[0] + x, g[1] + result, g[2] + 1
    groups: list[list[float]] = []
    for g in (g for g in grouped if g[2]):
        if groups and groups[-1][2] < CURVE_LEAST_MOVES:
            g = [a + b for a, b in zip(groups.pop(), g, strict=True)]
        groups.append(g)
    if len(groups) > 1 and groups[-1][2] < CURVE_LEAST_MOVES:
        groups.append([a + b for a, b in zip(groups.pop(), groups.pop(), strict=True)])
    pooled: list[list[float]] = []
    for g in groups:
        pooled.append(g)
        while len(pooled) > 1 and pooled[-2][1] / pooled[-2][2] >= pooled[-1][1] / pooled[-1][2]:
            pooled.append([a + b for a, b in zip(pooled.pop(), pooled.pop(), strict=True)])
    knots = []
    for logits, wins, moves in pooled:
        share = (wins + 0.5) / (moves + 1.0)
        knots.append((round(logits / moves, 3), round(math.log(share / (1.0 - share)), 3)))
    return tuple(knots)


def _fold_scores(per_game: list[list[tuple[float, float]]], raw: list[tuple[float, float]]) -> dict[str, Any]:
    """Out-of-fold figures of one model: the log loss of the search's chances mapped, the ECE and the
    bins whose bootstrap interval misses the diagonal ±5 points, of everything shown."""
    loss = -sum(
        r * math.log(min(max(p, 1e-6), 1 - 1e-6)) + (1 - r) * math.log(min(max(1 - p, 1e-6), 1 - 1e-6))
        for p, r in raw
    )
    checked = _context_calibration(
        [{"points": [[None, c, r] for c, r in g], "cpu_seconds": 0.0} for g in per_game],
        "",
        {},
        random.Random(0),
        RESAMPLES,
    )
    return {
        "log_loss": round(loss / max(1, len(raw)), 5),
        "ece": checked["ece"],
        "bins_off": [b["bin"] for b in checked["bins"] if not b["within_5_points"]],
    }


def crossval(
    path: Path | dict[str, Any], iterations: int = DEFAULT_ITERATIONS, seed: int = 0
) -> dict[str, Any]:
    """Per context, the context's own logistic map against its :func:`fit_curve` curve by
    :data:`FOLDS`-fold cross-validation over the games of ``path`` (training games): each fold's games
    mapped by the model fitted on the other folds; ``better`` is the lower out-of-fold log loss (the
    choice made before any held-out game is looked at)."""
    out: dict[str, Any] = {}
    for context, games in sorted(_by_context(_load_points(path, iterations)).items()):
        if len(games) < FOLDS:
            out[context] = {"games": len(games), "better": None}  # too few games to fold
            continue
        order = list(range(len(games)))
        random.Random(seed).shuffle(order)
        shown: dict[str, list[list[tuple[float, float]]]] = {"logistic": [], "curve": []}
        raw: dict[str, list[tuple[float, float]]] = {"logistic": [], "curve": []}
        for k in range(FOLDS):
            held = set(order[k::FOLDS])
            points = _search_points([g for i, g in enumerate(games) if i not in held])
            b, a = fit_logistic([[1.0, x] for x in _logit_rows(points)], [r for _, r in points])
            models = {"logistic": ({context: (a, b)}, None), "curve": ({}, {context: fit_curve(points)})}
            for name, (maps, curves) in models.items():
                for i in sorted(held):
                    mapped = [_mapped(p, context, maps, curves) for p in games[i]["points"]]
                    shown[name].append(mapped)
                    raw[name] += [
                        m for m, p in zip(mapped, games[i]["points"], strict=True) if p[0] is not None
                    ]
        scores = {name: _fold_scores(shown[name], raw[name]) for name in shown}
        better = min(scores, key=lambda name: scores[name]["log_loss"])
        out[context] = {"games": len(games), **scores, "better": better}
    return out


def _bootstrap(per_game: list[list[list[float]]], rng: random.Random, resamples: int) -> list[list[float]]:
    """Per bin, the sorted gaps (mean result - mean chance) of ``resamples`` resamples of the games,
    and last the sorted ECEs; a resample where a bin is empty leaves that bin out."""
    bins = len(per_game[0])
    gaps: list[list[float]] = [[] for _ in range(bins + 1)]
    for _ in range(resamples):
        total = [[0.0, 0.0, 0.0] for _ in range(bins)]
        for _ in per_game:
            for t, g in zip(total, per_game[rng.randrange(len(per_game))], strict=True):
                t[0] += g[0]
                t[1] += g[1]
                t[2] += g[2]
        moves = sum(t[2] for t in total)
        for b, (c, r, n) in enumerate(total):
            if n:
                gaps[b].append((r - c) / n)
        gaps[bins].append(sum(abs(c - r) for c, r, _ in total) / max(1.0, moves))
    return [sorted(g) for g in gaps]


def _interval(values: list[float]) -> list[float]:
    return [values[int(0.025 * len(values))], values[max(0, int(0.975 * len(values)) - 1)]]


def _context_calibration(
    games: list[dict[str, Any]],
    context: str,
    maps: dict[str, tuple[float, float]],
    rng: random.Random,
    resamples: int,
    curves: dict[str, Curve] | None = None,
) -> dict[str, Any]:
    per_game = [[_mapped(p, context, maps, curves) for p in g["points"]] for g in games]
    points = [p for g in per_game for p in g]
    sums = _bin_sums(points)
    game_sums = [_bin_sums(g) for g in per_game]
    boot = _bootstrap(game_sums, rng, resamples)
    bins = []
    for b, (c, r, n) in enumerate(sums):
        if not n:
            continue
        low, high = _interval(boot[b])
        bins.append(
            {
                "bin": b / 10,
                "moves": int(n),
                "games": sum(1 for g in game_sums if g[b][2]),
                "chance": round(c / n, 4),
                "won": round(r / n, 4),
                "gap_interval_95": [round(low, 4), round(high, 4)],
                "within_5_points": low <= TOLERANCE and high >= -TOLERANCE,
            }
        )
    ece = expected_calibration_error(points)
    return {
        "games": len(games),
        "moves": len(points),
        "cpu_seconds_per_game": sum(g["cpu_seconds"] for g in games) / max(1, len(games)),
        "ece": round(ece, 4),
        "ece_interval_95": [round(x, 4) for x in _interval(boot[-1])],
        "every_bin_within_5_points": all(b["within_5_points"] for b in bins),
        "meets_target": ece <= TARGET_ECE or all(b["within_5_points"] for b in bins),
        "bins": bins,
    }


def calibration(
    path: Path | dict[str, Any],
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> dict[str, Any]:
    """Per context, the calibration of what the analysis shows (the shipped maps applied) on the games
    of ``path`` (a points file or a directory of records): bins of 0.1 with each bin's 95 % interval of
    (won - chance) by bootstrap resamples of the games, the ECE with its interval, and whether the
    target holds (every bin's interval reaches the diagonal ±5 points, or ECE <= 0.02)."""
    rng = random.Random(seed)
    return {
        context: _context_calibration(games, context, CALIBRATION, rng, resamples, CALIBRATION_CURVES)
        for context, games in sorted(_by_context(_load_points(path, iterations)).items())
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


def _merged(paths: Sequence[Path]) -> Path | dict[str, Any]:
    if len(paths) == 1:
        return paths[0]
    data = [_load_points(p) for p in paths]
    return {"iterations": data[0]["iterations"], "games": [g for d in data for g in d["games"]]}


def main(argv: Sequence[str]) -> int:
    checks: dict[str, Callable[[Any], dict[str, Any]]] = {
        "calibration": calibration,
        "mistakes": mistakes,
        "fit": fit,
        "crossval": crossval,
    }
    if len(argv) >= 4 and argv[0] == "points" and argv[-2] == "--out":
        data = collect([Path(a) for a in argv[1:-2]])
        Path(argv[-1]).write_text(json.dumps(data), encoding="utf-8")
        print(f"{len(data['games'])} games analysed into {argv[-1]}")
        return 0
    if len(argv) < 2 or argv[0] not in checks or (argv[0] == "mistakes" and len(argv) != 2):
        print(
            "usage: python -m clashofdecks.simulation.analysis_check calibration|fit|crossval\n"
            "       POINTS...|DIR, mistakes DIR, or points DIR... --out POINTS",
            file=sys.stderr,
        )
        return 2
    print(json.dumps(checks[argv[0]](_merged([Path(a) for a in argv[1:]])), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
