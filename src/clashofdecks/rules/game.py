"""The game: :class:`Game` composed of the engine's rooms, its constructors, copies and determinizations.

One :class:`Game` holds a duel or a solo game.  Every decision is an integer action of the player
whose decision it is (:attr:`Game.current_player`); :meth:`Game.apply` resolves it (verifying
first, so a refused action changes nothing), :meth:`Game.undo` takes it back exactly, and
:meth:`Game.clone` copies the game.  The solo automaton's turn (R7) is a rule, not a player: it
resolves by itself inside the action that ends the player's turn.

Hot state is kept small for search: hands are lists of card integers, a creature is a tuple
``(card, damage, new, protected, activated, sprint_bonus)``, and lanes are four lists indexed
``player*2 + lane`` (lane 0 = top, 1 = bottom).  Undo restores a snapshot of those lists.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .. import setup as setup_stage
from ..cards import BASTION, N_CARDS, card_index
from ..errors import FormatError
from ..options import Ruleset, Threat
from .automaton import AutomatonRules
from .chance import ChanceRules, seed_rng
from .combat import CombatRules
from .legality import LegalityRules
from .notation import NotationRules
from .playout import SearchPaths
from .resolution import ResolutionRules
from .start import SetupRules
from .state import _BLANK_ORIGIN, _DEFAULT_RULESET, _DEFAULT_THREAT, _EMPTY_DUEL, SETUP, GameOrigin, GameState
from .views import GameViews

#: Draws a game as SVG for notebooks (``Game._repr_svg_``); registered by the package facade with
#: :func:`clashofdecks.board_svg.game_svg`, so this layer imports no drawing code.
_board_drawer: list[Callable[[Game], str]] = []


def register_board_drawer(draw: Callable[[Game], str]) -> None:
    """Make ``draw`` the picture notebooks show for a game (``Game._repr_svg_``)."""
    _board_drawer[:] = [draw]


class Game(
    SearchPaths,
    GameViews,
    LegalityRules,
    NotationRules,
    ResolutionRules,
    CombatRules,
    AutomatonRules,
    SetupRules,
    ChanceRules,
):
    """A game of Clash of Decks (duel or solo).  Build one with :func:`clashofdecks.new_game`,
    :meth:`Game.random_duel`, :meth:`Game.from_hands` or :func:`clashofdecks.load_position`."""

    __slots__ = ()

    def __init__(self, state: GameState, *, record_events: bool = True) -> None:
        """The game in ``state`` (see :class:`GameState`; positions check a state before building one).

        >>> game = Game(Game.random_duel(seed=1).state())
        >>> game.turn, game.mana
        (1, 6)
        """
        self._configure(state.solo, state.ruleset, state.threat, record_events)
        self._set_state(state)
        self.origin = GameOrigin.of_state(state)

    @classmethod
    def _blank(cls, solo: bool, ruleset: Ruleset | None, threat: Threat | None, record_events: bool) -> Game:
        """An empty game for this module's own constructors, which fill it in."""
        game = cls.__new__(cls)
        game._configure(solo, ruleset or _DEFAULT_RULESET, threat or _DEFAULT_THREAT, record_events)
        game._set_state(_EMPTY_DUEL if not solo else GameState(solo=True))
        game.origin = _BLANK_ORIGIN  # each constructor sets the game's own
        return game

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[Sequence[str]],
        *,
        ruleset: Ruleset | None = None,
        record_events: bool = True,
        first_turn_mana: int = 6,
    ) -> Game:
        """A duel from two given hands (left to right, card ids; the Bastion is added leftmost)."""
        game = cls._blank(False, ruleset, None, record_events)
        for p in (0, 1):
            game._hands[p] = [BASTION, *(card_index(c) for c in hands[p])]
        game._mana = first_turn_mana
        game.origin = GameOrigin.of_state(game.state())
        return game

    @classmethod
    def random_duel(cls, seed: int, *, ruleset: Ruleset | None = None, record_events: bool = True) -> Game:
        """The benchmark's random duel deal: shuffle the 32 cards with the seeded RNG, 8 to each player,
        Bastion leftmost, player 0 starts with 6 mana (R2.6)."""
        game = cls._blank(False, ruleset, None, record_events)
        game._rng = seed_rng(seed)
        game._hidden_ids = True  # nobody knows the other's 8 of the 32 cards (no draft, no deck choice)
        cards = list(range(N_CARDS))
        game._shuffle(cards)
        game._hands = [[BASTION, *cards[:8]], [BASTION, *cards[8:16]]]
        game._mana = 6
        game.origin = GameOrigin(mode="duel", format="random", seed=seed)
        return game

    @classmethod
    def new(
        cls,
        *,
        mode: str = "duel",
        format: str = "draft",
        seed: int,
        ruleset: Ruleset | None = None,
        threat: Threat | None = None,
        record_events: bool = True,
        external_chance: bool = False,
    ) -> Game:
        """A rulebook game at the start of its setup (R2): the first decision is :attr:`current_player`'s.

        With ``external_chance`` (duel only) the game does not draw its own chance in the setup: the
        coin toss, every draft card and every hand place of the deal are chance nodes
        (:attr:`current_player` is :data:`CHANCE`; :meth:`chance_outcomes` lists the outcomes, applied
        with :meth:`apply`), as OpenSpiel's games model them.

        Every setup choice is an ordinary action (``deck N``, ``pick CARD``, ``build CARD×10``,
        ``ban CARD``); chance (the coin toss, the draft pile, the shuffles) comes from the seeded RNG.
        Seats: seat 0 is the starting player; :attr:`first_participant` says which participant
        (0 or 1 in the caller's order) the coin toss (R2.3a) put there.

        >>> game = Game.new(mode="solo", format="precon", seed=1)
        >>> game.phase, game.current_player, game.legal_action_texts()
        ('setup', 0, ['deck 1', 'deck 2', 'deck 3', 'deck 4'])
        """
        if mode not in setup_stage.MODES:
            raise FormatError(f"unknown mode {mode!r} (choose duel or solo)")
        if format not in setup_stage.FORMATS:
            raise FormatError(f"unknown format {format!r} (choose precon, draft or custom)")
        if mode == "solo" and format == "custom":
            raise FormatError("the custom format is not played in solo (R2.2)")
        solo = mode == "solo"
        if external_chance and solo:
            raise FormatError("external chance is for duels (the automaton's reshuffle, R7.7, is internal)")
        ruleset = ruleset or _DEFAULT_RULESET
        game = cls._blank(solo, ruleset, threat if solo else None, record_events)
        game._rng = seed_rng(seed)
        game._stage = SETUP
        game.origin = GameOrigin(mode=mode, format=format, seed=seed, external_chance=external_chance)
        # Seat of the rulebook's player A.  The coin toss (R2.3a) happens first; its winner is player A
        # and starts, unless the last draft pick decides (R2.6a): then B (who gets the last card) starts.
        a_seat = 0
        if not solo:
            b_starts = ruleset.first_player == "last_draft_pick" and format == "draft"
            a_seat = 1 if b_starts else 0
            if not external_chance:
                game._coin_toss(game._below(2), a_seat)
        pool: list[int] = []
        if format == "draft":
            pool = list(range(N_CARDS))
            if not external_chance:
                game._shuffle(pool)
        game._setup = setup_stage.plan(format, solo, a_seat, pool, external=external_chance)
        game._advance_setup()
        return game

    def to_game(self, *, record_events: bool = True) -> Game:
        """A copy in the Python engine (as :meth:`clashofdecks.native.NativeGame.to_game`: the same
        state and origin, no undo history)."""
        game = Game(self.state(), record_events=record_events)
        game.origin = self.origin
        game._first_participant = self._first_participant
        game._actions = self._actions.copy()
        return game

    def sample_determinization(self, player: int, rng: random.Random) -> Game:
        """A full game consistent with what ``player`` may know, hidden things refilled at random.

        Hidden: the opponent's hand places that are not public (R9.2), the automaton deck's order, the
        face-down draft pile, an opponent's custom deck built but not yet revealed (R2.5), and future
        chance (the copy's RNG is reseeded from ``rng``).  Hidden cards are sorted before they are
        shuffled, so the sample depends only on the view and ``rng``.  Under the random deal the
        opponent's hidden cards are drawn from every card ``player`` has not seen.
        """
        g = self.clone()
        g._redeal_hidden(player, rng)
        return g

    def clone(self) -> Game:
        """An independent copy (RNG state included); the copy starts with an empty undo history."""
        g = Game.__new__(Game)
        g._ruleset = self._ruleset
        g._threat = self._threat
        g._solo = self._solo
        g._rotated = self._rotated
        g._timing_combat = self._timing_combat
        g._prot_any = self._prot_any
        g._per_card = self._per_card
        g._max_turns = self._max_turns
        g._threat_bits = self._threat_bits
        g._hidden_ids = self._hidden_ids
        g._record = self._record
        g._events = []
        g._history = []
        g._actions = self._actions.copy()
        g._keep_undo = self._keep_undo
        g._legal = self._legal
        g.origin = self.origin
        g._restore(self._snapshot())
        g._legal = self._legal
        return g

    def _repr_svg_(self) -> str | None:
        """The board as SVG, as Jupyter shows it (``None`` when no drawer is registered)."""
        return _board_drawer[0](self) if _board_drawer else None
