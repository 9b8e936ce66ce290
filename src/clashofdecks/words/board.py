"""The board as plain text: what the research environments' ``ansi`` and ``human`` render modes show.

One line per fact, no colour and no drawing library: the status, each side's hand (the cards the
viewer may not see as ``?``, R9) or the automaton's deck and discard (R7), and both lanes from each
realm's far end to the bridge (R1.1, R1.2), each creature with its address (the target notation of
``cast``), attack/health, damage taken and abilities (``*``: granted).
"""

from __future__ import annotations

from typing import Any

from ..cards import CARD_INDEX, CARDS
from ..formats import setup_summary
from ..position import view
from ..rules import Game
from .cards import card_name, colon
from .events import Context, outcome_reason
from .i18n import ability_name, t


def _creature(creature: dict[str, Any], address: str, lang: str) -> str:
    granted = set(creature.get("granted", ()) or ())
    card = CARDS[CARD_INDEX[str(creature["card"])]]
    attack = card.attack + int(creature.get("sprint_bonus", 0) or 0)
    damage = int(creature.get("damage", 0) or 0)
    text = f"{address} {card.name} {attack}/{card.health}" + (f" −{damage}" if damage else "")
    have: list[str] = list(creature.get("abilities", ()) or ())
    abilities = [ability_name(lang, a) + ("*" if a in granted else "") for a in have]
    return text + (f" [{', '.join(abilities)}]" if abilities else "")


def _status(game: Game, ctx: Context) -> str:
    lang = ctx.lang
    if game.is_over():
        outcome = game.outcome
        if outcome is None or outcome.winner is None:
            return f"{t(lang, 'phase_over').upper()} · {t(lang, 'draw')} ({outcome_reason(game, ctx)})"
        winner = t(lang, "winner_is", name=ctx.name(outcome.winner))
        return f"{t(lang, 'phase_over').upper()} · {winner} ({outcome_reason(game, ctx)})"
    if game.phase == "setup":
        return f"{t(lang, 'phase_setup').upper()} · {t(lang, 'decides', name=ctx.name(game.current_player))}"
    phase = t(lang, "phase_summon" if game.phase == "summon" else "phase_combat")
    mover = t(lang, "to_play", name=ctx.name(game.active))
    return f"{t(lang, 'turn').capitalize()} {game.turn} · {mover} · {phase} · {t(lang, 'mana')} {game.mana}"


def _side(game: Game, seat: int, ctx: Context) -> str:
    lang = ctx.lang
    side, left, _size = game.fortress(seat)
    fortress = f"{t(lang, 'bastion' if side == 'BASTION' else 'fort')} · {t(lang, 'places_left', n=left)}"
    if game.is_solo and seat == 1:
        discard = ", ".join(card_name(c, lang) for c in game.automaton_discard) or "—"
        deck = t(lang, "deck_cards", n=game.automaton_deck_size)
        return f"{ctx.name(1)} · {fortress} · {deck} · {t(lang, 'discard')}{colon(lang)}{discard}"
    if ctx.viewer is None or ctx.viewer == seat or game.phase == "setup":
        hand = game.hand(seat)
    else:
        hand = view(game, ctx.viewer)["players"][seat]["hand"]
    cards = " ".join(card_name(c, lang) for c in hand) or "—"
    return f"{t(lang, 'hand_of', name=ctx.name(seat))} · {fortress}{colon(lang)}{cards}"


def _setup(game: Game, ctx: Context) -> list[str]:
    """The setup stage (R2, R7.1): the revealed draft cards and the cards each side has so far."""
    lang = ctx.lang
    summary = setup_summary(game)
    revealed: list[str] = list(summary["revealed"])  # type: ignore[call-overload]
    cards: list[list[str]] = summary["cards"]  # type: ignore[assignment]
    lines = (
        [f"{t(lang, 'revealed')}{colon(lang)}{', '.join(card_name(c, lang) for c in revealed)}"]
        if revealed
        else []
    )
    for seat, held in enumerate(cards):
        names = ", ".join(card_name(c, lang) for c in held) or "—"
        lines.append(f"{t(lang, 'cards_of', name=ctx.name(seat))} ({len(held)}){colon(lang)}{names}")
    return lines


def plain_board(game: Game, ctx: Context) -> str:
    """The game as ``ctx.viewer`` may see it (``None``: everything), in ``ctx.lang``, as lines of text."""
    lang = ctx.lang
    me = 0 if ctx.viewer is None else ctx.viewer
    if game.phase == "setup":
        return "\n".join([_status(game, ctx), *_setup(game, ctx)]) + "\n"
    lines = [_status(game, ctx), _side(game, 1 - me, ctx)]
    for lane in ("top", "bottom"):
        lines.append(f"{t(lang, lane)}:")
        for seat in (me, 1 - me):
            creatures = game.lane(seat, lane)
            shown = [_creature(cr, f"{seat}.{lane}.{i}", lang) for i, cr in enumerate(creatures)]
            realm = t(lang, "realm_of", name=ctx.name(seat))
            lines.append(f"  {realm}{colon(lang)}{' | '.join(shown) or t(lang, 'empty')}")
    lines.append(_side(game, me, ctx))
    return "\n".join(lines) + "\n"


__all__ = ["plain_board"]
