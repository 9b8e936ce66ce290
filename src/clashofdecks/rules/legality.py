"""Legality: the legal actions of the decision at hand (R2, R3, R5.1, R5.2) and why another action is not
legal (:meth:`~clashofdecks.rules.Game.explain_illegal`)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import actions as A
from .. import setup as setup_stage
from ..cards import BASTION, CARD_IDS, COST, FORT, IS_INCANTATION, RAGE, card_index
from ..errors import ClashError
from .core import GameCore
from .state import _BUILD, C_ACTIVATED, C_NEW, COMBAT, OVER, SETUP, SUMMON
from .tables import _CAST_TARGETS, _END, _LANES, _NEXT, _PLAY_PAIR


class LegalityRules(GameCore):
    """Legal actions, their mask, and the reason an action is refused."""

    __slots__ = ()

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> Sequence[int]:
        """The legal actions of :attr:`current_player`, as sorted integers (empty when over).

        Immutable (a tuple; in the custom format's build stage, :attr:`decision_kind`
        :attr:`DecisionKind.BUILD`, a lazy sequence over every 10-card deck, R2.5: C(32, 10) integers,
        never materialised), so a caller cannot disturb the game by changing it.

        >>> game = Game.random_duel(seed=1)
        >>> legal = game.legal_actions()
        >>> type(legal).__name__, game.action_text(legal[0])
        ('tuple', 'end')
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> Sequence[int]:
        stage = self._stage
        if stage == OVER:
            return ()
        if self._pending is not None:
            n = len(A.order_permutations(self._pending[1]))
            return tuple(range(A.ORDER_BASE, A.ORDER_BASE + n))
        if stage == SETUP:
            return setup_stage.legal_actions(self._setup)  # type: ignore[arg-type]
        p = self._active
        hand = self._hands[p]
        mana = self._mana
        summon = stage == SUMMON
        casting = summon or self._timing_combat
        n = len(hand)
        fort = self._fort[p]
        fi = hand.index(FORT if fort else BASTION)
        window = hand[:5]  # the 4 leftmost cards besides the fortress (R3.2)
        del window[fi if fi < 5 else 4]
        # R3.4: keep a card besides the fortress; R3.4a: never the last card right of a Fort.
        can_play = summon and n > 2
        blocked = hand[-1] if fort and fi == n - 2 else -1
        plays: list[int] = []
        casts: list[int] = []
        for c in window:
            if COST[c] <= mana:
                if IS_INCANTATION[c]:
                    if casting:
                        casts.append(c)
                elif can_play and c != blocked:
                    plays.append(c)
        if summon:
            acts = [_END]
        else:
            acts = [_END, _NEXT] if self._can_next() else [_END]
        if plays:
            if len(plays) > 1:
                plays.sort()
            for c in plays:
                acts += _PLAY_PAIR[c]
        if casts:
            l0, l1, l2, l3 = self._lanes
            s0, s1, s2, s3 = len(l0), len(l1), len(l2), len(l3)
            if s0 or s1 or s2 or s3:
                if len(casts) > 1:
                    casts.sort()
                for c in casts:
                    t = _CAST_TARGETS[c]
                    acts += t[0][s0]
                    acts += t[1][s1]
                    acts += t[2][s2]
                    acts += t[3][s3]
        return tuple(acts)

    def legal_action_mask(self) -> list[bool]:
        """A list of :data:`clashofdecks.actions.ACTION_SPACE` booleans, True where legal."""
        if self.decision_kind is _BUILD:
            raise ClashError("the custom build stage's decisions are outside the fixed action space")
        legal = self.legal_actions()
        mask = [False] * A.ACTION_SPACE
        for a in legal:
            if a < A.ACTION_SPACE:
                mask[a] = True
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now (fast even in the custom build stage).

        >>> game = Game.random_duel(seed=1)
        >>> game.is_legal(game.parse_action("end"))
        True
        """
        return action in self.legal_actions()

    def _can_next(self) -> bool:
        """Whether a not-yet-activated creature of the active player can attack now (R3.5, R3.6)."""
        p = self._active
        lanes = self._lanes
        for lane in (0, 1):
            L = lanes[p * 2 + lane]
            for cr in L:
                if not cr[C_ACTIVATED]:
                    if not cr[C_NEW]:
                        return True
                    # A new creature attacks only with Rage and an enemy creature in its lane (R6.3).
                    if lanes[(1 - p) * 2 + lane] and self._abilities(p, L, L.index(cr)) & RAGE:
                        return True
        return False

    # ------------------------------------------------------------------ why an action is illegal

    def explain_illegal(self, action: int) -> str:
        """A sentence saying why ``action`` is not legal now."""
        if self._stage == OVER:
            return "the game is over"
        try:
            text = self.action_text(action)
        except ValueError as exc:
            return str(exc)
        if self._pending is not None:
            who, cards = self._pending
            names = " ".join(CARD_IDS[c] for c in cards)
            return f"player {who} must first choose the return order of {names} ('order ...') (R3.9)"
        if self._stage == SETUP:
            return setup_stage.explain(self._setup, action)  # type: ignore[arg-type]
        p = self._active
        hand = self._hands[p]
        if action == A.NEXT:
            if self._stage != COMBAT:
                return "'next' is only legal in the Combat phase (R3.5); 'end' ends Summoning"
            return "no creature left that can attack now (R3.5, R3.6)"
        if A.PLAY_BASE <= action < A.ORDER_BASE:
            is_cast = action >= A.CAST_BASE
            cid = text.split()[1]
            c = card_index(cid)
            if c not in hand:
                return f"{cid} is not in player {p}'s hand (R3.2)"
            if c not in self._playable(p):
                return f"{cid} is not among the 4 leftmost cards of the hand (R3.2)"
            if not is_cast and self._stage != SUMMON:
                return "creatures are played only in the Summoning phase (R3.3)"
            if is_cast and self._stage == COMBAT and not self._timing_combat:
                return "incantations are cast only in the Summoning phase under this ruleset (R5.1a)"
            if COST[c] > self._mana:
                return f"not enough mana: {cid} costs {COST[c]}, {self._mana} left (R3.1)"
            if is_cast:
                rest, pos = divmod(action - A.CAST_BASE, A.MAX_POSITION)
                rest, ln = divmod(rest, 2)
                q = rest % 2
                if not any(self._lanes):
                    return "an incantation needs a creature in play as its target (R5.2a)"
                if pos >= len(self._lanes[q * 2 + ln]):
                    return f"no creature at {q}.{_LANES[ln]}.{pos} (R5.2)"
            else:
                if len(hand) <= 2:
                    return "you must keep at least one card besides the fortress card (R3.4)"
                return "playing the last card to the right of your Fort would lose the game (R3.4a)"
        return f"{text!r} is not a decision of this phase (R3)"
