"""Properties of random solo games at every level (R7, R8), checked after every action.

A uniformly random player plays thousands of solo games (draft and preconstructed formats, levels
0-5, both lane variants) started with :func:`new_game`.  After every action:

- the 32 cards are each exactly once across the player's hand, both players' lanes, the automaton
  deck and its discard pile; exactly one fortress card is in the player's hand and exactly one is at
  the bottom of the automaton deck (R1.1, R7.1); while a return order is pending (R3.9) the destroyed
  creatures are the pending cards, and an incantation whose cast was interrupted is resolving;
- the game ends (no turn cap in the ruleset: the rules themselves end every game, R7.8).

On a subset, with events recorded, the automaton deck is followed through the event log (damage
discards, reveals, the R7.7 rebuild) to check that the automaton never reveals a card when its deck
is empty above its fortress, that a turn beginning with its deck empty above its Fort is its last
(R7.8, R7.8a), and that the player then wins unless their Fort became rightmost.  Undo must restore
the game exactly, and solo positions must round-trip through JSON whenever no decision is pending.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clashofdecks import EventKind, Game, Ruleset, Threat, dump_position, load_position
from clashofdecks.agents.registry import make_agent
from clashofdecks.cards import CARD_IDS, INCANTATIONS
from clashofdecks.formats import new_game
from hypothesis_choices import Choices, game_choices

CARDS = Counter(CARD_IDS[:32])
INCANTATION_IDS = {CARD_IDS[c] for c in INCANTATIONS}
FORTRESS = ("BASTION", "FORT")
MAX_ACTIONS = 500  # setup (8 picks) + play; random solo games take about 30 actions
RULESETS = (
    Ruleset(),
    Ruleset(lanes="rotated"),
    Ruleset(automaton_lanes="per_card"),
    Ruleset(lanes="rotated", automaton_lanes="per_card", incantation_timing="summon_only"),
)


#: Other allocations of each level's points (R8.1), so every threat option of R8.2 is played.
OTHER_ALLOCATIONS = {
    0: Threat(resilience="fort", abilities=("rage",)),
    1: Threat(resilience="fort", abilities=("splash", "perforation")),
    2: Threat(defence="minus_one"),
    3: Threat(extra_mana_per_creature=2, abilities=("berserk",)),
    4: Threat(starts="automaton", abilities=("protection", "rage", "splash")),
    5: Threat(
        resilience="fort", abilities=("splash", "perforation", "rage", "protection", "berserk"), base_mana=7
    ),
}


def _start(seed: int, level: int, fmt: str, *, record_events: bool) -> Game:
    threat = OTHER_ALLOCATIONS[level] if seed % 3 == 2 else Threat.level(level)
    assert threat.threat_points() == level
    return new_game(
        mode="solo",
        format=fmt,
        seed=seed,
        threat=threat,
        ruleset=RULESETS[seed % len(RULESETS)],
        record_events=record_events,
    )


def _lane_cards(pos: dict[str, Any], p: int) -> list[str]:
    lanes = pos["players"][p]["lanes"]
    return [c if isinstance(c, str) else c["card"] for lane in ("top", "bottom") for c in lanes[lane]]


def _check_cards(game: Game) -> dict[str, Any]:
    """Every card exactly once; one fortress card in the hand and one at the bottom of the deck."""
    pos = dump_position(game)
    hand = pos["players"][0]["hand"]
    auto = pos["players"][1]
    deck = auto["deck"]
    assert sum(1 for c in hand if c in FORTRESS) == 1, hand
    assert deck and deck[-1] in FORTRESS and not any(c in FORTRESS for c in deck[:-1]), deck
    everywhere = Counter(
        [c for c in hand if c not in FORTRESS]
        + _lane_cards(pos, 0)
        + _lane_cards(pos, 1)
        + deck[:-1]
        + auto["discard"]
        + pos.get("pending", {}).get("cards", [])
        # R3.9 interrupting a cast: the incantation is resolving, out of every zone (R3.4c, R5.4a).
        + [r["card"] for r in [pos.get("pending", {}).get("resolving")] if r]
    )
    assert everywhere == CARDS, (CARDS - everywhere, everywhere - CARDS)
    return pos


def _play_out(game: Game, rng: random.Random) -> int:
    """Random legal actions to the end, checking the cards after each play action; returns the count."""
    for n in range(MAX_ACTIONS):
        if game.is_over():
            return n
        legal = game.legal_actions()
        assert legal, "a game that is not over must have a legal action"
        game.apply(legal[rng.randrange(len(legal))])
        if game.phase != "setup":
            _check_cards(game)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


def test_random_solo_games_keep_every_card_once_and_end() -> None:
    """6,000 random games: 500 per level (0-5) and format (draft, precon); R7.8: all end."""
    games = 0
    winners: Counter[int | None] = Counter()
    for level in range(6):
        for fmt in ("draft", "precon"):
            for i in range(500):
                seed = level * 10_000 + (0 if fmt == "draft" else 5_000) + i
                game = _start(seed, level, fmt, record_events=False)
                _play_out(game, random.Random(seed))
                assert game.outcome is not None and game.outcome.winner in (0, 1)
                winners[game.outcome.winner] += 1
                games += 1
    assert games == 6_000
    assert winners[1] > winners[0]  # the random player loses most games
    assert sum(winners.values()) == games


# ------------------------------------------------------------- the automaton deck via events


def _follow_events(game: Game, events: tuple[Any, ...], state: dict[str, Any]) -> None:
    """Update (deck size above the fortress, side, last turn?) from one action's events."""
    for e in events:
        if e.player != 1:
            continue
        if e.kind == EventKind.TURN_STARTED:
            state["last"] = state["fort"] and state["size"] == 0
            state["turns"] += 1
        elif e.kind == EventKind.REVEALED:
            assert state["size"] > 0, "revealed a card with the deck empty above its fortress"
            assert not state["last"], "revealed a card in its last turn (R7.8)"
            state["size"] -= 1
            state["reveals"] += 1
        elif e.kind == EventKind.DISCARDED and e.rule == "R7.6":
            assert state["size"] > 0, "discarded for damage from an empty deck (R7.6a)"
            state["size"] -= 1
        elif e.kind == EventKind.BASTION_FELL:
            assert not state["fort"] and state["size"] == 0, "the Bastion flips only when the deck is empty"
            state["fort"] = True
        elif e.kind == EventKind.DECK_REBUILT:
            assert state["fort"]
            state["size"] = e.amount
        elif e.kind == EventKind.TURN_ENDED and state["last"]:
            state["last_turn_ended"] = True
    side, size, _ = game.fortress(1)
    assert (side == "FORT", size) == (state["fort"], state["size"]), "event log and deck disagree"


def test_r7_8_no_reveal_when_deck_empty_above_fort() -> None:
    """R7.8/R7.8a on 600 recorded games (half played by the greedy agent, which often empties the
    automaton deck): no reveal with an empty deck; the last turn ends the game, won by the player."""
    last_turns = rebuilds = 0
    for level in range(6):
        for i in range(100):
            seed = 900_000 + level * 1_000 + i
            game = _start(seed, level, "draft" if i % 2 else "precon", record_events=True)
            rng = random.Random(seed)
            greedy = make_agent("greedy", seed) if i % 2 == 0 else None  # it reaches last turns
            state: dict[str, Any] = {}
            for _ in range(MAX_ACTIONS):
                if game.is_over():
                    break
                legal = game.legal_actions()
                action = greedy.act(game) if greedy else legal[rng.randrange(len(legal))]
                events = game.apply(action)
                if game.phase == "setup":
                    continue
                if not state:  # the deal: start following the deck
                    state = {"fort": False, "size": 24, "last": False, "turns": 0, "reveals": 0}
                    state["fort"] = game.threat.resilience == "fort"
                    if game.turn > 1:  # the automaton started (R8.2): its turn 1 already happened
                        started = [e for e in events if e.kind == EventKind.TURN_STARTED and e.player == 1]
                        assert len(started) == 1
                        state["size"] = game.fortress(1)[1]
                        continue
                rebuilds += sum(1 for e in events if e.kind == EventKind.DECK_REBUILT)
                _follow_events(game, events, state)
                if state.get("last_turn_ended"):
                    last_turns += 1
                    assert game.is_over(), "the game goes on after the automaton's last turn (R7.8)"
                    assert game.outcome is not None and game.outcome.winner == 0
                    break
            assert game.is_over()
    assert rebuilds > 0  # the R7.7 flip happens in these games
    assert last_turns > 0  # and the last turn of R7.8 too


# ------------------------------------------------------------------------- undo, round trip


def _snapshot(game: Game) -> tuple[Any, ...]:
    pos = dump_position(game) if game.phase != "setup" else None
    return (pos, list(game.legal_actions()), game.current_player, game.phase, game.history)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    level=st.integers(0, 5),
    fmt=st.sampled_from(["draft", "precon"]),
    choices=game_choices(64),
)
def test_undo_restores_exactly_and_positions_round_trip(
    seed: int, level: int, fmt: str, choices: Choices
) -> None:
    """Undo after every action gives back the same game (re-applying gives the same result, so the
    RNG is restored too); every solo position without a pending decision round-trips through JSON
    and the loaded game has the same legal actions; undoing everything returns to the start.  The
    action choices are drawn by Hypothesis (a failure shrinks to few, simple choices)."""
    with choices.report():
        _undo_and_round_trip(_start(seed, level, fmt, record_events=seed % 2 == 0), choices)


def _undo_and_round_trip(game: Game, choices: Choices) -> None:
    start = _snapshot(game)
    while not game.is_over() and choices.more():
        before = _snapshot(game)
        action = choices.action(game)
        game.apply(action)
        after = _snapshot(game)
        assert game.undo() == action
        assert _snapshot(game) == before
        game.apply(action)
        assert _snapshot(game) == after
        if game.phase != "setup" and game.pending is None:
            pos = dump_position(game)
            loaded = load_position(pos)
            assert dump_position(loaded) == pos
            if not game.is_over():
                assert list(loaded.legal_actions()) == list(game.legal_actions())
                assert loaded.current_player == game.current_player
    assert game.is_over() or not choices.to_the_end, "R7.8: every solo game ends"
    while game.undo_depth:
        game.undo()
    assert _snapshot(game) == start
