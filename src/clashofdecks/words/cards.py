"""Cards in words: printed names, facts and abilities in the reader's language."""

from __future__ import annotations

from ..cards import CARD_INDEX, CARDS, N_CARDS
from .i18n import ability_name, t


def colon(lang: str) -> str:
    """A colon and its spaces as ``lang`` writes them (French: a space before; Japanese: full width)."""
    return {"fr": " : ", "ja": "："}.get(lang, ": ")


def card_name(card_id: str | None, lang: str = "en") -> str:
    """The printed name of ``card_id`` (any case); the fortress sides in ``lang``; ``?`` stays ``?``."""
    if card_id is None:
        return "?"
    if card_id == "BASTION":
        return t(lang, "bastion")
    if card_id == "FORT":
        return t(lang, "fort")
    idx = CARD_INDEX.get(card_id.upper())
    if idx is None or idx >= N_CARDS:
        return card_id
    return CARDS[idx].name


def card_cost(card_id: str) -> int:
    """The mana a card costs (any case)."""
    return CARDS[CARD_INDEX[card_id.upper()]].cost


def card_stats(card_id: str, lang: str) -> str:
    """``cost 3 · 3/5`` for a creature, ``cost 1 · damage 1`` for an incantation."""
    c = CARDS[CARD_INDEX[card_id]]
    value = f"{c.attack}/{c.health}" if c.is_creature else t(lang, "damage_value", n=c.attack)
    return f"{t(lang, 'cost')} {c.cost} · {value}"


def card_abilities(card_id: str, lang: str) -> str:
    """The printed abilities (and Aura) of a card, in ``lang``."""
    c = CARDS[CARD_INDEX[card_id]]
    words = [ability_name(lang, a) for a in c.abilities]
    if c.aura:
        words.append(t(lang, "aura_grants", names=", ".join(ability_name(lang, a) for a in c.aura)))
    return ", ".join(words)


def card_facts(card_id: str, lang: str) -> str:
    """``3/5 Rage`` for a creature, ``damage 1`` for an incantation: what the cost does not say."""
    c = CARDS[CARD_INDEX[card_id]]
    value = f"{c.attack}/{c.health}" if c.is_creature else t(lang, "damage_value", n=c.attack)
    return f"{value} {card_abilities(card_id, lang)}".rstrip()


__all__ = ["card_abilities", "card_cost", "card_facts", "card_name", "card_stats", "colon"]
