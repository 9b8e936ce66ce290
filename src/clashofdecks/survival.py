"""Survival through the automaton's next turn, proven over every order of its hidden deck (solo puzzles,
issue 39).

In a solo game the player knows the cards of the automaton's deck but not their order (R9.2).  From a
decision of the player in their own turn, :func:`proven_survival` asks whether the player has a line in
the rest of the turn such that, **for every order** of the cards the automaton's deck may hold, the
player survives the automaton's next turn (the game reaches the player's next turn) or wins (R7.8).

Method.  Nothing the player sees in their own turn depends on that order but which cards their attacks
discard from the deck (R7.6), and nothing decides by those cards but which ones are left to reveal.  So
the search of the player's turn runs on the true position (the player's choices existential), and at
the action that ends the turn (the automaton's turn resolves inside it, R7) every order is tried: the
cards the automaton reveals (R7.3) are enumerated as ordered prefixes, one card longer wherever its
turn revealed more cards than the prefix fixed, each prefix on a position rebuilt with that order
(the cards discarded in the player's turn taken from the others).  A decision of the player inside the
automaton's turn (the return order of creatures its incantation destroyed together, R3.9) is the
player's again, made on the cards revealed so far, with the rest of the deck in every order.

What it leaves unproven (``None``): a deck rebuilt in the horizon (R7.7: the Bastion flips and the
discard pile is shuffled, an order not enumerated here), a decision inside the automaton's turn after
the player's attacks discarded cards in the same turn, a draw, or more than ``budget`` positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from .engine import GameEngine
from .native import AVAILABLE, NativeGame, NativeUnsupportedError, in_engine
from .rules import Game, GameState

#: Positions (the player's actions and the automaton's turns tried) one survival proof may visit.
SURVIVAL_BUDGET: Final = 20_000

Outcome = int | None  # 1 the player survives or wins, 0 the player loses, None unproven


@dataclass
class _Proof:
    turn: int  # the player's turn
    pool: frozenset[int]  # the deck's cards above its fortress at the root: their order is hidden
    left: int  # positions the proof may still visit
    memo: dict[tuple[GameState, int], Outcome] = field(default_factory=dict)


def _player_turn_decision(game: GameEngine) -> bool:
    return (
        game.is_solo
        and game.phase != "setup"
        and not game.is_over()
        and game.current_player == 0
        and game.active == 0
    )


def proven_survival(game: GameEngine, budget: int = SURVIVAL_BUDGET) -> float | None:
    """1.0 when the player (seat 0 of a solo game, deciding in their own turn) has a line that survives
    or wins through the automaton's next turn whatever the order of its deck, 0.0 when every line
    loses to some order, ``None`` when the search proves neither (see the module docstring)."""
    if not _player_turn_decision(game):
        return None
    g = _searchable(game)
    proof = _Proof(turn=g.turn, pool=frozenset(g.state().deck[:-1]), left=budget)
    result = _player_turn(g, proof)
    return None if result is None else float(result)


def survives_after(game: GameEngine, action: int, budget: int = SURVIVAL_BUDGET) -> float | None:
    """:func:`proven_survival` of the position after the player's ``action`` (the test of a move in a
    solo puzzle: any move that keeps the survival proven is right)."""
    if not _player_turn_decision(game):
        return None
    g = _searchable(game)
    proof = _Proof(turn=g.turn, pool=frozenset(g.state().deck[:-1]), left=budget)
    result = _after(g, action, proof)
    return None if result is None else float(result)


def ends_the_turn(game: GameEngine, action: int) -> bool:
    """Whether the player's ``action`` ends their turn (the automaton's turn begins inside it)."""
    after = game.clone()
    after.apply(action)
    return after.is_over() or after.turn != game.turn


def _searchable(game: GameEngine) -> GameEngine:
    g = in_engine(game, compiled=True).clone()
    g.keep_undo = True
    return g


def _build(state: GameState) -> GameEngine:
    if AVAILABLE:
        try:
            return NativeGame.from_state(state)
        except NativeUnsupportedError:
            pass
    return Game(state, record_events=False)


def _player_turn(g: GameEngine, proof: _Proof) -> Outcome:
    """The player's decision: 1 if some action survives, 0 if every one loses."""
    outcomes: set[Outcome] = set()
    for action in g.legal_actions():
        outcome = _after(g, action, proof)
        if outcome == 1:
            return 1
        outcomes.add(outcome)
        if proof.left <= 0:
            return None
    return 0 if outcomes == {0} else None


def _after(g: GameEngine, action: int, proof: _Proof) -> Outcome:
    proof.left -= 1
    if proof.left < 0:
        return None
    side = g.state().deck[-1]
    g.apply(action)
    ended = g.is_over() or g.turn != proof.turn
    outcome: Outcome = None
    if not ended and g.state().deck[-1] == side:  # a deck rebuilt in the player's turn: unproven
        outcome = _player_turn(g, proof)
    g.undo()
    if not ended:
        return outcome
    state = g.state()
    key = (state, action)
    if key not in proof.memo:
        discarded = len(proof.pool - set(state.deck[:-1]))
        proof.memo[key] = _every_order(state, action, sorted(proof.pool), discarded, (), proof)
    return proof.memo[key]


def _arranged(state: GameState, pool: Sequence[int], discarded: int, prefix: tuple[int, ...]) -> GameState:
    """``state`` with the deck's hidden cards in the order ``prefix`` then the others (sorted), and the
    ``discarded`` cards the player's attacks took from the deck this turn drawn from the others."""
    rest = [c for c in pool if c not in prefix]
    taken = iter(rest[:discarded])
    hidden = set(pool)
    discard = tuple(next(taken) if c in hidden else c for c in state.discard)
    return replace(state, deck=(*prefix, *rest[discarded:], state.deck[-1]), discard=discard)


def _every_order(
    state: GameState, action: int, pool: Sequence[int], discarded: int, prefix: tuple[int, ...], proof: _Proof
) -> Outcome:
    """``action`` from ``state`` for every order of the hidden cards that starts with ``prefix``:
    1 if the player survives each, 0 if one loses."""
    proof.left -= 1
    if proof.left < 0:
        return None
    arranged = _arranged(state, pool, discarded, prefix)
    game = _build(arranged)
    game.apply(action)
    deck = game.state().deck
    if deck[-1] != arranged.deck[-1]:  # the deck rebuilt and shuffled (R7.7): an order not enumerated
        return None
    if len(arranged.deck) - len(deck) > len(prefix):  # the turn revealed a card the prefix did not fix
        left = [c for c in pool if c not in prefix]
        if len(left) - 1 < discarded:
            return None
        outcomes: set[Outcome] = set()
        for card in left:
            outcome = _every_order(state, action, pool, discarded, (*prefix, card), proof)
            if outcome == 0:
                return 0
            outcomes.add(outcome)
        return 1 if outcomes == {1} else None
    return _horizon(game, discarded, proof)


def _horizon(game: GameEngine, discarded: int, proof: _Proof) -> Outcome:
    """The outcome once the automaton's reveals so far are fixed: over, the player's next turn, or the
    player's decision inside the automaton's turn (made on what it revealed, the rest in every order)."""
    if game.is_over():
        return None if game.winner is None else int(game.winner == 0)
    if game.turn >= proof.turn + 2:
        return 1
    if game.current_player != 0 or discarded:
        return None
    state = game.state()
    pool = sorted(state.deck[:-1])
    outcomes: set[Outcome] = set()
    for action in game.legal_actions():
        outcome = _every_order(state, action, pool, 0, (), proof)
        if outcome == 1:
            return 1
        outcomes.add(outcome)
    return 0 if outcomes == {0} else None


__all__ = ["SURVIVAL_BUDGET", "ends_the_turn", "proven_survival", "survives_after"]
