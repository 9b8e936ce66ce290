"""Tournaments (issue 39): the Swiss system's written rules (clashofdecks/tournaments/swiss.py) and
lichess's arena scoring (tournaments/arena.py), as pure functions over results."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clashofdecks.tournaments.arena import Outcome, arena_score, pair_waiting
from clashofdecks.tournaments.swiss import DRAW, LOSS, WIN, Game, PairingError, pair_round, standings

W, D, L, A = Outcome.WIN, Outcome.DRAW, Outcome.LOSS, Outcome.ABORTED


def _play(
    seeds: list[str], rounds: int, rng: random.Random, withdraw: dict[int, str] | None = None
) -> list[Game]:
    """A Swiss of ``rounds`` rounds with random results (``withdraw``: who leaves before which round)."""
    games: list[Game] = []
    out: set[str] = set()
    for rnd in range(1, rounds + 1):
        if withdraw and rnd in withdraw:
            out.add(withdraw[rnd])
        pairs, bye = pair_round(seeds, games, out)
        games += [Game(rnd, a, b, rng.choice((WIN, DRAW, LOSS))) for a, b in pairs]
        if bye is not None:
            games.append(Game(rnd, bye, None, WIN))
    return games


def test_round_one_folds_the_seed_list_top_half_against_bottom_half() -> None:
    seeds = [f"p{i}" for i in range(1, 9)]
    pairs, bye = pair_round(seeds, [])
    assert bye is None
    assert pairs == [("p1", "p5"), ("p2", "p6"), ("p3", "p7"), ("p4", "p8")]


def test_winners_meet_winners_and_nobody_meets_twice() -> None:
    seeds = [f"p{i}" for i in range(1, 9)]
    games = [Game(1, a, b, WIN) for a, b in pair_round(seeds, [])[0]]  # p1..p4 won
    pairs, _ = pair_round(seeds, games)
    winners = {"p1", "p2", "p3", "p4"}
    for a, b in pairs:
        assert (a in winners) == (b in winners), pairs
    assert not {frozenset(p) for p in pairs} & {frozenset((g.a, g.b)) for g in games}


def test_the_bye_goes_to_the_lowest_player_without_one_and_scores_a_win() -> None:
    seeds = ["a", "b", "c", "d", "e"]
    rng = random.Random(3)
    games = _play(seeds, 5, rng)
    byes = [g.a for g in games if g.b is None]
    assert sorted(byes) == seeds  # five rounds, five players: each sits out exactly once
    first_bye = next(g for g in games if g.b is None and g.round == 1)
    assert first_bye.a == "e"  # all on 0 in round 1: the last seed
    table = {s.player: s for s in standings(seeds, games)}
    assert all(table[p].games == 5 for p in seeds)
    assert sum(s.score for s in table.values()) == 5 * 2 + 5  # 2 games a round worth 1 each, and 5 byes


def test_a_withdrawn_player_is_not_paired_and_still_counts_for_buchholz() -> None:
    seeds = ["a", "b", "c", "d", "e", "f"]
    games = _play(seeds, 4, random.Random(11), withdraw={3: "c"})
    assert all("c" not in (g.a, g.b) for g in games if g.round >= 3)
    c_opponents = {g.opponent_of("c") for g in games if "c" in (g.a, g.b)}
    table = {s.player: s for s in standings(seeds, games)}
    for player in c_opponents - {None}:
        assert player is not None
        opponents = [g.opponent_of(player) for g in games if player in (g.a, g.b)]
        assert table[player].buchholz == sum(table[o].score for o in opponents if o is not None)
        assert "c" in opponents


def test_standings_break_ties_by_buchholz_then_sonneborn_berger_then_seed() -> None:
    seeds = ["a", "b", "c", "d"]
    games = [
        Game(1, "a", "c", WIN),
        Game(1, "b", "d", WIN),
        Game(2, "a", "b", LOSS),
        Game(2, "c", "d", DRAW),
        Game(3, "a", "d", WIN),
        Game(3, "b", "c", LOSS),
    ]
    table = standings(seeds, games)
    # Scores: a 2, b 2, c 1.5, d 0.5.  Buchholz: a = c + b + d = 4, b = d + a + c = 4.
    # Sonneborn-Berger: a beat c and d = 2; b beat d and a = 2.5: b first.
    assert [s.player for s in table] == ["b", "a", "c", "d"]
    assert table[0].score == 2 and table[0].buchholz == 4 and table[0].sonneborn_berger == Fraction(5, 2)
    assert table[1].sonneborn_berger == 2
    tied = standings(["x", "y"], [])
    assert [s.player for s in tied] == ["x", "y"]  # nothing played: the seed order


def test_a_repeat_is_paired_only_when_no_pairing_without_one_exists() -> None:
    seeds = ["a", "b", "c", "d"]
    games = _play(seeds, 3, random.Random(5))
    met = [frozenset((g.a, g.b)) for g in games if g.b is not None]
    assert len(met) == len(set(met)) == 6  # three rounds of K4: every pair once
    pairs, bye = pair_round(seeds, games)
    assert bye is None and len(pairs) == 2  # a fourth round must repeat: it still pairs everyone


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(PairingError, match="listed twice"):
        pair_round(["a", "a"], [])
    with pytest.raises(PairingError, match="not in the tournament"):
        pair_round(["a", "b"], [Game(1, "a", "z", WIN)])
    with pytest.raises(PairingError, match="fewer than two"):
        pair_round(["a", "b"], [], withdrawn=["b"])


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_every_round_pairs_each_player_once_without_repeats_while_rounds_allow(n: int, seed: int) -> None:
    """Up to n/2 rounds a pairing without repeats always exists (Dirac's theorem on what is left of the
    complete graph), and the matching finds it; each player still in plays once a round or has the bye."""
    seeds = [f"p{i}" for i in range(n)]
    rng = random.Random(seed)
    games: list[Game] = []
    for rnd in range(1, n // 2 + 1):
        pairs, bye = pair_round(seeds, games)
        seen = [p for pair in pairs for p in pair] + ([bye] if bye else [])
        assert sorted(seen) == sorted(seeds)
        met = {frozenset((g.a, g.b)) for g in games if g.b is not None}
        assert not met & {frozenset(p) for p in pairs}
        had_bye = {g.a for g in games if g.b is None}
        assert bye is None or bye not in had_bye or had_bye >= set(seeds)
        games += [Game(rnd, a, b, rng.choice((WIN, DRAW, LOSS))) for a, b in pairs]
        if bye:
            games.append(Game(rnd, bye, None, WIN))
    assert pair_round(seeds, games) == pair_round(seeds, list(games))  # deterministic


# ---------------------------------------------------------------------------- the arena


@pytest.mark.parametrize(
    ("outcomes", "points", "on_fire"),
    [
        ([], 0, False),
        ([W, W, W], 2 + 2 + 4, True),
        ([W, W, D, W], 2 + 2 + 2 + 2, False),  # a draw on a streak scores double and ends it
        ([W, W, L, W, W, W], 2 + 2 + 0 + 2 + 2 + 4, True),
        ([W, A, W, W], 2 + 0 + 2 + 4, True),  # an aborted game scores nothing and breaks nothing
        ([L, D, D], 0 + 1 + 1, False),
    ],
)
def test_arena_scores_as_lichess_without_berserk(outcomes: list[Outcome], points: int, on_fire: bool) -> None:
    score = arena_score(outcomes)
    assert (score.points, score.on_fire) == (points, on_fire)
    assert sum(score.sheet) == points and len(score.sheet) == len(outcomes)


def test_arena_pairs_neighbours_in_the_ranking_and_never_the_last_opponent_while_others_wait() -> None:
    points = {"a": 10, "b": 9, "c": 4, "d": 3}
    assert pair_waiting(["d", "c", "b", "a"], points, {}, {}) == [("a", "b"), ("c", "d")]
    last = {"a": "b", "b": "a", "c": "d", "d": "c"}
    pairs = pair_waiting(["a", "b", "c", "d"], points, {}, last)
    assert {frozenset(p) for p in pairs} == {frozenset("ac"), frozenset("bd")}
    assert pair_waiting(["a", "b", "c"], points, {}, {"a": "b", "b": "a"}) in ([("a", "c")], [("b", "c")])
    assert pair_waiting(["a"], points, {}, {}) == []
    with pytest.raises(ValueError, match="twice"):
        pair_waiting(["a", "a"], points, {}, {})
