"""Property-based tests (Hypothesis) over thousands of random legal games, duel and solo.

Every game is played with uniformly random legal actions through to its end, and after every action
the invariants of the rules are checked (see :func:`check_invariants`): cards are never lost or
duplicated, each hand holds one fortress card (R1.3), mana is never negative (R3.1), no creature in
play has damage >= health (R3.8).  Further properties: a position survives dump/load exactly,
undo restores the exact game, a clone is independent, the same seed and choices give the same game,
every legal action is accepted and others are refused without a trace.

Hypothesis draws the seeds, rulesets and threat options, and every action choice of every game
(:mod:`hypothesis_choices`: one game per example, a number of actions and bytes to read the choices
from), so a failing game shrinks to few and simple actions and the report lists them.  Deals and
the other integers a check samples come from the drawn seed.  The runs are derandomized, so CI sees
the same games every time; set ``CLASH_HYPOTHESIS_EXPLORE=1`` to explore new ones.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from clashofdecks import (
    ACTION_SPACE,
    CARDS,
    EventKind,
    Game,
    IllegalActionError,
    Ruleset,
    Threat,
    dump_position,
    load_position,
    view,
)
from clashofdecks.formats import new_game
from clashofdecks.options import THREAT_ABILITIES, VARIANT_CHOICES
from hypothesis_choices import Choices, choice_bytes, game_choices
from random_play import random_steps

HEALTH = {c.id: c.health for c in CARDS}
INCANTATION_IDS = {c.id for c in CARDS if not c.is_creature}
FORTRESS = ("BASTION", "FORT")
#: Choices Hypothesis draws per game (read cyclically beyond): a random duel takes about 50 actions
#: (99% take fewer than 130), a solo game about 25 (setup included).
DUEL_CHOICES = 128
SOLO_CHOICES = 64


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not os.environ.get("CLASH_HYPOTHESIS_EXPLORE"),
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


# ----------------------------------------------------------------------------- strategies

seeds = st.integers(min_value=0, max_value=2**64 - 1)
rulesets = st.builds(
    Ruleset,
    **{name: st.sampled_from(choices) for name, choices in VARIANT_CHOICES.items()},
    max_turns=st.none() | st.integers(min_value=1, max_value=30),
)
threats = st.builds(
    Threat,
    extra_mana_per_creature=st.sampled_from((1, 2)),
    base_mana=st.integers(min_value=6, max_value=10),
    starts=st.sampled_from(("player", "automaton")),
    resilience=st.sampled_from(("bastion", "fort")),
    defence=st.sampled_from(("full", "minus_one")),
    abilities=st.lists(st.sampled_from(THREAT_ABILITIES), unique=True).map(tuple),
)


# ----------------------------------------------------------------------------- game sources


def duel_game(seed: int, ruleset: Ruleset) -> Game:
    """A benchmark deal (Game.random_duel)."""
    return Game.random_duel(seed, ruleset=ruleset, record_events=False)


def solo_game(seed: int, ruleset: Ruleset, make_solo_position: Callable[..., dict[str, Any]]) -> Game:
    """A solo quick game loaded from a position with a random split of the 32 cards (R7.1)."""
    position = make_solo_position(random.Random(seed), ruleset=ruleset.to_dict())
    return load_position(position, record_events=False)


def setup_game(
    mode: str, fmt: str, seed: int, ruleset: Ruleset, threat: Threat | None, choices: Choices
) -> Game:
    """A game from :func:`new_game` whose setup (draft picks, deck choices) ``choices`` made."""
    game = new_game(mode=mode, format=fmt, seed=seed, ruleset=ruleset, threat=threat, record_events=False)
    while game.phase == "setup":
        assert game.legal_actions(), "every setup decision of these formats lists its choices"
        choices.play(game)
    return game


# ----------------------------------------------------------------------------- invariants


def owned_cards(position: dict[str, Any]) -> list[Counter[str]]:
    """Per player, the multiset of playable cards in their hand/deck/discard and lanes, the
    destroyed creatures waiting for their owner's return order (R3.9) and the incantation whose
    resolution that decision interrupts (R5.4a: in no zone until the order is chosen)."""
    out: list[Counter[str]] = []
    pending = position.get("pending")
    for p, pl in enumerate(position["players"]):
        cards: Counter[str] = Counter()
        if pending is not None and pending["player"] == p:
            cards.update(pending["cards"])
        if pending is not None and pending.get("resolving", {}).get("player") == p:
            cards[pending["resolving"]["card"]] += 1
        for zone in ("hand", "deck", "discard"):
            cards.update(c for c in pl.get(zone, []) if c not in FORTRESS)
        for lane in ("top", "bottom"):
            cards.update(cr["card"] if isinstance(cr, dict) else cr for cr in pl["lanes"][lane])
        out.append(cards)
    return out


def check_invariants(game: Game, start: list[Counter[str]]) -> None:
    """The invariants that hold after every action of a game in its play phases.

    ``start`` is :func:`owned_cards` of the first position.  In solo the 32 cards are one set
    shared by both sides (a creature of the automaton is the automaton's until it is discarded).
    """
    pos = dump_position(game, expanded=True)
    now = owned_cards(pos)
    missing = [start[p] - now[p] for p in (0, 1)]
    extra = [now[p] - start[p] for p in (0, 1)]
    # R3.8, R4.4, R5.4, R7.5: no card is ever lost, duplicated or moved to the other side.
    assert not extra[0] and not extra[1], f"cards appeared: {extra}"
    assert not missing[0] and not missing[1], f"cards lost: {missing}"
    if "pending" in pos:
        resolving = pos["pending"].get("resolving")
        assert resolving is None or resolving["card"] in INCANTATION_IDS, pos["pending"]
    over = game.is_over()
    for p, pl in enumerate(pos["players"]):
        if "hand" in pl:
            hand = pl["hand"]
            # R1.3: exactly one fortress card per hand, BASTION or FORT as the side says.
            forts = [c for c in hand if c in FORTRESS]
            assert forts == [game.fortress(p)[0]], f"player {p} hand {hand}"
            # R3.4, R4.2, R4.3: in a game that goes on the fortress is never rightmost (but while a
            # return order interrupts a cast, the incantation is out of the hand: R3.4c, R5.4a).
            if not over and game.pending is None:
                assert hand[-1] not in FORTRESS, f"player {p} fortress rightmost in a live game: {hand}"
        else:
            deck = pl["deck"]
            assert deck and deck[-1] in FORTRESS and not any(c in FORTRESS for c in deck[:-1]), deck
        for lane in ("top", "bottom"):
            for cr in pl["lanes"][lane]:
                # R3.8: a creature is destroyed as soon as its damage reaches its health.
                assert 0 <= cr["damage"] < HEALTH[cr["card"]], cr
                assert cr["sprint_bonus"] >= 0, cr
    assert pos["mana"] >= 0  # R3.1: never spend more than you have
    assert pos["turn"] >= 1
    # Game end and whose decision it is agree with each other.
    legal = game.legal_actions()
    assert isinstance(legal, tuple) and list(legal) == sorted(set(legal))  # immutable, sorted, no repeat
    if over:
        assert game.current_player == -1 and legal == () and pos["winner"] is not None
        assert game.outcome is not None
        if pos["winner"] == "draw":
            assert game.outcome.winner is None and pos["turn"] == game.ruleset.max_turns
        else:
            assert game.outcome.winner == pos["winner"] == game.winner
    else:
        assert pos["winner"] is None and legal
        expected = game.pending[0] if game.pending is not None else game.active
        assert game.current_player == expected
        if game.is_solo:
            # The automaton's turn resolves inside the player's action: it never has a decision.
            assert game.current_player == 0
    if game.ruleset.max_turns is not None:
        assert pos["turn"] <= game.ruleset.max_turns


def fingerprint(game: Game) -> tuple[Any, ...]:
    """Everything observable about a game (to compare before/after undo, clone, refused actions)."""
    return (
        json.dumps(dump_position(game, expanded=True), sort_keys=True),
        tuple(game.legal_actions()),
        game.current_player,
        game.pending,
        game.outcome,
        json.dumps([view(game, 0), view(game, 1)], sort_keys=True),
        tuple(game.history),
    )


def play_checked(game: Game, choices: Choices) -> int:
    """Play ``game`` with ``choices`` to its end (or the choices' limit), checking the invariants
    after every action; returns the number of actions."""
    start = owned_cards(dump_position(game))
    check_invariants(game, start)
    n = 0
    while not game.is_over() and choices.more():
        mover, turn = game.current_player, game.turn
        own_turn = mover == game.active
        choices.play(game)
        n += 1
        check_invariants(game, start)
        if own_turn and not game.is_solo and game.is_over():
            # R3.4, R3.4a: no play of a player's own turn makes them lose (a turn cap may draw).
            assert game.winner in (mover, None), f"player {mover} lost by their own action"
        if game.turn != turn and not game.is_over() and game.pending is None:
            # R3.1: a new turn's mana is the hand size, fortress card included (R2.6 and R7.1a:
            # only the starting player's very first turn differs, and this is not turn 1).
            assert game.mana == len(game.hand(game.active)), (game.turn, game.mana, game.hand(game.active))
    return n


# ----------------------------------------------------------------------------- cheap invariants, many games


@_settings(2400)
@given(seed=seeds, ruleset=rulesets, choices=game_choices(DUEL_CHOICES))
def test_random_duels_keep_invariants(seed: int, ruleset: Ruleset, choices: Choices) -> None:
    """R1.3, R3.1, R3.8, R4: invariants after every action of random benchmark duels (2400 games)."""
    with choices.report():
        play_checked(duel_game(seed, ruleset), choices)


@_settings(1600)
@given(seed=seeds, ruleset=rulesets, choices=game_choices(SOLO_CHOICES))
def test_random_solo_games_keep_invariants(
    seed: int, ruleset: Ruleset, choices: Choices, make_solo_position: Callable[..., dict[str, Any]]
) -> None:
    """R7: invariants after every action of random solo quick games loaded from positions (1600 games)."""
    game = solo_game(seed, ruleset, make_solo_position)
    owned = owned_cards(dump_position(game))
    assert owned[0] + owned[1] == Counter(c.id for c in CARDS)
    with choices.report():
        play_checked(game, choices)
        assert game.is_over() or not choices.to_the_end, "R7.8: every solo game ends"


@_settings(400)
@given(
    seed=seeds,
    mode=st.sampled_from(("duel", "solo")),
    fmt=st.sampled_from(("draft", "precon")),
    ruleset=rulesets,
    threat=threats,
    choices=game_choices(DUEL_CHOICES),
)
def test_games_from_formats_keep_invariants(
    seed: int, mode: str, fmt: str, ruleset: Ruleset, threat: Threat, choices: Choices
) -> None:
    """R2, R7, R8: games started by new_game (random setup choices, any threat options) keep the
    invariants; in solo all 32 cards exist once, in duel each player keeps their 8 (400 games)."""
    with choices.report():
        game = setup_game(mode, fmt, seed, ruleset, threat if mode == "solo" else None, choices)
        owned = owned_cards(dump_position(game))
        if mode == "solo":
            assert owned[0] + owned[1] == Counter(c.id for c in CARDS)
        else:
            assert sum(owned[0].values()) == sum(owned[1].values()) == 8
        play_checked(game, choices)


def test_a_failing_game_shrinks_to_a_short_action_sequence() -> None:
    """The choices shrink: the smallest game Hypothesis finds in which a creature is destroyed is a
    few actions long (a random game takes dozens before one is), and replays the same."""

    def destroys_a_creature(choices: Choices) -> bool:
        game = Game.random_duel(3)
        while not game.is_over() and choices.more():
            if any(e.kind == EventKind.DESTROYED for e in game.apply(choices.action(game))):
                return True
        return False

    found = find(
        game_choices(DUEL_CHOICES),
        destroys_a_creature,
        settings=settings(database=None, derandomize=True, max_examples=300, deadline=None),
    )
    replayed = found.fresh()
    assert destroys_a_creature(replayed)
    assert 1 <= len(replayed.played) <= 8, replayed.played
    assert replayed.limit is not None and len(replayed.played) == replayed.limit


# ------------------------------------------------------------------ expensive properties, fewer games


def check_every_action(game: Game, rng: random.Random, illegal_samples: int = 8) -> None:
    """At this position: every legal action applies and undoes exactly; its text parses back to it;
    the mask agrees; a sample of other integers is refused and leaves the game exactly as it was."""
    before = fingerprint(game)
    legal = game.legal_actions()
    mask = game.legal_action_mask()
    assert len(mask) == ACTION_SPACE and [a for a, ok in enumerate(mask) if ok] == list(legal)
    for a in legal:
        assert game.parse_action(game.action_text(a)) == a
        game.apply(a)
        assert game.history[-1] == a
        assert game.undo() == a
        assert fingerprint(game) == before, f"undo of {game.action_text(a)!r} did not restore the game"
    legal_set = set(legal)
    candidates = [rng.randrange(ACTION_SPACE) for _ in range(illegal_samples)] + [-1, ACTION_SPACE, 10**9]
    for a in candidates:
        if a in legal_set:
            continue
        with pytest.raises(IllegalActionError) as info:
            game.apply(a)
        assert str(info.value), "a refusal names its reason"
        assert fingerprint(game) == before, f"refused action {a} changed the game"


def check_round_trip(game: Game) -> None:
    """A position dumps, loads and dumps again identically; the loaded game has the same choices."""
    if game.pending is not None:
        return  # loading a position with a pending decision is optional (engine.md)
    pos = dump_position(game)
    again = load_position(json.loads(json.dumps(pos)), record_events=False)
    assert dump_position(again) == pos
    assert dump_position(again, expanded=True) == dump_position(game, expanded=True)
    assert again.legal_actions() == game.legal_actions()
    assert again.current_player == game.current_player


def deep_check_game(game: Game, choices: Choices, seed: int) -> None:
    """The checks above at every position of a game played with ``choices``; the illegal integers
    tried are sampled from ``seed`` (they are not choices of the game)."""
    samples = random.Random(seed)
    with choices.report():
        while True:
            check_round_trip(game)
            check_every_action(game, samples)
            if game.is_over() or not choices.more():
                return
            choices.play(game)


@_settings(200)
@given(seed=seeds, ruleset=rulesets, choices=game_choices(DUEL_CHOICES))
def test_duel_undo_legality_and_round_trip(seed: int, ruleset: Ruleset, choices: Choices) -> None:
    """At every position of random duels: every legal action is accepted and undone exactly, other
    actions are refused without a trace, and the position round-trips through JSON (200 games)."""
    deep_check_game(duel_game(seed, ruleset), choices, seed)


@_settings(200)
@given(seed=seeds, ruleset=rulesets, choices=game_choices(SOLO_CHOICES))
def test_solo_undo_legality_and_round_trip(
    seed: int, ruleset: Ruleset, choices: Choices, make_solo_position: Callable[..., dict[str, Any]]
) -> None:
    """The same at every position of random solo games (R7: the automaton's turn is undone with
    the player's action that ran it) (200 games)."""
    deep_check_game(solo_game(seed, ruleset, make_solo_position), choices, seed)


@_settings(80)
@given(seed=seeds, ruleset=rulesets, threat=threats, choices=game_choices(SOLO_CHOICES))
def test_solo_with_threat_options_undo_and_round_trip(
    seed: int, ruleset: Ruleset, threat: Threat, choices: Choices
) -> None:
    """R8.2 threat options (mana, starts, resilience, defence, abilities) round-trip and undo exactly
    (80 games)."""
    with choices.report():
        game = setup_game("solo", "draft", seed, ruleset, threat, choices)
    deep_check_game(game, choices, seed)


@_settings(30)
@given(
    seed=seeds, ruleset=rulesets, threat=threats, cut=st.integers(0, 50), choices=game_choices(DUEL_CHOICES)
)
def test_a_loaded_position_plays_on_like_the_original(
    seed: int, ruleset: Ruleset, threat: Threat, cut: int, choices: Choices
) -> None:
    """A position holds the whole state of a game that is not waiting for a decision: the game
    loaded from it accepts the same actions and goes through the same positions to the end (in
    solo, until chance acts: R7.7's reshuffle uses the game's RNG, which is not part of a position)."""
    with choices.report():
        _plays_on_like_the_original(seed, ruleset, threat, cut, choices)


def _plays_on_like_the_original(
    seed: int, ruleset: Ruleset, threat: Threat, cut: int, choices: Choices
) -> None:
    for game in (duel_game(seed, ruleset), setup_game("solo", "draft", seed, ruleset, threat, choices)):
        for _ in range(cut):
            if game.is_over() or game.pending is not None:
                break
            choices.play(game)
        if game.pending is not None:
            continue
        loaded = load_position(dump_position(game), record_events=False)
        while not game.is_over() and choices.more():
            side = game.fortress(1)[0]
            action = choices.action(game)
            assert loaded.legal_actions() == game.legal_actions()
            game.apply(action)
            loaded.apply(action)
            if game.is_solo and game.fortress(1)[0] != side:
                break
            assert dump_position(loaded) == dump_position(game)


def test_undo_all_the_way_back_restores_the_start() -> None:
    """Undoing every action of a finished game gives back the starting position, action by action."""
    for seed in range(30):
        game = Game.random_duel(seed, record_events=False)
        rng = random.Random(seed)
        prints = [fingerprint(game)]
        for _ in random_steps(game, rng):
            prints.append(fingerprint(game))
        while game.undo_depth:
            prints.pop()
            game.undo()
            assert fingerprint(game) == prints[-1]
        with pytest.raises(IndexError):
            game.undo()


# ----------------------------------------------------------------------------- clone and determinism


def choices_game(game: Game, choices: list[int], max_actions: int = 300) -> list[str]:
    """Play ``game`` by picking ``choices[i] % len(legal)``; return the JSON of every position.

    Capped at ``max_actions``: fixed choices can make a game without a turn cap last forever
    (e.g. always ``end``)."""
    out = [json.dumps(dump_position(game), sort_keys=True)]
    i = 0
    while not game.is_over() and i < max_actions:
        legal = game.legal_actions()
        game.apply(legal[choices[i % len(choices)] % len(legal)])
        i += 1
        out.append(json.dumps(dump_position(game), sort_keys=True))
    return out


@_settings(60)
@given(seed=seeds, ruleset=rulesets, choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=80))
def test_same_seed_and_choices_give_the_same_game(seed: int, ruleset: Ruleset, choices: list[int]) -> None:
    """Determinism: the same deal seed and the same choices reproduce every position."""
    first = choices_game(Game.random_duel(seed, ruleset=ruleset, record_events=False), choices)
    second = choices_game(Game.random_duel(seed, ruleset=ruleset, record_events=True), choices)
    assert first == second


@_settings(40)
@given(seed=seeds, threat=threats, choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=80))
def test_same_seed_and_choices_give_the_same_solo_game(seed: int, threat: Threat, choices: list[int]) -> None:
    """Determinism in solo, where chance also acts during play (R7.7: the rebuilt deck's shuffle)."""
    games = []
    for _ in range(2):
        game = new_game(mode="solo", format="draft", seed=seed, threat=threat, record_events=False)
        games.append(game)
        while game.phase == "setup":
            legal = game.legal_actions()
            game.apply(legal[choices[len(game.history) % len(choices)] % len(legal)])
    assert choices_game(games[0], choices) == choices_game(games[1], choices)


@_settings(30)
@given(
    seed=seeds,
    ruleset=rulesets,
    cut=st.integers(0, 60),
    blob=choice_bytes(DUEL_CHOICES),
    after=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
)
def test_clone_is_independent_and_copies_the_rng(
    seed: int, ruleset: Ruleset, cut: int, blob: bytes, after: list[int]
) -> None:
    """A clone equals the original, shares nothing with it (playing the clone to its end leaves the
    original untouched, and the other way round), and, RNG included, continues identically."""
    choices = Choices(blob)
    with choices.report():
        for game in (duel_game(seed, ruleset), setup_game("solo", "draft", seed, ruleset, Threat(), choices)):
            for _ in range(cut):
                if game.is_over():
                    break
                choices.play(game)
            before = fingerprint(game)
            clone = game.clone()
            assert fingerprint(clone)[:-1] == before[:-1]
            assert clone.history == game.history and clone.undo_depth == 0  # the record, not undo
            from_clone = choices_game(clone, after)
            assert fingerprint(game) == before, "playing the clone changed the original"
            # Continue the original with the same choices: the clone's RNG was a copy, not a share.
            clone_after = fingerprint(clone)
            assert choices_game(game, after) == from_clone
            assert fingerprint(clone) == clone_after, "playing the original changed the clone"


# ----------------------------------------------------------------------------- events (checked where on)


def test_events_describe_every_action_of_random_games() -> None:
    """With events on, every action returns its events, each citing a rule and describable."""
    for seed in range(40):
        game = Game.random_duel(seed)
        rng = random.Random(seed)
        for _, events in random_steps(game, rng):
            assert isinstance(events, tuple) and events
            for event in events:
                assert event.rule.startswith("R") or event.rule.startswith("ruleset")
                assert event.describe()
        off = Game.random_duel(seed, record_events=False)
        assert off.apply(off.legal_actions()[0]) == ()
