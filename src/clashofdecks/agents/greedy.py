"""``greedy``: a one-ply player with a documented heuristic (weights in docs/agents.md).

For each legal action the agent applies it to a copy of the game and scores the result from the
acting player's point of view; it plays the best-scoring action, breaking exact ties with its
seeded RNG.  One ply means one action, not one turn: a Summoning phase is a sequence of greedy
choices, each compared with ``end`` (keeping the position as it is).

Fairness (R9): the copy it searches on is :func:`~clashofdecks.position.sample_determinization`
from its own seat, so hidden cards (the opponent's hand order, the automaton deck order) are
guesses, never peeks; and the score reads only public features (fortress positions, boards, hand
sizes, the automaton's discard pile) plus the agent's own hand.

Setup decisions (draft ``pick``, ``deck N``, custom ``build`` and ``ban``) are not positions worth
scoring: the agent ranks cards by a static :func:`card_value` instead.
"""

from __future__ import annotations

import random
import time
from dataclasses import fields
from typing import Final

from ..actions import BAN_BASE, BUILD_BASE, DECK_BASE, DECK_SIZE_CUSTOM, PICK_BASE, build_rank
from ..cards import (
    ABILITIES,
    ATTACK,
    AURA,
    COST,
    HEALTH,
    INDESTRUCTIBLE,
    IS_INCANTATION,
    N_CARDS,
    PRECONSTRUCTED_DECKS,
)
from ..engine import GameEngine
from ..game_loop import play_out
from ..native import AVAILABLE as NATIVE_AVAILABLE
from ..native import check_layout, in_engine
from ..rules import Game
from ..rules.heuristic import (
    DEFAULT_WEIGHTS,
    WIN,
    Weights,
    evaluate,
    fortress_after,
    incoming_hits,
    weight_values,
)
from .base import Agent, is_build_stage, no_decision_error

check_layout({"G_WEIGHTS": len(fields(Weights))}, "agents/greedy.py (Weights)")


def _popcount(bits: int) -> int:
    return bin(bits).count("1")


def card_value(card: int) -> float:
    """A static strength of a card, used for the draft, deck choice and custom building.

    Creatures: attack + health + 1.5 per ability or Aura (Indestructible counts 3); incantations:
    2 x damage + 1.5 per ability.  Then divided by ``1 + cost / 4`` so cheap cards are not buried
    under expensive ones (mana is the hand size, and cards played shorten the hand).
    """
    bits = ABILITIES[card]
    abilities = _popcount(bits) + _popcount(AURA[card]) + (1 if bits & INDESTRUCTIBLE else 0)
    raw = 2.0 * ATTACK[card] if IS_INCANTATION[card] else float(ATTACK[card] + HEALTH[card])
    return (raw + 1.5 * abilities) / (1.0 + COST[card] / 4.0)


#: Cards from strongest to weakest by :func:`card_value` (ties by card index).
CARD_RANKING: Final[tuple[int, ...]] = tuple(sorted(range(N_CARDS), key=lambda c: (-card_value(c), c)))


class GreedyAgent(Agent):
    """One-ply greedy player: the legal action whose result :func:`evaluate` scores highest."""

    name = "greedy"

    def __init__(
        self,
        seed: int | None = 0,
        weights: Weights = DEFAULT_WEIGHTS,
        *,
        finish_turn: bool = True,
        native: bool | None = None,
    ) -> None:
        if native and not NATIVE_AVAILABLE:
            raise ValueError("native=True needs the compiled core (docs/native.md)")
        self.weights = weights
        self.finish_turn = finish_turn
        self._rng = random.Random(seed)
        #: Play-phase decisions run in the compiled core when it is available (``native=None``): the
        #: same sample, scores and tie-break draws, so the agent chooses the same actions.
        self.native = NATIVE_AVAILABLE if native is None else native
        self._values: tuple[Weights, tuple[float, ...]] = (weights, weight_values(weights))

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def _core_weights(self) -> tuple[float, ...]:
        if self._values[0] is not self.weights:  # weights replaced since: hand the new ones over
            self._values = (self.weights, weight_values(self.weights))
        return self._values[1]

    def act(self, game: GameEngine) -> int:
        player = game.current_player
        if player < 0:
            raise no_decision_error(game, self.name)
        if game.phase == "setup":
            position = game.to_game(record_events=False)  # the setup stage is the Python engine's
            if position.pending is None:
                return self._setup_action(position)
        legal = game.legal_actions()
        if not legal:
            raise no_decision_error(game, self.name)
        if len(legal) == 1:
            return legal[0]
        # The choice in the compiled core when it is available (the same sample, scores and tie-break
        # draws, so the same action), else in the Python engine.
        compiled = self.native and type(self._rng) is random.Random
        return in_engine(game, compiled=compiled).greedy_action(
            self._rng, self._core_weights(), finish_turn=self.finish_turn
        )

    def _setup_action(self, game: Game) -> int:
        """Draft picks, deck choice, bans and custom builds by the static card ranking."""
        if is_build_stage(game):
            # The build stage (R2.5): the 10 best-ranked cards.
            return BUILD_BASE + build_rank(CARD_RANKING[:DECK_SIZE_CUSTOM])
        legal = game.legal_actions()
        if not legal:
            raise no_decision_error(game, self.name)

        def value(action: int) -> float:
            if PICK_BASE <= action < BAN_BASE:
                return card_value(action - PICK_BASE)  # take the strongest card
            if BAN_BASE <= action < BUILD_BASE:
                return card_value(action - BAN_BASE)  # remove the opponent's strongest card
            if DECK_BASE < action <= DECK_BASE + 4:
                return sum(card_value(c) for c in PRECONSTRUCTED_DECKS[action - DECK_BASE])
            return 0.0

        return max(legal, key=lambda a: (value(a), -a))


def greedy_game_rates(seed: int = 1, games: int = 20, *, native: bool = False) -> tuple[float, float]:
    """``(decisions/s, games/s)`` of greedy-vs-greedy random duel games (:meth:`Game.random_duel` of
    ``seed + i``, agents seeded ``2 * game + seat``); ``native``: decisions in the compiled core.
    Decisions are the agents' :meth:`GreedyAgent.act` calls; CPU time of this process, games and
    agents included (docs/performance.md)."""
    decisions = 0
    start = time.process_time()
    for i in range(games):
        game = Game.random_duel(seed + i, record_events=False)
        agents = [GreedyAgent(2 * i + seat, native=native) for seat in (0, 1)]
        decisions += play_out(game, [agents[0].act, agents[1].act])
    seconds = max(time.process_time() - start, 1e-9)
    return decisions / seconds, games / seconds


#: The heuristic itself lives beside the rules (:mod:`clashofdecks.rules.heuristic`: the engines' greedy
#: primitives score with it); it is re-exported here, where the agent that plays by it is.
__all__ = [
    "CARD_RANKING",
    "DEFAULT_WEIGHTS",
    "WIN",
    "GreedyAgent",
    "Weights",
    "card_value",
    "evaluate",
    "fortress_after",
    "greedy_game_rates",
    "incoming_hits",
    "weight_values",
]
