"""The greedy heuristic's score of a position (:func:`evaluate`, weights in docs/agents.md): the
evaluator both engines' search primitives use (:meth:`~clashofdecks.rules.Game.greedy_action`, greedy
rollouts), beside the rules so that the Python engine's primitives need nothing from the agents; the
compiled core computes the same double (``_native.c``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from ..cards import (
    ABILITIES,
    ABILITY_BITS,
    ATTACK,
    AURA,
    BERSERK,
    CARD_INDEX,
    COST,
    HEALTH,
    PERFORATION,
    PROTECTION,
    SPRINT,
)
from .views import GameViews

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


def weight_values(weights: Weights) -> tuple[float, ...]:
    """The weights as the compiled core takes them: the 9 fields in their declared order."""
    return tuple(float(getattr(weights, f.name)) for f in fields(Weights))


def _popcount(bits: int) -> int:
    return bin(bits).count("1")


_Lanes = list[list[tuple[int, int, bool, bool, bool, int]]]


def _lanes(game: GameViews) -> _Lanes:
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


def evaluate(game: GameViews, player: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
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
