"""The start of a rulebook game: the setup stage (R2: coin toss, deck choice, draft, build, bans) and the
deal that begins turn 1 (R2.6, R7.1)."""

from __future__ import annotations

from .. import actions as A
from .. import setup as setup_stage
from ..cards import BASTION, FORT
from ..events import EventKind
from .core import GameCore
from .state import SUMMON


class SetupRules(GameCore):
    """Setup decisions and the deal."""

    __slots__ = ()

    def _coin_toss(self, toss: int, a_seat: int) -> None:
        # Participant `toss` is player A (R2.3a), so the participant in seat 0 is:
        self._first_participant = toss if a_seat == 0 else 1 - toss

    def _apply_setup(self, action: int) -> None:
        st = self._setup
        assert isinstance(st, setup_stage.SetupState)
        emit = self._emit if self._record else None
        if st.decision == "coin":
            b_starts = self._ruleset.first_player == "last_draft_pick" and st.kind == "draft"
            self._coin_toss(action - A.CHANCE_COIN, 1 if b_starts else 0)
            if emit is not None:
                emit(EventKind.SETUP, "R2.3a", detail="coin toss", role="coin", amount=action - A.CHANCE_COIN)
        self._setup = setup_stage.decide(st, action, emit)
        self._advance_setup()

    def _advance_setup(self) -> None:
        """Run the setup's automatic steps; deal and start turn 1 when the setup is complete."""
        st = self._setup
        assert isinstance(st, setup_stage.SetupState)
        st = setup_stage.advance(st, self._solo, self._emit if self._record else None)
        self._setup = st
        if st.steps:
            return
        if not st.external:
            self._deal(setup_stage.final_cards(st, self._solo))
        elif st.placed is None:
            self._setup = setup_stage.deal_steps(st, setup_stage.final_cards(st, self._solo))
        else:
            self._deal(st.placed, shuffle=False)

    def _deal(self, cards: tuple[tuple[int, ...], tuple[int, ...]], *, shuffle: bool = True) -> None:
        """R2.6 / R7.1: shuffle, Bastion leftmost (automaton: deck with its fortress at the bottom); start.

        ``shuffle`` is off when chance already placed every card (external chance)."""
        rec = self._record
        for seat in (0, 1):
            mine = list(cards[seat])
            if shuffle:
                self._shuffle(mine)
            if self._solo and seat == 1:
                fort = self._threat.resilience == "fort"
                self._deck = [*mine, FORT if fort else BASTION]
                self._fort[1] = fort
            else:
                self._hands[seat] = [BASTION, *mine]
        self._setup = None
        if rec:
            self._emit(EventKind.SETUP, "R2.6", detail="hands shuffled, Bastion leftmost", role="dealt")
        self._turn = 1
        if self._solo and self._threat.starts == "automaton":
            self._active = 1  # R7.1a: the automaton uses its own mana; the player's first turn is normal
            self._start_turn()
            return
        self._active = 0
        self._stage = SUMMON
        self._mana = 6  # R2.6: the starting player's very first turn
        if rec:
            self._emit(
                EventKind.TURN_STARTED, "R2.6", player=0, amount=1, detail="6 mana (first turn)", value=6
            )
