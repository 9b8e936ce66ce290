"""Swiss tournaments for a game without colours: pairings, byes and standings (issue 39).

No Python library pairs a Swiss for a game where the first player is a coin toss (R2.3a), so the
rules are written here and tested (tests/test_tournaments.py):

1. **Score**: a win 1, a draw ½, a loss 0; a bye counts as a win.  An aborted game (docs/web.md, the
   abort rule) is not a result: it is left out, as if unplayed.
2. **Bye**: with an odd number of players still in, the player ranked lowest (score, then the
   tie-breaks, then the seed order) among those who never had a bye sits out and scores the bye;
   when everybody had one, the lowest ranked does.
3. **Pairing**: a maximum-weight perfect matching (networkx) of the others.  Two players who met are
   never paired again while any pairing without a repeat exists; among the pairings without repeats
   the matching minimises the sum of the squared score differences (players meet their own score group
   first), then pairs the top half of a score group with its bottom half (rank *i* with rank
   *i + n/2*, the Dutch system's idea) by a smaller weight.  Only if no pairing without repeats exists
   (few players, many rounds) is a repeat allowed, at the largest cost.
4. **Withdrawal**: a withdrawn player is never paired again; their games stay and count for the others'
   tie-breaks.
5. **Standings**: score, then Buchholz (the sum of the scores of the opponents played; a bye adds
   nothing), then Sonneborn-Berger (the scores of the opponents beaten, plus half the scores of those
   drawn), then the seed order (the entry order, or the rating at the start).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

#: A result from the first player's side: 1 a win, ½ a draw, 0 a loss.
WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


@dataclass(frozen=True)
class Game:
    """One finished pairing of a round: ``score_a`` is ``a``'s result (1, ½ or 0); ``b`` is ``None``
    for a bye (then ``score_a`` is 1)."""

    round: int
    a: str
    b: str | None
    score_a: Fraction

    def score_of(self, player: str) -> Fraction:
        return self.score_a if player == self.a else 1 - self.score_a

    def opponent_of(self, player: str) -> str | None:
        return self.b if player == self.a else self.a


@dataclass(frozen=True)
class Standing:
    """One line of the table."""

    rank: int
    player: str
    score: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    games: int


class PairingError(ValueError):
    """A round cannot be paired as asked (an unknown or repeated player, fewer than two players)."""


def _check_players(seeds: Sequence[str], games: Iterable[Game]) -> None:
    if len(set(seeds)) != len(seeds):
        raise PairingError("a player is listed twice")
    known = set(seeds)
    for game in games:
        for player in (game.a, game.b):
            if player is not None and player not in known:
                raise PairingError(
                    f"game of round {game.round} names {player!r}, who is not in the tournament"
                )


def standings(seeds: Sequence[str], games: Sequence[Game]) -> list[Standing]:
    """The table after ``games`` (rule 5): every player of ``seeds`` (in seed order), withdrawn or not."""
    _check_players(seeds, games)
    score = {p: Fraction(0) for p in seeds}
    played: dict[str, list[Game]] = {p: [] for p in seeds}
    for game in games:
        score[game.a] += game.score_a
        played[game.a].append(game)
        if game.b is not None:
            score[game.b] += 1 - game.score_a
            played[game.b].append(game)

    def buchholz(p: str) -> Fraction:
        return sum((score[o] for g in played[p] if (o := g.opponent_of(p)) is not None), Fraction(0))

    def sonneborn_berger(p: str) -> Fraction:
        total = Fraction(0)
        for g in played[p]:
            opponent = g.opponent_of(p)
            if opponent is not None:
                total += g.score_of(p) * score[opponent]
        return total

    order = {p: i for i, p in enumerate(seeds)}
    rows = [(p, score[p], buchholz(p), sonneborn_berger(p), len(played[p])) for p in seeds]
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], order[r[0]]))
    return [Standing(i + 1, p, s, b, sb, n) for i, (p, s, b, sb, n) in enumerate(rows)]


def pair_round(
    seeds: Sequence[str], games: Sequence[Game], withdrawn: Iterable[str] = ()
) -> tuple[list[tuple[str, str]], str | None]:
    """The next round's pairings (first listed: the higher ranked) and the player with the bye, or
    ``None`` (rules 2–4).  The same inputs give the same pairings."""
    _check_players(seeds, games)
    out = set(withdrawn)
    table = [s for s in standings(seeds, games) if s.player not in out]
    if len(table) < 2:
        raise PairingError("fewer than two players are still in the tournament")
    bye = None
    if len(table) % 2:
        had_bye = {g.a for g in games if g.b is None}
        candidates = [s for s in table if s.player not in had_bye] or table
        bye = candidates[-1].player
        table = [s for s in table if s.player != bye]
    met = {frozenset((g.a, g.b)) for g in games if g.b is not None}
    return _matching(table, met), bye


def _matching(table: Sequence[Standing], met: set[frozenset[str]]) -> list[tuple[str, str]]:
    """Rule 3 as one maximum-weight matching: each edge's cost is (repeat, score difference, fold),
    weighted so that one unit of a level outweighs every sum of the levels below it."""
    rank = {s.player: i for i, s in enumerate(table)}
    group_size: dict[Fraction, int] = {}
    place_in_group: dict[str, int] = {}
    for s in table:
        place_in_group[s.player] = group_size.get(s.score, 0)
        group_size[s.score] = group_size.get(s.score, 0) + 1
    costs: dict[tuple[str, str], tuple[int, int, int]] = {}
    for i, x in enumerate(table):
        for y in table[i + 1 :]:
            diff = x.score - y.score
            fold = 0
            if x.score == y.score:  # the top half of a group meets its bottom half
                half = group_size[x.score] // 2
                fold = abs(abs(place_in_group[y.player] - place_in_group[x.player]) - half)
            repeat = int(frozenset((x.player, y.player)) in met)
            costs[(x.player, y.player)] = (repeat, int(diff * diff * 4), fold)
    pairs_per_round = len(table) // 2
    fold_unit = 1
    score_unit = fold_unit * (pairs_per_round * max(c[2] for c in costs.values()) + 1)
    repeat_unit = score_unit * (pairs_per_round * max(c[1] for c in costs.values()) + 1) + (score_unit - 1)
    cost = {
        pair: repeat * repeat_unit + score * score_unit + fold * fold_unit
        for pair, (repeat, score, fold) in costs.items()
    }
    # Every perfect matching has as many pairs, so the heaviest one of (ceiling - cost) is the cheapest.
    ceiling = max(cost.values()) + 1
    graph: nx.Graph[str] = nx.Graph()
    for (a, b), c in cost.items():
        graph.add_edge(a, b, weight=ceiling - c)
    pairs = nx.max_weight_matching(graph, maxcardinality=True)
    ordered = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    return sorted(ordered, key=lambda ab: rank[ab[0]])


__all__ = ["DRAW", "LOSS", "WIN", "Game", "PairingError", "Standing", "pair_round", "standings"]
