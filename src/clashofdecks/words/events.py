"""Events in words: what happened, as a sentence in the reader's language with the players' names.

:class:`Context` is who reads (the language, each seat's name, whose eyes); a front end that draws
adds its own settings to it (the terminal's screen width, :class:`clashofdecks.terminal.render.Context`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import CARD_INDEX, HEALTH
from ..events import Event, EventKind
from ..rules import Game
from .cards import card_name
from .i18n import ability_name, event_text, has_key, t


@dataclass(frozen=True, slots=True)
class Context:
    """Who reads: the language, each seat's display name, and whose eyes (``None``: everyone's)."""

    lang: str = "en"
    names: tuple[str, str] = ("player 0", "player 1")
    viewer: int | None = 0

    def name(self, seat: int | None) -> str:
        if seat is None or seat not in (0, 1):
            return "?"
        return self.names[seat]


def outcome_reason(game: Game, ctx: Context) -> str:
    """Why the game ended, in ``ctx.lang`` with the players' names (the engine's reason is English)."""
    outcome = game.outcome
    if outcome is None:
        return ""
    key = f"reason_{outcome.termination.value}"
    if not has_key(key):
        return outcome.reason
    winner = outcome.winner
    loser = None if winner is None else 1 - winner
    return t(ctx.lang, key, winner=ctx.name(winner), loser=ctx.name(loser))


def _setup_sentence(event: Event, ctx: Context) -> str:
    lang = ctx.lang
    who = ctx.name(event.player)
    cards = ", ".join(card_name(c, lang) for c in event.cards or ())
    role = event.role
    if role == "revealed":
        return event_text(lang, "setup_revealed", cards=cards)
    if role == "gets":
        return event_text(lang, "setup_gets", who=who, cards=cards)
    if role == "picks":
        return event_text(lang, "setup_picks", who=who, cards=card_name(event.card, lang))
    if role == "deck":
        return event_text(lang, "setup_deck", who=who, cards=str(event.amount))
    if role == "builds":
        return event_text(lang, "setup_builds", who=who)
    if role == "reveals":
        return event_text(lang, "setup_reveals", who=who, cards=cards)
    if role == "removes":
        return event_text(lang, "setup_removes", who=who, cards=card_name(event.card, lang))
    if role == "dealt":
        return event_text(lang, "setup_dealt")
    return event.detail or ""


def event_sentence(event: Event, ctx: Context) -> str:
    """The event as a sentence in ``ctx.lang`` with the players' names and printed card names."""
    lang = ctx.lang
    k = event.kind
    who = ctx.name(event.player)
    card = card_name(event.card, lang)
    lane = t(lang, event.lane) if event.lane in ("top", "bottom") else (event.lane or "")
    n = event.amount if event.amount is not None else 0
    if k is EventKind.SETUP:
        return _setup_sentence(event, ctx)
    if k is EventKind.TURN_STARTED:
        mana = event.value if event.value is not None else "?"
        text = event_text(lang, "turn_started", n=n, who=who, mana=mana)
        if event.role == "last_turn":
            text += " — " + event_text(lang, "last_turn")
        return text
    if k is EventKind.ATTACKED:
        if event.role == "berserk":
            return event_text(lang, "berserk", who=who, card=card)
        if event.target_card is None:
            return event_text(
                lang, "attacked_player", who=who, card=card, tgt=ctx.name(event.target_player), n=n
            )
        return event_text(lang, "attacked", who=who, card=card, tcard=card_name(event.target_card, lang), n=n)
    if k is EventKind.CAST:
        return event_text(
            lang,
            "cast",
            who=who,
            card=card,
            tcard=card_name(event.target_card, lang),
            tgt=ctx.name(event.target_player),
            lane=lane,
            # Places are counted from 1 for readers (the notation counts from 0).
            pos=event.position + 1 if event.position is not None else "",
        )
    if k is EventKind.DAMAGED:
        role = (
            event_text(lang, "role_target")
            if event.role == "target"
            else ability_name(lang, event.role or "")
        )
        health = HEALTH[CARD_INDEX[event.card]] if event.card in CARD_INDEX else "?"
        return event_text(lang, "damaged", card=card, n=n, role=role, total=event.value, health=health)
    if k is EventKind.ABSORBED:
        return event_text(lang, "absorbed", card=card, detail=ability_name(lang, event.role or ""))
    if k in (EventKind.ORDER_CHOSEN, EventKind.DECISION_PENDING):
        # The cards come as data (never parsed back from the English detail text).
        sep = " → " if k is EventKind.ORDER_CHOSEN else ", "
        detail = sep.join(card_name(c, lang) for c in event.cards or ())
        return event_text(lang, k.value, who=who, detail=detail)
    if k is EventKind.GAME_OVER:
        if event.player is None:
            head = t(lang, "draw")
        else:
            head = t(lang, "winner_is", name=ctx.name(event.player))
        key = f"reason_{event.role}"
        if has_key(key):
            loser = None if event.player is None else 1 - event.player
            reason = t(lang, key, winner=ctx.name(event.player), loser=ctx.name(loser))
        else:
            reason = event.detail or ""
        return f"{head}! ({reason})"
    if k is EventKind.BASTION_FELL:
        return event_text(lang, "bastion_fell", who=who)
    return event_text(lang, k.value, who=who, card=card, lane=lane, n=n, detail=event.detail or "")


__all__ = ["Context", "event_sentence", "outcome_reason"]
