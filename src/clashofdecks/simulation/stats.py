"""The statistics of ``clash simulate`` and ``clash arena``: Wilson intervals for win rates, and
Bradley–Terry Elo ratings with percentile-bootstrap intervals.

* **Wilson** score interval for a proportion (better than p ± z·se near 0 and 1); a draw may count
  as half a success.
* **Elo** comes from a Bradley–Terry fit (``P(i beats j) = π_i / (π_i + π_j)``, fitted by the MM
  algorithm of Hunter 2004), with one virtual draw per pairing as a weak prior so that a perfect
  score stays finite; ``Elo_i = 400·log10 π_i``, centred on a mean of 0.  The 95 % intervals are
  percentile bootstrap intervals: the deals of every pairing are resampled with replacement (both
  games of a deal together) and the model refitted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

#: 95% two-sided normal quantile.
Z95: Final = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` of ``n`` (``successes`` may hold halves for draws)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 and n successes the exact bounds are 0 and 1; rounding would leave 1e-16 gaps.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def bradley_terry_elo(
    n_agents: int, scores: dict[tuple[int, int], tuple[float, int]], prior_draws: float = 1.0
) -> list[float]:
    """Elo ratings (mean 0) from pairwise results ``{(i, j): (points of i against j, games)}``.

    MM iterations on the Bradley–Terry model; ``prior_draws`` virtual draws per pairing keep an
    unbeaten (or winless) agent finite.
    """
    wins = [0.0] * n_agents
    games: dict[tuple[int, int], float] = {}
    for (i, j), (points, n) in scores.items():
        total = n + prior_draws
        wins[i] += points + prior_draws / 2
        wins[j] += n - points + prior_draws / 2
        key = (min(i, j), max(i, j))
        games[key] = games.get(key, 0.0) + total
    pi = [1.0] * n_agents
    for _ in range(10_000):
        new = []
        for i in range(n_agents):
            denom = 0.0
            for (a, b), m in games.items():
                if a == i:
                    denom += m / (pi[i] + pi[b])
                elif b == i:
                    denom += m / (pi[i] + pi[a])
            new.append(wins[i] / denom if denom > 0 else pi[i])
        log_mean = sum(math.log(x) for x in new) / n_agents
        new = [x / math.exp(log_mean) for x in new]
        change = max(abs(math.log(x) - math.log(y)) for x, y in zip(new, pi, strict=True))
        pi = new
        if change < 1e-10:
            break
    return [400.0 * math.log10(x) for x in pi]


@dataclass
class Pairing:
    """The games between agents ``a`` and ``b`` (indices into a list of agents), by deal."""

    a: int
    b: int
    #: Per deal: (points of ``a`` in the games of the deal, games played of that deal).
    deals: dict[int, tuple[float, int]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return sum(n for _, n in self.deals.values())

    @property
    def points_a(self) -> float:
        return sum(p for p, _ in self.deals.values())

    def add(self, deal: int, points_a: float) -> None:
        """Count one game of ``deal`` in which ``a`` scored ``points_a`` (1, ½ or 0)."""
        old = self.deals.get(deal, (0.0, 0))
        self.deals[deal] = (old[0] + points_a, old[1] + 1)


def _scores(
    pairings: Sequence[Pairing], deal_lists: Sequence[Sequence[int]]
) -> dict[tuple[int, int], tuple[float, int]]:
    out: dict[tuple[int, int], tuple[float, int]] = {}
    for p, deals in zip(pairings, deal_lists, strict=True):
        pts = 0.0
        n = 0
        for d in deals:
            a, k = p.deals[d]
            pts += a
            n += k
        out[(p.a, p.b)] = (pts, n)
    return out


def elo_with_intervals(
    n_agents: int, pairings: Sequence[Pairing], *, bootstrap: int = 1000, seed: int = 0
) -> tuple[list[float], list[float], list[float]]:
    """Bradley–Terry Elo and 95 % percentile-bootstrap intervals (deals resampled per pairing)."""
    deal_lists = [sorted(p.deals) for p in pairings]
    elo = bradley_terry_elo(n_agents, _scores(pairings, deal_lists))
    rng = random.Random(seed)
    samples: list[list[float]] = [[] for _ in range(n_agents)]
    for _ in range(bootstrap):
        resampled = [[ds[rng.randrange(len(ds))] for _ in ds] if ds else [] for ds in deal_lists]
        for i, e in enumerate(bradley_terry_elo(n_agents, _scores(pairings, resampled))):
            samples[i].append(e)
    low, high = [], []
    for s in samples:
        if not s:
            low.append(math.nan)
            high.append(math.nan)
            continue
        s.sort()
        low.append(s[int(0.025 * (len(s) - 1))])
        high.append(s[math.ceil(0.975 * (len(s) - 1))])
    return elo, low, high


__all__ = ["Z95", "Pairing", "bradley_terry_elo", "elo_with_intervals", "wilson_interval"]
