"""Typed events: what each action caused, each naming the rule that produced it.

Front ends render these; tests assert on them.  An event is a frozen record; ``describe()`` gives a
one-line English sentence, and ``rule`` answers "why?".
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class EventKind(StrEnum):
    TURN_STARTED = "turn_started"
    PHASE_CHANGED = "phase_changed"
    PLAYED = "played"
    CAST = "cast"
    FIZZLED = "fizzled"
    REVEALED = "revealed"
    ACTIVATION_PASSED = "activation_passed"
    SPRINTED = "sprinted"
    ATTACKED = "attacked"
    DAMAGED = "damaged"
    ABSORBED = "absorbed"
    DESTROYED = "destroyed"
    RETURNED = "returned"
    DISCARDED = "discarded"
    FORTRESS_MOVED = "fortress_moved"
    BASTION_FELL = "bastion_fell"
    DECK_REBUILT = "deck_rebuilt"
    ORDER_CHOSEN = "order_chosen"
    DECISION_PENDING = "decision_pending"
    TURN_ENDED = "turn_ended"
    GAME_OVER = "game_over"
    SETUP = "setup"


class Event(NamedTuple):
    """One thing that happened (immutable).  Fields that do not apply are ``None``."""

    kind: EventKind
    rule: str
    player: int | None = None
    card: str | None = None
    lane: str | None = None
    position: int | None = None
    amount: int | None = None
    target_player: int | None = None
    target_card: str | None = None
    detail: str | None = None
    #: A machine-readable sub-kind: DAMAGED "target"/"splash"/"perforation"; ABSORBED "protection"/
    #: "indestructible"; ATTACKED "berserk" for a re-attack; SETUP "revealed"/"gets"/"picks"/"deck"/
    #: "builds"/"reveals"/"removes"/"dealt"/"coin"; GAME_OVER "fort_rightmost"/"survived_last_turn"/
    #: "turn_cap"; TURN_STARTED "last_turn" for the automaton's last turn.
    role: str | None = None
    #: A second number: DAMAGED the creature's damage after the hit; TURN_STARTED the mana.
    value: int | None = None
    #: Card ids an event is about when there are several (SETUP reveals, gets, reveals of decks;
    #: DECISION_PENDING the destroyed cards in hit order; ORDER_CHOSEN the chosen return order).
    cards: tuple[str, ...] | None = None

    def describe(self) -> str:
        """A short English sentence, for logs and front ends."""
        who = f"P{self.player}" if self.player is not None else ""
        if self.player == 1 and self.rule.startswith("R7"):
            who = "the automaton"
        k = self.kind
        if k is EventKind.TURN_STARTED:
            return f"turn {self.amount}: {who} to play ({self.detail})"
        if k is EventKind.PHASE_CHANGED:
            return f"{who} enters {self.detail}"
        if k is EventKind.PLAYED:
            return f"{who} plays {self.card} into the {self.lane} lane"
        if k is EventKind.CAST:
            where = f"P{self.target_player} {self.lane} {self.position}"
            return f"{who} casts {self.card} at {self.target_card} ({where})"
        if k is EventKind.FIZZLED:
            return f"{who}'s {self.card} has no target: no effect, no cost"
        if k is EventKind.REVEALED:
            return f"the automaton reveals {self.card}"
        if k is EventKind.ACTIVATION_PASSED:
            return f"{who}'s {self.card} cannot attack now: activation passed"
        if k is EventKind.SPRINTED:
            return f"{who}'s {self.card} sprints to the front, passing {self.amount} (+{self.amount} attack)"
        if k is EventKind.ATTACKED:
            if self.role == "berserk":
                return f"{who}'s {self.card} destroyed a creature: Berserk, it attacks again"
            if self.target_card is None:
                return f"{who}'s {self.card} attacks P{self.target_player} directly for {self.amount}"
            return f"{who}'s {self.card} attacks {self.target_card} for {self.amount}"
        if k is EventKind.DAMAGED:
            return f"{self.card} takes {self.amount} damage ({self.detail})"
        if k is EventKind.ABSORBED:
            return f"{self.card}'s {self.detail} absorbs the damage"
        if k is EventKind.DESTROYED:
            return f"{who}'s {self.card} is destroyed"
        if k is EventKind.RETURNED:
            return f"{self.card} returns to {who}'s hand, rightmost"
        if k is EventKind.DISCARDED:
            return f"{self.card} goes to the automaton's discard pile ({self.detail})"
        if k is EventKind.FORTRESS_MOVED:
            return f"{who}'s fortress moves {self.amount} places right ({self.detail})"
        if k is EventKind.BASTION_FELL:
            return f"{who}'s Bastion falls: the Fort takes its place ({self.detail})"
        if k is EventKind.DECK_REBUILT:
            return f"the automaton's discard pile is shuffled onto its Fort ({self.amount} cards)"
        if k is EventKind.ORDER_CHOSEN:
            return f"{who} returns {self.detail}"
        if k is EventKind.DECISION_PENDING:
            return f"{who} must choose the return order of {self.detail}"
        if k is EventKind.TURN_ENDED:
            return f"end of turn {self.amount}: creatures heal"
        if k is EventKind.GAME_OVER:
            return f"game over: {self.detail}"
        return f"{k.value}: {self.detail or ''}".strip()
