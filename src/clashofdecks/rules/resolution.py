"""Resolution and undo: :meth:`~clashofdecks.rules.Game.apply` verifies and resolves an action, undo takes
it back; summoning (R3.3, R3.4), incantations (R5) and the return of destroyed creatures (R3.8, R3.9)."""

from __future__ import annotations

from .. import actions as A
from ..cards import ABILITIES, ATTACK, BASTION, CARD_IDS, COST, FORT
from ..errors import IllegalActionError
from ..events import Event, EventKind
from .core import GameCore
from .state import C_CARD, COMBAT, OVER, SETUP, SUMMON, UNDO_LIMIT
from .tables import _CAST_BASE, _CAST_DECODE, _END, _LANES, _NEXT, _ORDER_BASE, _PLAY_BASE, _PLAY_DECODE


class ResolutionRules(GameCore):
    """Apply, undo, summoning, incantations and return orders."""

    __slots__ = ()

    def apply(self, action: int) -> tuple[Event, ...]:
        """Apply a legal action of :attr:`current_player` and return the events it caused.

        Raises :class:`IllegalActionError` (with the reason) for an action that is not legal now;
        the game is then exactly as before.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            raise IllegalActionError(self.explain_illegal(action))
        rec = self._record
        if rec:
            self._events = []
        self._actions.append(action)
        if not self._keep_undo:
            self._legal = None
            self._dispatch(action)
            return tuple(self._events) if rec else ()
        if self._stage == SUMMON and action < _CAST_BASE and self._pending is None:
            # Light undo records for the two commonest actions (see undo()).
            if action == _END:
                self._history.append(((legal,), action))
                self._legal = None
                self._stage = COMBAT
                if rec:
                    self._emit(EventKind.PHASE_CHANGED, "R3", player=self._active, detail="combat")
            else:
                p = self._active
                self._history.append(((legal, self._hands[p].copy(), self._mana, self._fort[p]), action))
                self._legal = None
                self._play(*_PLAY_DECODE[action])
            return tuple(self._events) if rec else ()
        history = self._history
        if len(history) >= UNDO_LIMIT:
            del history[: UNDO_LIMIT // 2]  # keep memory bounded in endless games; the oldest go first
        history.append((self._snapshot(), action))
        self._legal = None
        self._dispatch(action)
        return tuple(self._events) if rec else ()

    def _dispatch(self, action: int) -> None:
        """Resolve a verified action (the undo record, if any, is already taken)."""
        rec = self._record
        if action == _END and self._pending is None:
            if self._stage == SUMMON:
                self._stage = COMBAT
                if rec:
                    self._emit(EventKind.PHASE_CHANGED, "R3", player=self._active, detail="combat")
            elif self._stage == COMBAT:
                self._ending = True
                self._run_activations()
            else:
                self._apply_setup(action)
        elif action < _CAST_BASE and self._stage != SETUP:
            if action == _NEXT:
                self._activate_next()
            else:
                self._play(*_PLAY_DECODE[action])
        elif action < _ORDER_BASE and self._stage != SETUP:
            self._cast(*_CAST_DECODE[action - _CAST_BASE])
        elif self._pending is not None:
            self._do_order(action)
        else:
            self._apply_setup(action)

    def undo(self) -> int:
        """Take back the last action; returns it.  Raises :class:`IndexError` when there is none."""
        if not self._history:
            raise IndexError("nothing to undo")
        snap, action = self._history.pop()
        self._actions.pop()
        size = len(snap)
        if size == 1:  # `end` of Summoning
            self._stage = SUMMON
            self._legal = snap[0]  # type: ignore[assignment]
        elif size == 4:  # `play`: the hand, mana and fortress side before; the creature was appended
            p = self._active
            legal, hand, mana, fort = snap
            self._legal = legal  # type: ignore[assignment]
            self._hands[p] = hand  # type: ignore[call-overload]
            self._mana = mana  # type: ignore[assignment]
            self._fort[p] = fort  # type: ignore[call-overload]
            self._lanes[p * 2 + ((action - _PLAY_BASE) & 1)].pop()
        else:
            self._restore(snap)
        return action

    def _play(self, c: int, lane: int) -> None:
        p = self._active
        hand = self._hands[p]
        hand.remove(c)
        self._mana -= COST[c]
        self._lanes[p * 2 + lane].append((c, 0, True, False, False, 0))
        if self._record:
            self._emit(EventKind.PLAYED, "R3.3", player=p, card=CARD_IDS[c], lane=_LANES[lane])
        if hand[-1] == BASTION:
            self._bastion_falls(p, "R3.4b")

    def _bastion_falls(self, p: int, rule: str) -> None:
        hand = self._hands[p]
        hand.pop()
        hand.insert(0, FORT)
        self._fort[p] = True
        if self._record:
            self._emit(EventKind.BASTION_FELL, rule, player=p, detail="flipped to Fort, leftmost")

    def _cast(self, c: int, q: int, lane: int, pos: int) -> None:
        p = self._active
        self._mana -= COST[c]
        self._hands[p].remove(c)  # R3.4c: out of the hand only while it resolves
        if self._record:
            target = CARD_IDS[self._lanes[q * 2 + lane][pos][C_CARD]]
            self._emit(
                EventKind.CAST,
                "R5.1",
                player=p,
                card=CARD_IDS[c],
                target_player=q,
                target_card=target,
                lane=_LANES[lane],
                position=pos,
            )
        bits = ABILITIES[c] | (self._threat_bits if p == 1 else 0)
        destroyed = self._hit(q, lane, pos, ATTACK[c], bits, True)
        if self._return_destroyed(q, destroyed):
            self._cast_cont = (p, c)
            return
        self._finish_cast(p, c)

    def _finish_cast(self, p: int, c: int) -> None:
        if self._solo and p == 1:
            self._discard.append(c)
            if self._record:
                self._emit(EventKind.DISCARDED, "R7.5", player=1, card=CARD_IDS[c], detail="resolved")
        else:
            self._hands[p].append(c)
            self._known[p] |= 1 << c
            if self._record:
                self._emit(EventKind.RETURNED, "R5.4", player=p, card=CARD_IDS[c])

    def _return_destroyed(self, q: int, cards: list[int]) -> bool:
        """Return destroyed creatures (R3.8); True if their owner must first choose the order (R3.9)."""
        if not cards:
            return False
        if self._solo and q == 1:
            self._discard.extend(cards)  # R7.5a: hit order
            if self._record:
                for vc in cards:
                    self._emit(EventKind.DISCARDED, "R7.5a", player=1, card=CARD_IDS[vc], detail="destroyed")
            return False
        if len(cards) == 1:
            self._hands[q].append(cards[0])
            self._known[q] |= 1 << cards[0]
            if self._record:
                self._emit(EventKind.RETURNED, "R3.8", player=q, card=CARD_IDS[cards[0]])
            return False
        self._pending = (q, tuple(cards))
        if self._record:
            names = " ".join(CARD_IDS[c] for c in cards)
            ids = tuple(CARD_IDS[c] for c in cards)
            self._emit(EventKind.DECISION_PENDING, "R3.9", player=q, detail=names, cards=ids)
        return True

    def _do_order(self, action: int) -> None:
        assert self._pending is not None
        q, cards = self._pending
        chosen = A.order_permutations(cards)[action - A.ORDER_BASE]
        self._pending = None
        self._hands[q].extend(chosen)
        for c in chosen:
            self._known[q] |= 1 << c
        if self._record:
            self._emit(
                EventKind.ORDER_CHOSEN,
                "R3.9",
                player=q,
                detail=" then ".join(CARD_IDS[c] for c in chosen),
                cards=tuple(CARD_IDS[c] for c in chosen),
            )
        self._resume()

    def _resume(self) -> None:
        """Continue resolution after a return-order decision, where it paused."""
        if self._cast_cont is not None:
            p, c = self._cast_cont
            self._cast_cont = None
            self._finish_cast(p, c)
        if self._chain is not None:
            p, c = self._chain
            self._chain = None
            if not self._attack_chain(p, c) or self._stage == OVER:
                return
        if self._solo and self._active == 1:
            self._automaton_continue()
        elif self._ending:
            self._run_activations()
