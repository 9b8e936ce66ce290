"""The Starter Kit's card data, loaded once from the packaged JSON and flattened into tables.

The engine works with small integers: a card's index in :data:`CARD_IDS` (0-31), and two extra
indices for the two sides of the fortress card.  Every per-card fact the rules need is precomputed
into a tuple indexed by that integer, so the hot path never touches dictionaries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from .errors import ClashError

# Ability bits (one int per card; Aura grants are a second int).
SPLASH: Final = 1
PERFORATION: Final = 2
RAGE: Final = 4
PROTECTION: Final = 8
INDESTRUCTIBLE: Final = 16
BERSERK: Final = 32
SPRINT: Final = 64

ABILITY_BITS: Final[dict[str, int]] = {
    "splash": SPLASH,
    "perforation": PERFORATION,
    "rage": RAGE,
    "protection": PROTECTION,
    "indestructible": INDESTRUCTIBLE,
    "berserk": BERSERK,
    "sprint": SPRINT,
}
ABILITY_ORDER: Final = tuple(ABILITY_BITS)


#: The ability words of every combination of the bits (a frame names each creature's abilities
#: twice: made once here instead of testing seven bits each time).
_NAMES_OF_BITS: Final = tuple(
    tuple(name for name, bit in ABILITY_BITS.items() if bits & bit) for bits in range(SPRINT * 2)
)
_ALL_BITS: Final = SPRINT * 2 - 1


def ability_names(bits: int) -> list[str]:
    """The ability words set in ``bits``, in the digest's order."""
    return list(_NAMES_OF_BITS[bits & _ALL_BITS])


@dataclass(frozen=True, slots=True)
class Card:
    """One printed card (facts only; the rules live in :mod:`clashofdecks.rules`)."""

    index: int
    id: str
    name: str
    kind: str  # "creature" or "incantation"
    cost: int
    attack: int  # creatures: attack value; incantations: damage value
    health: int  # 0 for incantations
    abilities: tuple[str, ...]
    aura: tuple[str, ...]
    deck: int
    verified: bool

    @property
    def is_creature(self) -> bool:
        """Whether the card is a creature (else an incantation, R5)."""
        return self.kind == "creature"


def _load() -> dict[str, Any]:
    text = resources.files("clashofdecks").joinpath("data/starter-kit.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA: Final = _load()

CARDS: Final[tuple[Card, ...]] = tuple(
    Card(
        index=i,
        id=raw["id"],
        name=raw["name"],
        kind=raw["kind"],
        cost=raw["cost"],
        attack=raw.get("attack", raw.get("damage", 0)),
        health=raw.get("health", 0),
        abilities=tuple(raw["abilities"]),
        aura=tuple(raw.get("aura", ())),
        deck=raw["deck"],
        verified=not str(raw.get("source", "")).startswith("UNVERIFIED"),
    )
    for i, raw in enumerate(_DATA["cards"])
)
N_CARDS: Final = len(CARDS)

#: The two sides of the fortress card; not in the card data, but ids in positions.
BASTION: Final = N_CARDS
FORT: Final = N_CARDS + 1

CARD_IDS: Final[tuple[str, ...]] = (*(c.id for c in CARDS), "BASTION", "FORT")
CARD_INDEX: Final[dict[str, int]] = {cid: i for i, cid in enumerate(CARD_IDS)}

COST: Final = tuple(c.cost for c in CARDS)
ATTACK: Final = tuple(c.attack for c in CARDS)
HEALTH: Final = tuple(c.health for c in CARDS)
IS_INCANTATION: Final = tuple(not c.is_creature for c in CARDS)
ABILITIES: Final = tuple(sum(ABILITY_BITS[a] for a in c.abilities) for c in CARDS)
AURA: Final = (*(sum(ABILITY_BITS[a] for a in c.aura) for c in CARDS), 0, 0)
INCANTATIONS: Final[tuple[int, ...]] = tuple(c.index for c in CARDS if not c.is_creature)

PRECONSTRUCTED_DECKS: Final[dict[int, tuple[int, ...]]] = {
    int(k): tuple(CARD_INDEX[cid] for cid in v) for k, v in _DATA["preconstructed_decks"].items()
}

#: Ability names per language (en, de, fr, ja), as in the card data.
ABILITY_NAMES: Final[dict[str, dict[str, str]]] = _DATA["ability_names"]


class UnknownCardError(ClashError):
    """A card id that is not in the card data."""


def card_index(card_id: str, *, fortress: bool = False) -> int:
    """The integer of ``card_id``; raises :class:`UnknownCardError` naming the id."""
    idx = CARD_INDEX.get(card_id)
    if idx is None or (idx >= N_CARDS and not fortress):
        raise UnknownCardError(f"unknown card id: {card_id!r}")
    return idx


def card(card_id: str) -> Card:
    """The :class:`Card` with this id (e.g. ``card("BRUTE")``)."""
    return CARDS[card_index(card_id)]
