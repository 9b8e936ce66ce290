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
from dataclasses import dataclass, fields
from typing import Final

from ..actions import BAN_BASE, BUILD_BASE, DECK_BASE, DECK_SIZE_CUSTOM, PICK_BASE, build_rank
from ..cards import (
    ABILITIES,
    ABILITY_BITS,
    ATTACK,
    AURA,
    BERSERK,
    CARD_INDEX,
    COST,
    HEALTH,
    INDESTRUCTIBLE,
    IS_INCANTATION,
    N_CARDS,
    PERFORATION,
    PRECONSTRUCTED_DECKS,
    PROTECTION,
    SPRINT,
)
from ..engine import GameEngine
from ..game_loop import play_out
from ..native import AVAILABLE as NATIVE_AVAILABLE
from ..native import NativeGame, NativeUnsupportedError, check_layout, core_of, python_game_of
from ..position import sample_determinization
from ..rules import Game
from .base import Agent, is_build_stage, no_decision_error

WIN: Final = 1e9


@dataclass(frozen=True, slots=True)
class Weights:
    """The heuristic's weights (see :func:`evaluate`); the defaults are the ones documented."""

    #: Per place of fortress distance (damage it takes to reach the rightmost place).
    life: float = 1.0
    #: A Bastion is worth this fraction of a full extra hand (the Fort restarts at the leftmost place).
    bastion: float = 1.0
    #: Per point of attack of a creature in play.
    attack: float = 0.5
    #: Per point of remaining health (health minus damage) of a creature in play.
    health: float = 0.5
    #: Per ability (printed, or granted by an Aura it has printed) of a creature in play.
    ability: float = 0.5
    #: Fraction of the life the opponent's board would take in one combat (:func:`incoming_hits`).
    threat: float = 0.75
    #: Penalty when that combat would push the player's Fort to the rightmost place.
    lethal: float = 20.0
    #: Per card in hand: next turn's mana (R3.1).
    mana: float = 0.25
    #: Per playable card of the agent's own hand it could pay for next turn (R3.2).
    playable: float = 0.25


DEFAULT_WEIGHTS: Final = Weights()
# The compiled core scores with these weights too, in this number (ImportError otherwise).
check_layout({"G_WEIGHTS": len(fields(Weights))}, "agents/greedy.py (Weights)")


def weight_values(weights: Weights) -> tuple[float, ...]:
    """The weights as the compiled core takes them: the 9 fields in their declared order."""
    return tuple(float(getattr(weights, f.name)) for f in fields(Weights))


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


_Lanes = list[list[tuple[int, int, bool, bool, bool, int]]]


def _lanes(game: Game) -> _Lanes:
    lanes: _Lanes = [[], [], [], []]
    for p, lane, _pos, cr in game.creatures():
        lanes[p * 2 + lane].append(cr)
    return lanes


def _bits(lane: list[tuple[int, int, bool, bool, bool, int]], i: int, extra: int) -> int:
    """A creature's abilities: printed, granted by an adjacent Aura (R6.8), plus ``extra``."""
    bits = ABILITIES[lane[i][0]] | extra
    if i:
        bits |= AURA[lane[i - 1][0]]
    if i + 1 < len(lane):
        bits |= AURA[lane[i + 1][0]]
    return bits


def incoming_hits(lanes: _Lanes, attacker: int, threat_bits: tuple[int, int] = (0, 0)) -> list[int]:
    """The attacks ``attacker``'s creatures would land on the opponent's fortress in one combat.

    A cheap estimate on the board as it stands, not a simulation of the rules: creatures activate
    in order (top lane then bottom, furthest from the bridge first, R3.5); each attack hits the
    defender's front creature in its lane (R3.7) until the damage destroys it (R3.8: excess is
    lost), and once the lane is empty the attacks reach the fortress.  Counted: Sprint's bonus
    (+1 per creature in front, R6.7), Perforation on the creature behind (R6.2), Berserk's extra
    attack after a kill (R6.6), a blocker's Protection absorbing the first attack (R6.4), Auras
    (R6.8) and ``threat_bits`` (solo abilities per player).  Not counted: Splash across lanes,
    summoning sickness (every creature is ready by its next combat).
    """
    hits: list[int] = []
    defender = 1 - attacker
    for lane in (0, 1):
        own = lanes[attacker * 2 + lane]
        theirs = lanes[defender * 2 + lane]
        health = [HEALTH[cr[0]] - cr[1] for cr in theirs]
        shield = [bool(_bits(theirs, k, threat_bits[defender]) & PROTECTION) for k in range(len(theirs))]
        b = 0
        for i in range(len(own) - 1, -1, -1):
            bits = _bits(own, i, threat_bits[attacker])
            attack = ATTACK[own[i][0]] + (i if bits & SPRINT else 0)
            while True:
                if b >= len(health):
                    if attack > 0:
                        hits.append(attack)
                    break
                if shield[b]:
                    shield[b] = False
                    killed = False
                else:
                    health[b] -= attack
                    killed = health[b] <= 0
                if bits & PERFORATION and b + 1 < len(health):
                    health[b + 1] -= attack
                    if health[b + 1] <= 0:
                        killed = True
                        del health[b + 1]
                        del shield[b + 1]
                if health[b] <= 0:
                    b += 1
                if not (killed and bits & BERSERK):
                    break
    return hits


def fortress_after(bastion: bool, left: int, size: int, hits: list[int]) -> tuple[bool, int] | None:
    """``(bastion, places left)`` after ``hits`` land one by one, or ``None`` if the Fort falls.

    A Bastion that reaches the rightmost place flips to a leftmost Fort and the rest of that
    attack is lost (R4.2); a Fort that reaches it loses the game (R4.3).
    """
    for h in hits:
        if h >= left:
            if not bastion:
                return None
            bastion, left = False, size - 1
        else:
            left -= h
    return bastion, left


def evaluate(game: Game, player: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The score of ``game`` for ``player`` (higher is better); public features and own hand only.

    The sum over both players (the opponent's terms subtracted) of

    * ``life`` x L, where L is the places left before the fortress is rightmost, plus for a Bastion
      ``bastion`` x the Fort's life after the fall (the other cards in hand for a player; for the
      automaton, its discard pile plus the cards above its fortress);
    * minus ``threat`` x the life (L) the opponent's board would take in one combat
      (:func:`incoming_hits`, :func:`fortress_after`), or minus ``lethal`` if that combat would
      push the player's Fort to the rightmost place (not counted against the automaton, which
      loses differently, R7.8);
    * over the player's creatures, ``attack`` x attack + ``health`` x remaining health
      + ``ability`` x abilities (printed, plus the solo threat abilities for the automaton);
    * ``mana`` x hand size, plus for the agent's own hand ``playable`` x the playable cards (R3.2)
      it could pay for with next turn's mana (the opponent's hand is hidden: its size only);

    and a won game scores +1e9, a lost one -1e9, a capped draw 0.
    """
    if game.is_over():
        outcome = game.outcome
        if outcome is None or outcome.winner is None:
            return 0.0
        return WIN if outcome.winner == player else -WIN
    w = weights
    solo = game.is_solo
    threat_bits = 0
    if solo:
        threat_bits = sum(ABILITY_BITS[a] for a in game.threat.abilities)
    lanes = _lanes(game)
    score = 0.0
    for p in (0, 1):
        side, left, size = game.fortress(p)
        bastion = side == "BASTION"
        automaton = solo and p == 1
        hits = incoming_hits(lanes, 1 - p, (0, threat_bits))
        if automaton:
            after = len(game.automaton_discard) + left if bastion else 0
            life = left + w.bastion * after
            value = w.life * life - w.threat * min(left, sum(hits))
        else:
            life = left + (w.bastion * (size - 1) if bastion else 0)
            value = w.life * life
            if hits:
                fallen = fortress_after(bastion, left, size, hits)
                if fallen is None:
                    value -= w.lethal
                else:
                    life_after = fallen[1] + (w.bastion * (size - 1) if fallen[0] else 0)
                    value -= w.threat * w.life * (life - life_after)
            value += w.mana * size
            if p == player:
                value += w.playable * sum(1 for c in game.playable_cards(p) if COST[CARD_INDEX[c]] <= size)
        for lane in (p * 2, p * 2 + 1):
            for cr in lanes[lane]:
                c = cr[0]
                bits = ABILITIES[c] | (threat_bits if automaton else 0)
                value += w.attack * ATTACK[c] + w.health * (HEALTH[c] - cr[1]) + w.ability * _popcount(bits)
        score += value if p == player else -value
    return score


class GreedyAgent(Agent):
    """One-ply greedy player: the legal action whose result :func:`evaluate` scores highest."""

    name = "greedy"
    #: Also acts on a :class:`~clashofdecks.native.NativeGame` (``clash simulate`` on the core).
    plays_native = True

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

    def _act_on_core(self, core: NativeGame) -> int:
        """The play-phase decision on the compiled core's own game (no conversion)."""
        if core.current_player < 0:
            raise no_decision_error(core, self.name)
        legal = core.legal_actions()
        if not legal:
            raise no_decision_error(core, self.name)
        if len(legal) == 1:
            return legal[0]
        if self.native and type(self._rng) is random.Random:
            return core.greedy_action(self._rng, self._core_weights(), finish_turn=self.finish_turn)
        return self.act(core.to_game(record_events=False))  # the agent was told to decide in Python

    def act(self, game: GameEngine) -> int:
        core = core_of(game)
        if core is not None:
            return self._act_on_core(core)
        return self._act_in_python(python_game_of(game))

    def _act_in_python(self, game: Game) -> int:
        player = game.current_player
        if player < 0:
            raise no_decision_error(game, self.name)
        if game.phase == "setup" and game.pending is None:
            return self._setup_action(game)
        legal = game.legal_actions()
        if not legal:
            raise no_decision_error(game, self.name)
        if len(legal) == 1:
            return legal[0]
        if self.native and type(self._rng) is random.Random:
            try:
                core = NativeGame.from_game(game)
            except NativeUnsupportedError:
                pass  # a state the core cannot hold: the Python engine decides (nothing drawn yet)
            else:
                return core.greedy_action(self._rng, self._core_weights(), finish_turn=self.finish_turn)
        sample = sample_determinization(game, player, self._rng)
        sample.record_events = False
        best: list[int] = []
        best_score = -float("inf")
        turn = sample.turn
        for action in legal:
            sample.apply(action)
            applied = 1
            if self.finish_turn:
                # Complete the turn the default way: pass every later decision of this turn.
                while not sample.is_over() and sample.turn == turn:
                    sample.apply(sample.legal_actions()[0])
                    applied += 1
            score = evaluate(sample, player, self.weights)
            for _ in range(applied):
                sample.undo()
            if score > best_score:
                best_score = score
                best = [action]
            elif score == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else best[self._rng.randrange(len(best))]

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
