"""The deck evaluation: the chance that a duel seat wins from the two decks alone, when the setup ends.

The board evaluation (:mod:`.evaluation`) knows nothing of a deck being drafted: in the setup
stage its only features are ``setup`` and ``setup_first``.  A search choosing a draft pick (R2.4)
therefore scored its choices by random rollouts of the whole game, which value cards as *random
play* uses them.  This model values them as a strong player uses them: a logistic regression on
who starts and, per card, +1 if seat 0 holds it and -1 if seat 1 does (0 if neither),

    P(seat 0 wins) = logistic(starts x (+1 if seat 0 starts else -1) + sum of card[c] x sign(c)),

so it is antisymmetric: swapping the seats gives the other seat's chance.  It is trained by
``clash train-decks`` on draft duels whose setup was chosen at random (varied decks) and whose play
is the strong agent's self-play, and shipped as ``data/deck_evaluation.json`` (coefficients plus a
model card).  Pure Python: a sum over 16 cards.

Fairness (R9): when the setup ends both decks are public (every draft pick is, R2.4; a chosen
preconstructed deck, R2.3; a built deck is revealed, R2.5), and so is who starts (R2.6).  The
model reads nothing else.  It is for duels; in solo the other side is the automaton's deck.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ..cards import CARD_IDS, CARD_INDEX, N_CARDS
from ..rules import Game
from .evaluation import _dot, fit_logistic, logistic

#: The model file's format tag.
DECK_MODEL_FORMAT: Final = "clashofdecks-deck-evaluation/1"
#: Where the shipped model lives inside the package.
DECK_MODEL_RESOURCE: Final = "deck_evaluation.json"
#: Feature names, in vector order: who starts, then one per card (R1's 32 cards, no fortress).
DECK_FEATURES: Final[tuple[str, ...]] = ("starts", *CARD_IDS[:N_CARDS])

#: Cards per seat when a duel's setup ends, in every format (R2.3-R2.5).
DUEL_DECK_SIZE: Final = 8

Decks = tuple[Sequence[int], Sequence[int]]


def starts_feature(starter: int) -> float:
    """The feature ``starts``: +1 when seat 0 starts, -1 when seat 1 does."""
    if starter not in (0, 1):
        raise ValueError(f"the starting seat is 0 or 1, not {starter}")
    return 1.0 if starter == 0 else -1.0


def deck_features(decks: Decks, starter: int) -> list[float]:
    """The feature vector (names in :data:`DECK_FEATURES`) for seat 0's and seat 1's cards (card
    indices, fortress cards ignored) when seat ``starter`` starts."""
    x = [starts_feature(starter)] + [0.0] * N_CARDS
    for seat, sign in ((0, 1.0), (1, -1.0)):
        for c in decks[seat]:
            if not 0 <= c < N_CARDS + 2:
                raise ValueError(f"{c} is not a card index")
            if c < N_CARDS:
                x[1 + c] += sign
    return x


def decks_at_first_turn(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both seats' cards in a duel at the first turn of its play phase, before any card left a
    hand (the setup just ended: each hand holds its whole deck); a :class:`ValueError` otherwise."""
    if game.is_solo:
        raise ValueError("the deck evaluation is for duels (in solo the other side is the automaton)")
    hands = tuple(tuple(i for i in map(CARD_INDEX.__getitem__, game.hand(p)) if i < N_CARDS) for p in (0, 1))
    if game.phase == "setup" or game.turn != 1 or any(len(h) != DUEL_DECK_SIZE for h in hands):
        raise ValueError("the decks are read at the first turn, before any card has left a hand")
    return hands[0], hands[1]


@dataclass(frozen=True, slots=True)
class DeckModel:
    """The coefficients (``weights``, over :data:`DECK_FEATURES`) and the model card."""

    weights: tuple[float, ...]
    card: dict[str, Any]

    def logit(self, decks: Decks, starter: int) -> float:
        """Seat 0's log-odds of winning with these decks when ``starter`` starts."""
        return _dot(self.weights, deck_features(decks, starter))

    def win_chance(self, decks: Decks, starter: int, seat: int) -> float:
        """The chance that ``seat`` wins with these decks when ``starter`` starts."""
        p = logistic(self.logit(decks, starter))
        return p if seat == 0 else 1.0 - p

    def game_chance(self, game: Game, seat: int) -> float:
        """``seat``'s chance in a duel whose setup has just ended (:func:`decks_at_first_turn`)."""
        return self.win_chance(decks_at_first_turn(game), game.active, seat)

    def card_values(self) -> dict[str, float]:
        """Each card's coefficient (log-odds for the seat holding it), by card id."""
        return dict(zip(DECK_FEATURES[1:], self.weights[1:], strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": DECK_MODEL_FORMAT,
            "features": list(DECK_FEATURES),
            "weights": list(self.weights),
            "card": self.card,
        }

    @classmethod
    def from_dict(cls, data: Any) -> DeckModel:
        """Read a model (a clear :class:`ValueError` for a file of another kind or version)."""
        if not isinstance(data, dict) or data.get("format") != DECK_MODEL_FORMAT:
            raise ValueError(f"not a deck evaluation model of format {DECK_MODEL_FORMAT}")
        if data.get("features") != list(DECK_FEATURES):
            raise ValueError("the model's features do not match this version's cards")
        w = data.get("weights")
        if not isinstance(w, list) or len(w) != len(DECK_FEATURES):
            raise ValueError(f"the model has no {len(DECK_FEATURES)} weights")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in w):
            raise ValueError("the model's weights must be finite numbers")
        card = data.get("card", {})
        return cls(tuple(float(v) for v in w), card if isinstance(card, dict) else {})

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def load_deck_model(path: Path | None = None) -> DeckModel:
    """The model in ``path``, or the shipped one (``clashofdecks/data/deck_evaluation.json``)."""
    if path is not None:
        return DeckModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    return shipped_deck_model()


@cache
def shipped_deck_model() -> DeckModel:
    """The model shipped in the package (read once)."""
    text = resources.files("clashofdecks").joinpath("data", DECK_MODEL_RESOURCE).read_text(encoding="utf-8")
    return DeckModel.from_dict(json.loads(text))


@dataclass(frozen=True, slots=True)
class DeckGame:
    """One training game: each seat's cards when the setup ended, who started, who won."""

    decks: tuple[tuple[int, ...], tuple[int, ...]]
    starter: int
    #: The winning seat, or None for a draw.
    winner: int | None

    @property
    def label(self) -> float:
        """Seat 0's result: 1 win, 0 loss, 1/2 draw."""
        return 0.5 if self.winner is None else (1.0 if self.winner == 0 else 0.0)


def fit_deck_model(games: Sequence[DeckGame], ridge: float) -> DeckModel:
    """Maximum-likelihood fit (:func:`~.evaluation.fit_logistic`, ``ridge`` on every card's
    coefficient, none on ``starts``)."""
    if not games:
        raise ValueError("no games to fit the deck evaluation on")
    xs = [deck_features(g.decks, g.starter) for g in games]
    w = fit_logistic(xs, [g.label for g in games], ridge=ridge)
    return DeckModel(tuple(w), {})


__all__ = [
    "DECK_FEATURES",
    "DECK_MODEL_FORMAT",
    "DeckGame",
    "DeckModel",
    "deck_features",
    "decks_at_first_turn",
    "fit_deck_model",
    "load_deck_model",
    "shipped_deck_model",
    "starts_feature",
]
