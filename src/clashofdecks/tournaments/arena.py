"""Arena tournaments: lichess's scoring and the pairing of players who wait (issue 39).

**Scoring** (as lichess's arena, without berserk): a win 2, a draw 1, a loss 0; after two wins in a
row every game scores double (a win 4, a draw 2) until a game that is not a win ends the streak.  A
loss on time is a loss.  An aborted game (docs/web.md, the abort rule) scores nothing and neither
starts nor ends a streak.

**Pairing**: a player who finishes a game waits, and every pairing pass pairs the waiting players
among themselves: ranked by score (then by the rating the caller gives), each meets a player near
them in that order, never the opponent of their last game while anybody else waits (a maximum-weight
matching, networkx).  A player left over waits for the next pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import networkx as nx


class Outcome(Enum):
    """A player's result in one arena game."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    ABORTED = "aborted"


_BASE = {Outcome.WIN: 2, Outcome.DRAW: 1, Outcome.LOSS: 0, Outcome.ABORTED: 0}


@dataclass(frozen=True)
class ArenaScore:
    """A player's arena score after their games, and whether their next game scores double."""

    points: int
    on_fire: bool
    #: Each game's points in order (an aborted game: 0).
    sheet: tuple[int, ...]


def arena_score(outcomes: Sequence[Outcome]) -> ArenaScore:
    """The score of one player's games in the order played (see the module docstring)."""
    wins_in_a_row = 0
    points = 0
    sheet: list[int] = []
    for outcome in outcomes:
        if outcome is Outcome.ABORTED:
            sheet.append(0)
            continue
        gained = _BASE[outcome] * (2 if wins_in_a_row >= 2 else 1)
        wins_in_a_row = wins_in_a_row + 1 if outcome is Outcome.WIN else 0
        points += gained
        sheet.append(gained)
    return ArenaScore(points, wins_in_a_row >= 2, tuple(sheet))


def pair_waiting(
    waiting: Sequence[str],
    points: Mapping[str, int],
    rating: Mapping[str, float],
    last_opponent: Mapping[str, str],
) -> list[tuple[str, str]]:
    """Pairs of the ``waiting`` players (see the module docstring); the same inputs give the same pairs."""
    if len(set(waiting)) != len(waiting):
        raise ValueError("a player waits twice")
    order = sorted(waiting, key=lambda p: (-points.get(p, 0), -rating.get(p, 0.0), p))
    n = len(order)
    if n < 2:
        return []
    # Costs: a rematch of the last game outweighs any distance in the ranking.
    rematch = n * n * n
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(order):
        for j in range(i + 1, n):
            b = order[j]
            again = last_opponent.get(a) == b or last_opponent.get(b) == a
            cost = (j - i) ** 2 + (rematch if again else 0)
            graph.add_edge(a, b, weight=rematch * 2 - cost)
    index = {p: i for i, p in enumerate(order)}
    pairs = nx.max_weight_matching(graph, maxcardinality=True)
    ordered = [(a, b) if index[a] < index[b] else (b, a) for a, b in pairs]
    return sorted(ordered, key=lambda ab: index[ab[0]])


__all__ = ["ArenaScore", "Outcome", "arena_score", "pair_waiting"]
