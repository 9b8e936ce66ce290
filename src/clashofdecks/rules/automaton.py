"""The solo automaton (R7, R8): its turn is a rule, not a player, and resolves inside the action that ends
the player's turn; damage to it mills its deck (R7.6) and an empty deck is rebuilt (R7.7)."""

from __future__ import annotations

from ..cards import ABILITIES, ATTACK, CARD_IDS, COST, FORT, IS_INCANTATION
from ..events import EventKind
from .core import GameCore
from .state import C_CARD, COMBAT, SUMMON
from .tables import _LANES


class AutomatonRules(GameCore):
    """The automaton's turn, its deck and discard."""

    __slots__ = ()

    def resume(self) -> None:
        """Continue resolution that a built state leaves in motion: the automaton's turn when it is
        the automaton's to play (its turn is a rule, R7, and resolves at once).  Positions call it
        after building a game; the events it emits are not kept."""
        if self._stage in (SUMMON, COMBAT) and self._pending is None and self._solo and self._active == 1:
            if self._stage == SUMMON and self._auto is None:
                self._auto = (0, 0, 0)
            self._automaton_continue()
            self._events.clear()
            self._legal = None

    def _automaton_turn(self) -> None:
        player_creatures = len(self._lanes[0]) + len(self._lanes[1])
        self._mana = self._threat.base_mana + self._threat.extra_mana_per_creature * player_creatures
        self._stage = SUMMON
        self._last_turn = self._fort[1] and len(self._deck) <= 1
        if self._record:
            detail = f"{self._mana} mana" + (
                ", last turn: deck empty above its Fort" if self._last_turn else ""
            )
            self._emit(
                EventKind.TURN_STARTED,
                "R7.2",
                player=1,
                amount=self._turn,
                detail=detail,
                value=self._mana,
                role="last_turn" if self._last_turn else None,
            )
        self._auto = (0, 0, 0)
        self._automaton_continue()

    def _automaton_continue(self) -> None:
        """The automaton's summoning loop (R7.3) and combat; resumable after a player's decision."""
        rec = self._record
        while self._auto is not None:
            spent, slot, shown = self._auto
            # R7.3: the first card is revealed whatever the mana; the next while the cost is below it.
            if (shown and spent >= self._mana) or len(self._deck) <= 1:
                self._auto = None
                break
            shown += 1
            c = self._deck.pop(0)
            if rec:
                self._emit(EventKind.REVEALED, "R7.3", player=1, card=CARD_IDS[c])
            if len(self._deck) == 1 and not self._fort[1]:
                self._rebuild_deck()  # R7.8a: before the revealed card resolves
            if not IS_INCANTATION[c]:
                lane = (slot & 1) ^ (1 if self._rotated else 0)
                self._lanes[2 + lane].append((c, 0, True, False, False, 0))
                self._auto = (spent + COST[c], slot + 1, shown)
                if rec:
                    self._emit(EventKind.PLAYED, "R7.3", player=1, card=CARD_IDS[c], lane=_LANES[lane])
                continue
            slot += 1 if self._per_card else 0
            if self._lanes[0]:
                lane = 0
            elif self._lanes[1]:
                lane = 1
            else:
                self._discard.append(c)  # R7.4a: no target, no effect, no cost
                self._auto = (spent, slot, shown)
                if rec:
                    self._emit(EventKind.FIZZLED, "R7.4a", player=1, card=CARD_IDS[c])
                continue
            self._auto = (spent + COST[c], slot, shown)
            if rec:
                self._emit(
                    EventKind.CAST,
                    "R7.4a",
                    player=1,
                    card=CARD_IDS[c],
                    target_player=0,
                    target_card=CARD_IDS[self._lanes[lane][0][C_CARD]],
                    lane=_LANES[lane],
                    position=0,
                )
            destroyed = self._hit(0, lane, 0, ATTACK[c], ABILITIES[c] | self._threat_bits, True)
            if self._return_destroyed(0, destroyed):
                self._cast_cont = (1, c)
                return
            self._finish_cast(1, c)
        if self._stage == SUMMON:
            self._stage = COMBAT
        self._ending = True
        self._run_activations()

    def _mill(self, amount: int) -> None:
        """Damage to the automaton: discard that many cards from its deck (R7.6)."""
        if amount <= 0:
            return
        deck = self._deck
        n = 0
        while n < amount and len(deck) > 1:
            c = deck.pop(0)
            self._discard.append(c)
            n += 1
            if self._record:
                self._emit(EventKind.DISCARDED, "R7.6", player=1, card=CARD_IDS[c], detail="damage")
            if len(deck) == 1 and not self._fort[1]:
                self._rebuild_deck()  # R7.7; the rest of the damage is lost (R7.6a)
                break

    def _rebuild_deck(self) -> None:
        pile = self._discard[:]
        self._shuffle(pile)
        self._deck = [*pile, FORT]
        self._discard = []
        self._fort[1] = True
        if self._record:
            self._emit(EventKind.BASTION_FELL, "R7.7", player=1, detail="its deck is empty above it")
            self._emit(EventKind.DECK_REBUILT, "R7.7", player=1, amount=len(pile))
