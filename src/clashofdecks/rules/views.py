"""What a game shows: public read-only queries of a :class:`~clashofdecks.rules.Game` (whose turn, the
hands, lanes and fortresses, how it ended) for front ends, positions and agents."""

from __future__ import annotations

from collections.abc import Iterator

from .. import actions as A
from .. import setup as setup_stage
from ..cards import ABILITIES, BASTION, CARD_IDS, FORT, N_CARDS, ability_names
from ..options import Ruleset, Threat
from .core import GameCore
from .state import (
    _BUILD,
    _CHANCE,
    _CHOOSE,
    _OVER,
    C_ACTIVATED,
    C_CARD,
    C_DAMAGE,
    C_NEW,
    C_PROTECTED,
    C_SPRINT,
    DRAW,
    OVER,
    SETUP,
    Creature,
    DecisionKind,
    Outcome,
)


class GameViews(GameCore):
    """The public queries of a game: the whole truth (what a seat may see is
    :func:`clashofdecks.position.view`'s business)."""

    __slots__ = ()

    @property
    def first_participant(self) -> int:
        """Which participant (0 or 1 in the caller's order) the coin toss (R2.3a) put in seat 0; 0
        before the toss and in games without one (solo, the benchmark deal, positions)."""
        return self._first_participant

    @property
    def setup_state(self) -> setup_stage.SetupState | None:
        """The setup stage in progress (immutable), or ``None`` once play has begun."""
        st = self._setup
        return st if isinstance(st, setup_stage.SetupState) else None

    @property
    def ruleset(self) -> Ruleset:
        """The rule variants in force (:class:`~clashofdecks.options.Ruleset`)."""
        return self._ruleset

    @property
    def threat(self) -> Threat:
        """The solo threat options (R8.2); the quick game's in a duel, where they do not apply."""
        return self._threat

    @property
    def is_solo(self) -> bool:
        """True in solo (seat 1 is the automaton, R7)."""
        return self._solo

    @property
    def turn(self) -> int:
        """The turn number: 1 on the first player's first turn, +1 with every turn of either player."""
        return self._turn

    @property
    def active(self) -> int:
        """Whose turn it is."""
        return self._active

    @property
    def mana(self) -> int:
        """The mana the active player has left this turn."""
        return self._mana

    @property
    def phase(self) -> str:
        """``setup``, ``summon``, ``combat`` or ``over``.

        >>> Game.random_duel(seed=1).phase
        'summon'
        """
        return ("setup", "summon", "combat", "over")[self._stage]

    @property
    def decision_kind(self) -> DecisionKind:
        """What kind of decision the game waits for (see :class:`DecisionKind`).

        >>> Game.random_duel(seed=1).decision_kind
        <DecisionKind.CHOOSE: 'choose'>
        """
        stage = self._stage
        if stage != SETUP:  # play (a return order too) or over
            return _OVER if stage == OVER else _CHOOSE
        if self._pending is not None:
            return _CHOOSE
        verb = self._setup.steps[0][0]  # type: ignore[union-attr]
        if verb == "build":
            return _BUILD
        return _CHANCE if verb in setup_stage.CHANCE_STEPS else _CHOOSE

    @property
    def current_player(self) -> int:
        """Whose decision it is now (the active player, or the owner choosing a return order);
        -1 once the game is over."""
        if self._stage == OVER:
            return -1
        if self._pending is not None:
            return self._pending[0]
        if self._stage == SETUP:
            return setup_stage.current_player(self._setup)  # type: ignore[arg-type]
        return self._active

    @property
    def pending(self) -> tuple[int, tuple[str, ...]] | None:
        """The pending return-order decision (R3.9), as ``(player, card ids in hit order)``."""
        if self._pending is None:
            return None
        return self._pending[0], tuple(CARD_IDS[c] for c in self._pending[1])

    def is_over(self) -> bool:
        """Whether the game has ended (see :attr:`outcome`)."""
        return self._stage == OVER

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (winner, reason, :class:`Termination`), or ``None`` while it goes on."""
        if self._stage != OVER:
            return None
        return Outcome(None if self._winner == DRAW else self._winner, self._winner_reason, self._termination)

    @property
    def winner(self) -> int | None:
        """0 or 1 once decided; ``None`` while playing or for a draw (see :attr:`outcome`)."""
        return None if self._winner == DRAW else self._winner

    def hand(self, player: int) -> list[str]:
        """``player``'s hand left to right as card ids, fortress card included (the whole truth: for what
        a player may see, use :func:`clashofdecks.position.view`).

        >>> Game.from_hands([["OGRE"], ["GNOME"]]).hand(0)
        ['BASTION', 'OGRE']
        """
        return [CARD_IDS[c] for c in self._hands[player]]

    def lane(self, player: int, lane: int | str) -> list[dict[str, object]]:
        """The creatures of ``player`` in ``lane`` (0/"top" or 1/"bottom"), from the bridge outward."""
        ln = lane if isinstance(lane, int) else A.LANE_INDEX[lane]
        out: list[dict[str, object]] = []
        for i, cr in enumerate(self._lanes[player * 2 + ln]):
            out.append(
                {
                    "card": CARD_IDS[cr[C_CARD]],
                    "damage": cr[C_DAMAGE],
                    "new": cr[C_NEW],
                    "protected": cr[C_PROTECTED],
                    "activated": cr[C_ACTIVATED],
                    "sprint_bonus": cr[C_SPRINT],
                    "abilities": self.creature_abilities(player, ln, i),
                    "granted": self._granted_names(player, ln, i),
                }
            )
        return out

    def lane_card(self, player: int, lane: int | str, position: int) -> str:
        """The card id of ``player``'s creature at ``position`` of ``lane`` (``lane(...)[position]
        ["card"]`` without making the whole lane); IndexError when there is none."""
        ln = lane if isinstance(lane, int) else A.LANE_INDEX[lane]
        return CARD_IDS[self._lanes[player * 2 + ln][position][C_CARD]]

    def creature_abilities(self, player: int, lane: int, position: int) -> list[str]:
        """The abilities the creature has now (printed, Aura from neighbours, solo threat)."""
        return ability_names(self._abilities(player, self._lanes[player * 2 + lane], position))

    def _granted_names(self, player: int, lane: int, position: int) -> list[str]:
        L = self._lanes[player * 2 + lane]
        bits = self._abilities(player, L, position) & ~ABILITIES[L[position][C_CARD]]
        return ability_names(bits)

    def fortress(self, player: int) -> tuple[str, int, int]:
        """``(side, places left, hand size)``: side is "BASTION"/"FORT"; places left is how many steps
        of damage move it to the rightmost place (for the automaton: cards above it in its deck)."""
        side = "FORT" if self._fort[player] else "BASTION"
        if self._solo and player == 1:
            return side, len(self._deck) - 1, len(self._deck)
        hand = self._hands[player]
        idx = hand.index(FORT if self._fort[player] else BASTION)
        return side, len(hand) - 1 - idx, len(hand)

    @property
    def automaton_deck_size(self) -> int:
        """Cards above the automaton's fortress card (solo)."""
        return max(0, len(self._deck) - 1)

    @property
    def automaton_discard(self) -> list[str]:
        """The automaton's discard pile, oldest first (public, R9.1)."""
        return [CARD_IDS[c] for c in self._discard]

    def playable_cards(self, player: int) -> list[str]:
        """The (up to) 4 leftmost cards of the hand, fortress not counted (R3.2)."""
        return [CARD_IDS[c] for c in self._playable(player)]

    def _playable(self, player: int) -> list[int]:
        out: list[int] = []
        for c in self._hands[player]:
            if c < N_CARDS:
                out.append(c)
                if len(out) == 4:
                    break
        return out

    def creatures(self) -> Iterator[tuple[int, int, int, Creature]]:
        """Every creature in play as ``(player, lane, position, creature tuple)``."""
        for idx, L in enumerate(self._lanes):
            for i, cr in enumerate(L):
                yield idx >> 1, idx & 1, i, cr

    def __repr__(self) -> str:
        mode = "solo" if self._solo else "duel"
        if self._stage == OVER:
            return f"<Game {mode} over after turn {self._turn}: {self._winner_reason}>"
        if self._stage == SETUP:
            st = self._setup
            verb = st.decision if isinstance(st, setup_stage.SetupState) and st.steps else "?"
            return f"<Game {mode} setup: {verb} by P{self.current_player}>"
        return f"<Game {mode} turn {self._turn} P{self._active} {self.phase} mana {self._mana}>"
