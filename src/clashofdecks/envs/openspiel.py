"""The duel as an OpenSpiel game, ``python_clash_of_decks``, registered when this module is imported.

    import pyspiel
    import clashofdecks.envs.openspiel  # registers the game
    game = pyspiel.load_game("python_clash_of_decks", {"format": "draft", "max_turns": 100})

Chance is explicit: the engine runs with external chance (:meth:`clashofdecks.rules.Game.new`), so
the coin toss (R2.3a), every draft card drawn face up (R2.4, one card per chance node) and every
hand place of the deal (R2.6, one card per chance node, seat 0 then seat 1, left to right after the
Bastion) are chance nodes with uniform outcomes.  After the deal a duel has no chance left.

Actions: a player's action is the engine's integer (``num_distinct_actions`` = the engine's
``ACTION_SPACE``); a chance outcome is ``k`` for the engine's ``CHANCE_BASE + k`` (0-1 the coin,
2-33 a card).  Formats: ``draft`` and ``precon`` (the custom format's 10-card builds, C(32, 10)
choices, do not fit the action space and are not offered here).  ``max_turns`` caps the game (a
draw, returns 0 and 0; the rules have no draw).

Information: the information-state string of a seat is its whole action-observation history (every
decision and every public chance outcome in words, its own deal draws shown and the opponent's as
``?``), so it has perfect recall; the tensors are :mod:`clashofdecks.envs.encoding`'s observation
and information-state vectors (a seat's view only, R9).  :meth:`ClashOfDecksState.resample_from_infostate`
draws a state the seat cannot tell from this one (the engine's determinization, with the
opponent's deal rewritten to match), which is what OpenSpiel's ISMCTS bot asks for.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

import numpy as np
import pyspiel

from .. import actions as A
from ..agents.base import Agent
from ..cards import CARD_INDEX
from ..formats import new_game
from ..options import Ruleset
from ..position import view
from ..rules import CHANCE, Game
from .encoding import (
    DEFAULT_MAX_TURNS,
    INFOSTATE_LAYOUT,
    OBSERVATION_LAYOUT,
    encode_infostate,
    encode_observation,
)

SHORT_NAME: Final = "python_clash_of_decks"
FORMATS: Final = ("draft", "precon")
#: Chance outcomes: the coin's two sides, then the 32 cards.
MAX_CHANCE_OUTCOMES: Final = A.CHANCE_END - A.CHANCE_BASE
#: A bound on decisions per turn: each paid action costs at least 1 mana (at most 9, R3.1; the
#: automaton plays no part in a duel), each creature activates once (at most 8 on a side), two ends,
#: return orders; generous.
_DECISIONS_PER_TURN: Final = 48
_SETUP_LENGTH: Final = 1 + 16 + 12 + 16 + 2  # coin, draft draws, picks, deal places, deck choices


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Clash of Decks (duel)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={"format": "draft", "max_turns": DEFAULT_MAX_TURNS},
    )


GAME_TYPE: Final = _game_type()


class ClashOfDecksGame(pyspiel.Game):  # type: ignore[misc]
    """The duel (R2) for OpenSpiel; parameters ``format`` (draft, precon) and ``max_turns``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        fmt = params.get("format", "draft")
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)} for OpenSpiel, not {fmt!r}")
        max_turns = params.get("max_turns", DEFAULT_MAX_TURNS)
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive integer, not {max_turns!r}")
        info = pyspiel.GameInfo(
            num_distinct_actions=A.ACTION_SPACE,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_SETUP_LENGTH + _DECISIONS_PER_TURN * max_turns,
        )
        super().__init__(GAME_TYPE, info, {"format": fmt, "max_turns": max_turns})
        self.format: str = fmt
        self.ruleset = Ruleset(max_turns=max_turns)

    def new_initial_state(self) -> ClashOfDecksState:
        return ClashOfDecksState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> ClashOfDecksObserver:
        return ClashOfDecksObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class ClashOfDecksState(pyspiel.State):  # type: ignore[misc]
    """A state: the engine game (external chance) and the history of decisions and outcomes."""

    def __init__(self, game: ClashOfDecksGame) -> None:
        super().__init__(game)
        self.engine: Game = new_game(
            mode="duel",
            format=game.format,
            seed=0,
            ruleset=game.ruleset,
            record_events=False,
            external_chance=True,
        )
        self.engine.keep_undo = False  # never undone here; copies stay small
        #: Per step: (player or CHANCE, engine action, its text, the seat a deal draw is for or -1).
        self.steps: list[tuple[int, int, str, int]] = []
        #: Per seat: the hand as dealt (card integers), once the deal is complete.
        self.dealt: list[list[int] | None] = [None, None]

    # ------------------------------------------------------------------ the OpenSpiel API

    def current_player(self) -> int:
        engine = self.engine
        if engine.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        player = engine.current_player
        return int(pyspiel.PlayerId.CHANCE) if player == CHANCE else player

    def _legal_actions(self, player: int) -> list[int]:
        if self.engine.is_over() or player != self.engine.current_player:
            return []
        return sorted(self.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(a - A.CHANCE_BASE, p) for a, p in self.engine.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        player = engine.current_player
        deal_seat = -1
        if player == CHANCE:
            st = engine.setup_state
            if st is not None and st.steps[0][0] == "place":
                deal_seat = st.steps[0][1]
            action += A.CHANCE_BASE
        text = engine.action_text(action)
        engine.apply(action)
        self.steps.append((player, action, text, deal_seat))
        if self.dealt[0] is None and engine.phase != "setup":
            for seat in (0, 1):
                self.dealt[seat] = [CARD_INDEX[c] for c in engine.hand(seat)]

    def _action_to_string(self, player: int, action: int) -> str:
        engine_action = action + A.CHANCE_BASE if player == int(pyspiel.PlayerId.CHANCE) else action
        return self.engine.action_text(engine_action)

    def is_terminal(self) -> bool:
        return self.engine.is_over()

    def returns(self) -> list[float]:
        outcome = self.engine.outcome
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        return json.dumps(view(self.engine, None), sort_keys=True)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ClashOfDecksState:
        """A state with the same information state for ``player_id``, the hidden things drawn at random,
        and its own consistent history: the game replayed with the opponent's hidden deal draws
        permuted.  (A hidden card has never left the opponent's hand since the deal, R9.2, so every
        decision replays as before; future chance, such as the face-down draft pile, is not drawn yet.)"""
        rng = random.Random(int(probability_sampler() * 2**53))
        opp = 1 - player_id
        deal = self._deal_of(opp)
        if self.engine.phase == "setup":
            hidden = set(deal)
        else:
            hand = self.engine.hand(opp)
            mask = self.engine.is_hidden(opp, player_id)
            hidden = {CARD_INDEX[c] for c, h in zip(hand, mask, strict=True) if h}
        places = [i for i, c in enumerate(deal) if c in hidden]
        cards = [deal[i] for i in places]
        rng.shuffle(cards)
        new_deal = list(deal)
        for i, c in zip(places, cards, strict=True):
            new_deal[i] = c
        out = self.get_game().new_initial_state()
        draws = iter(new_deal)
        for player, action, _text, seat in self.steps:
            if seat == opp:
                action = A.CHANCE_CARD + next(draws)
            out.apply_action(action - A.CHANCE_BASE if player == CHANCE else action)
        return out  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ helpers

    def _deal_of(self, seat: int) -> list[int]:
        return [a - A.CHANCE_CARD for _, a, _, s in self.steps if s == seat]

    def information_state_text(self, player: int) -> str:
        """The seat's action-observation history (perfect recall), one step per line."""
        lines = [f"seat {player}"]
        for who, _action, text, seat in self.steps:
            if seat not in (-1, player):
                text = "chance ?"
            lines.append(text if who == CHANCE else f"{who}: {text}")
        return "\n".join(lines)


def agent_action(agent: Agent, state: ClashOfDecksState) -> int:
    """The action one of this project's agents (:func:`clashofdecks.agents.registry.make_agent`)
    chooses in an OpenSpiel state: it sees a copy of the engine game, through its view as always."""
    game = state.engine.clone()
    game.keep_undo = True  # agents search by apply/undo on their copies
    return agent.act(game)


class ClashOfDecksObserver:
    """OpenSpiel's observer interface: ``tensor`` and ``dict`` (named slices), ``set_from`` and
    ``string_from``.  ``perfect_recall`` selects the information state, else the observation; both
    are one seat's private and public information (other observation types are refused)."""

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a seat's own observation (private and public information) is provided")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.layout = INFOSTATE_LAYOUT if self.perfect_recall else OBSERVATION_LAYOUT
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = self.layout.split(self.tensor)

    def set_from(self, state: ClashOfDecksState, player: int) -> None:
        if self.perfect_recall:
            history = [(who, a) for who, a, _, _ in state.steps if who != CHANCE]
            self.tensor[:] = encode_infostate(state.engine, player, state.dealt[player], history)
        else:
            self.tensor[:] = encode_observation(state.engine, player)

    def string_from(self, state: ClashOfDecksState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_text(player)
        return json.dumps(view(state.engine, player), sort_keys=True, separators=(",", ":"))


pyspiel.register_game(GAME_TYPE, ClashOfDecksGame)

__all__ = [
    "FORMATS",
    "GAME_TYPE",
    "SHORT_NAME",
    "ClashOfDecksGame",
    "ClashOfDecksObserver",
    "ClashOfDecksState",
    "agent_action",
]
