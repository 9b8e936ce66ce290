"""A game built from what one seat may know: the starting point of a bot's search (issue 39).

An agent searches a :class:`~clashofdecks.rules.Game`; a bot on the site has only its seat's view
(:func:`clashofdecks.position.view`, R9), never the record, which would tell hidden cards.
:func:`game_from_view` fills every ``"?"`` of the view with a placeholder the view allows (the
``hidden_cards`` behind them where the view lists them, else cards the seat has not seen), loads the
position, and then lets the engine refill at random all the seat cannot know
(:meth:`~clashofdecks.rules.Game.sample_determinization`: hidden places, the draft pile, an
opponent's unrevealed custom deck, future chance).  So the game is one the seat cannot tell from the
real one: its view of the result is the view it was given (tests/test_view_game.py checks that over
random games of every mode and format).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

from .cards import CARD_IDS, N_CARDS
from .errors import InvalidPositionError
from .position import HIDDEN, load_position
from .rules import Game

_KIT = frozenset(CARD_IDS[:N_CARDS])


def _visible_cards(view: dict[str, Any]) -> set[str]:
    """Every card of the kit the view names (a hidden card's identity listed in ``hidden_cards``
    included): the cards a seat has seen."""
    return {c for c in _card_names(view) if c in _KIT}


def _card_names(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _card_names(item)
    elif isinstance(node, dict):
        for key, item in node.items():
            if key not in ("mode", "ruleset", "threat", "phase", "winner", "termination", "steps", "format"):
                yield from _card_names(item)


def _fill(cards: list[Any], placeholders: list[str], where: str) -> None:
    slots = [i for i, c in enumerate(cards) if c == HIDDEN]
    if len(placeholders) < len(slots):
        raise InvalidPositionError(
            f"{where}: {len(slots)} hidden cards, but only {len(placeholders)} can be there"
        )
    for i, card in zip(slots, placeholders, strict=False):
        cards[i] = card


def game_from_view(view: dict[str, Any], seat: int, rng: random.Random) -> Game:
    """A game consistent with ``view``, the view of ``seat`` (0 or 1), hidden things drawn at random
    with ``rng``; :class:`~clashofdecks.errors.InvalidPositionError` for a view that is not one.
    The same view and generator state give the same game."""
    if seat not in (0, 1):
        raise ValueError(f"a game from a view is for seat 0 or 1, not {seat!r}")
    if not isinstance(view, dict) or not isinstance(view.get("players"), list) or len(view["players"]) != 2:
        raise InvalidPositionError("a view is a position object with two players")
    pos = copy.deepcopy(view)
    unseen = sorted(_KIT - _visible_cards(view))
    setup = pos.get("setup")
    if isinstance(setup, dict):
        if setup.get("external_chance"):
            raise InvalidPositionError(
                "setup: a view of a set-up with chance outside the program has no game"
            )
        if isinstance(setup.get("pool"), list):
            _fill(setup["pool"], unseen, "setup.pool")
        for i, cards in enumerate(setup.get("cards") or []):
            if isinstance(cards, list) and HIDDEN in cards:  # an unrevealed custom deck: any cards (R2.5)
                _fill(cards, sorted(_KIT), f"setup.cards[{i}]")
    for p, player in enumerate(pos["players"]):
        if not isinstance(player, dict):
            raise InvalidPositionError(f"players[{p}] must be an object")
        listed = player.pop("hidden_cards", None)
        for key in ("hand", "deck"):
            cards = player.get(key)
            if isinstance(cards, list) and HIDDEN in cards:
                if listed is not None and not isinstance(listed, list):
                    raise InvalidPositionError(f"players[{p}].hidden_cards must be a list")
                _fill(cards, sorted(listed) if listed is not None else unseen, f"players[{p}].{key}")
    game = load_position(pos, record_events=False)
    return game.sample_determinization(seat, rng)


__all__ = ["game_from_view"]
