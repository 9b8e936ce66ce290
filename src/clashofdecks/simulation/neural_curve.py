"""The training curve of a ``neural`` run: strength by training time, measured and drawn as an SVG
(``clash neural-curve measure`` / ``plot``; docs/ai.md, "Self-play on the batch").

A run's log (``out_dir/log.jsonl``, :mod:`.neural_selfplay`) holds one JSON object a line; the
``"kind": "strength"`` lines are the curve's points: a checkpoint's ``train_seconds``, the agent
(``neural:0`` the policy alone, ``neural:N`` with its search), the opponent, the points over the
games and their 95 % Wilson interval.  :func:`measure` appends such a line for a checkpoint;
:func:`curve_svg` draws one line per agent and opponent, with the intervals as whiskers — a small
hand-written SVG (axes, ticks, labels, legend), no plotting library.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..errors import ClashError


class CurveError(ClashError):
    """A run log that cannot be read or drawn (no file, a bad line, no strength measured)."""


@dataclass(frozen=True, slots=True)
class Point:
    minutes: float
    rate: float
    low: float
    high: float
    games: int


_FIELDS = ("train_seconds", "agent", "opponent", "games", "points", "ci95")


def read_log(path: Path) -> list[dict[str, Any]]:
    """The log's entries, or a :class:`CurveError` naming the file and the bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CurveError(f"cannot read the run log {path}: {exc.strerror or exc}") from None
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CurveError(f"{path} line {number} is not JSON: {exc.msg}") from None
        if not isinstance(entry, dict):
            raise CurveError(f"{path} line {number} is not a JSON object")
        entries.append(entry)
    return entries


def curve_series(entries: Sequence[dict[str, Any]], where: str = "the log") -> dict[str, list[Point]]:
    """The strength lines of ``entries`` by ``"agent vs opponent"``, each sorted by training time."""
    out: dict[str, list[Point]] = {}
    for entry in entries:
        if entry.get("kind") != "strength":
            continue
        missing = [f for f in _FIELDS if f not in entry]
        if missing:
            raise CurveError(
                f"a strength line of {where} lacks {', '.join(missing)}: {json.dumps(entry)[:120]}"
            )
        try:
            games = int(entry["games"])
            low, high = (float(x) for x in entry["ci95"])
            point = Point(
                float(entry["train_seconds"]) / 60, float(entry["points"]) / games, low, high, games
            )
        except (TypeError, ValueError, ZeroDivisionError):
            raise CurveError(
                f"a strength line of {where} has bad numbers: {json.dumps(entry)[:120]}"
            ) from None
        out.setdefault(f"{entry['agent']} vs {entry['opponent']}", []).append(point)
    if not out:
        raise CurveError(f'{where} has no strength measurements (lines with "kind": "strength")')
    return {label: sorted(points, key=lambda p: p.minutes) for label, points in out.items()}


def _step(span: float) -> float:
    """A tick step of 1, 2 or 5 × 10^k giving about five ticks over ``span``."""
    step = 1.0
    while span / step > 8:
        for factor in (2.0, 2.5, 2.0):
            step *= factor
            if span / step <= 8:
                break
    return step


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 760, 420, 64, 230, 44, 56


def curve_svg(series: dict[str, list[Point]], title: str) -> str:
    """The curve as an SVG document: win rate (%) by training time (minutes), one line a series."""
    last = max(p.minutes for points in series.values() for p in points)
    step = _step(max(last, 1.0))
    x_max = step * max(1, -(-last // step))
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x(minutes: float) -> float:
        return _LEFT + plot_w * minutes / x_max

    def y(rate: float) -> float:
        return _TOP + plot_h * (1.0 - rate)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}"'
        ' font-family="sans-serif" font-size="12">',
        f'<rect width="{_W}" height="{_H}" fill="white"/>',
        f'<text x="{_W / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
    ]
    parts += _axes(x, y, x_max, step)
    offsets = [k * 0.006 * x_max for k in range(len(series))]  # whiskers side by side, none left of 0
    for k, (label, points) in enumerate(series.items()):
        parts += _line(label, points, _COLOURS[k % len(_COLOURS)], lambda m, d=offsets[k]: x(m + d), y, k)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _axes(x: Any, y: Any, x_max: float, step: float) -> list[str]:
    parts = [
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(x_max)}" y2="{y(0)}" stroke="black"/>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(0)}" y2="{y(1)}" stroke="black"/>',
    ]
    for pct in range(0, 101, 20):
        yy = y(pct / 100)
        parts.append(f'<line x1="{x(0)}" y1="{yy}" x2="{x(x_max)}" y2="{yy}" stroke="#ddd"/>')
        parts.append(f'<text x="{x(0) - 6}" y="{yy + 4}" text-anchor="end">{pct} %</text>')
    yy = y(0.5)
    parts.append(
        f'<line x1="{x(0)}" y1="{yy}" x2="{x(x_max)}" y2="{yy}" stroke="#999" stroke-dasharray="4 3"/>'
    )
    tick = 0.0
    while tick <= x_max + 1e-9:
        parts.append(f'<line x1="{x(tick)}" y1="{y(0)}" x2="{x(tick)}" y2="{y(0) + 5}" stroke="black"/>')
        parts.append(f'<text x="{x(tick)}" y="{y(0) + 19}" text-anchor="middle">{tick:g}</text>')
        tick += step
    parts.append(
        f'<text x="{x(x_max / 2)}" y="{_H - 14}" text-anchor="middle">training time (minutes)</text>'
    )
    parts.append(
        f'<text x="16" y="{y(0.5)}" text-anchor="middle" transform="rotate(-90 16 {y(0.5)})">'
        "win rate (95 % interval)</text>"
    )
    return parts


def _line(label: str, points: list[Point], colour: str, x: Any, y: Any, k: int) -> list[str]:
    coords = " ".join(f"{x(p.minutes):.1f},{y(p.rate):.1f}" for p in points)
    parts = [
        f'<g class="series" data-label={quoteattr(label)}>',
        f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>',
    ]
    for p in points:
        xx = x(p.minutes)
        parts.append(
            f'<line x1="{xx:.1f}" y1="{y(p.low):.1f}" x2="{xx:.1f}" y2="{y(p.high):.1f}" stroke="{colour}"/>'
        )
        for r in (p.low, p.high):
            parts.append(
                f'<line x1="{xx - 3:.1f}" y1="{y(r):.1f}" x2="{xx + 3:.1f}" y2="{y(r):.1f}"'
                f' stroke="{colour}"/>'
            )
        parts.append(f'<circle cx="{xx:.1f}" cy="{y(p.rate):.1f}" r="3" fill="{colour}"/>')
    ly = _TOP + 10 + 34 * k
    lx = _W - _RIGHT + 16
    games = sorted({p.games for p in points})
    parts += [
        f'<line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{colour}" stroke-width="2"/>',
        f'<text x="{lx + 28}" y="{ly + 4}">{escape(label)}</text>',
        f'<text x="{lx + 28}" y="{ly + 18}" fill="#555">{"/".join(map(str, games))} duels a point</text>',
        "</g>",
    ]
    return parts


def plot(
    logs: Sequence[Path], out: Path, title: str = "neural: strength by training time"
) -> dict[str, list[Point]]:
    """Read the ``logs`` (a run's log, and measurements kept apart), write the curve to ``out``;
    the series drawn."""
    entries = [entry for log in logs for entry in read_log(log)]
    series = curve_series(entries, " and ".join(map(str, logs)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(curve_svg(series, title), encoding="utf-8")
    return series


def measure(
    log: Path,
    checkpoint: Path,
    opponent: str,
    games: int,
    seed: int,
    search: int = 0,
    workers: int = 1,
    kind: str = "neural",
) -> dict[str, Any]:
    """Play ``neural:search`` (or ``neural-search:search``: ``kind``) with ``checkpoint``'s weights
    against ``opponent`` and append the strength line (at the checkpoint's training time, from its
    model card) to ``log``."""
    from ..agents.neural import load_model
    from .neural_selfplay import policy_strength

    card = load_model(checkpoint).card
    seconds = card.get("train_seconds", card.get("training_seconds"))
    if not isinstance(seconds, int | float):
        raise CurveError(f"{checkpoint}'s model card has no training time (train_seconds)")
    strength = policy_strength(checkpoint, opponent, games, seed, search, workers, kind)
    entry = {"kind": "strength", "checkpoint": checkpoint.name, "train_seconds": seconds, **strength}
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
    return entry


__all__ = ["CurveError", "Point", "curve_series", "curve_svg", "measure", "plot", "read_log"]
