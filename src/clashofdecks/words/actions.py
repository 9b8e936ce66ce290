"""Actions as sentences: what a front end shows a player instead of the notation (the one
``describe_action`` of the program: the terminal, the web and the replays say the same sentence).

:func:`describe_action` turns any action of the notation (docs/formats.md: ``play BRUTE top``,
``cast BOOM 1.top.0``, ``next``, ``end``, ``order``, ``deck``, ``pick``, ``build``, ``ban``,
``chance``) into a sentence in the player's language, with card names as printed and the cost in
mana where one is paid ("Carapace auf die obere Bahn spielen (3 Mana)").  :func:`prompt_line` says in
one line what the player can do now and what ending the phase or the turn means at this moment (R3).
The notation stays what programs exchange; these sentences are only for people.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ClashError
from ..events import Event
from ..rules import DecisionKind, Game
from .cards import card_cost as _cost
from .cards import card_name
from .i18n import phrase, t


def _list(lang: str, names: Sequence[str]) -> str:
    return phrase(lang, "action.list_separator").join(names)


def default_names(game: Game, lang: str) -> tuple[str, str]:
    """Names for the two seats when a caller has none: "Player 1", "Player 2" (or the automaton)."""
    word = t(lang, "automaton_name")
    second = word if game.is_solo else t(lang, "default_player", n=2)
    return t(lang, "default_player", n=1), second


def next_attack(game: Game) -> Event | None:
    """The attack ``next`` makes now (R3.5: attacker, target card or player), read off the board
    (``Game.next_attack``); ``None`` when ``next`` is not legal or attacks nothing."""
    return game.next_attack()


def cast_target(game: Game, action: str) -> str | None:
    """The card id that ``cast CARD P.LANE.N`` targets now, or ``None`` for any other text."""
    words = action.split()
    if len(words) != 3 or words[0].lower() != "cast":
        return None
    try:
        player, lane, position = words[2].split(".")
        return game.lane_card(int(player), lane.lower(), int(position))
    except (ValueError, IndexError, KeyError, ClashError):
        return None


def _next_sentence(game: Game, lang: str, names: tuple[str, str]) -> str:
    """``next``: which creature attacks what."""
    event = next_attack(game)
    if event is None:
        return phrase(lang, "action.next")
    card = card_name(event.card, lang)
    if event.target_card is None:
        who = names[event.target_player] if event.target_player in (0, 1) else "?"
        return phrase(lang, "action.next_player", card=card, name=who)
    return phrase(lang, "action.next_creature", card=card, target=card_name(event.target_card, lang))


def _end_sentence(game: Game, lang: str) -> str:
    if game.phase == "summon":
        return phrase(lang, "action.end_summon")
    if game.phase == "combat" and game.is_legal(game.parse_action("next")):
        return phrase(lang, "action.end_combat")
    return phrase(lang, "action.end_turn")


def describe_action(
    game: Game,
    action: str,
    lang: str = "en",
    *,
    names: tuple[str, str] | None = None,
    addressee: int | None = -1,
) -> str:
    """A sentence for ``action`` (notation, legal now in ``game``) in ``lang``.

    ``names`` are the seats' names (default: "Player 1"/"Player 2", the automaton in solo);
    ``addressee`` is the seat the sentence speaks to ("your top lane"): by default the player to
    move, ``None`` to name every player (a replay's step line).  Text that is not an action of the
    notation is returned as it is."""
    names = names or default_names(game, lang)
    you = game.current_player if addressee == -1 else addressee
    words = action.split()
    if not words:
        return action
    verb = words[0].lower()
    args = words[1:]
    try:
        if verb == "end" and not args:
            return _end_sentence(game, lang)
        if verb == "next" and not args:
            return _next_sentence(game, lang, names)
        if verb == "play" and len(args) == 2 and args[1].lower() in ("top", "bottom"):
            card = args[0].upper()
            key = f"action.play_{args[1].lower()}"
            return phrase(lang, key, card=card_name(card, lang), cost=_cost(card))
        if verb == "cast" and len(args) == 2:
            card = args[0].upper()
            p_text, lane, n_text = args[1].split(".")
            player, position = int(p_text), int(n_text)
            target = game.lane_card(player, lane.lower(), position)
            own = "own" if player == you else "other"
            who = names[player] if player in (0, 1) else "?"
            return phrase(
                lang,
                f"action.cast_{own}_{lane.lower()}",
                card=card_name(card, lang),
                target=card_name(target, lang),
                name=who,
                cost=_cost(card),
            )
        if verb == "order" and args:
            return phrase(lang, "action.order", cards=_list(lang, [card_name(c.upper(), lang) for c in args]))
        if verb == "deck" and len(args) == 1:
            return phrase(lang, "action.deck", n=int(args[0]))
        if verb == "pick" and len(args) == 1:
            card = args[0].upper()
            return phrase(lang, "action.pick", card=card_name(card, lang), cost=_cost(card))
        if verb == "ban" and len(args) == 1:
            opponent = 1 - you if you in (0, 1) else 1 - game.current_player
            return phrase(lang, "action.ban", card=card_name(args[0].upper(), lang), name=names[opponent])
        if verb == "build" and args:
            return phrase(lang, "action.build", cards=_list(lang, [card_name(c.upper(), lang) for c in args]))
        if verb == "chance" and len(args) == 2 and args[0].lower() == "coin":
            return phrase(lang, "action.chance_coin", name=names[int(args[1])])
        if verb == "chance" and len(args) == 1:
            return phrase(lang, "action.chance_card", card=card_name(args[0].upper(), lang))
    except (ValueError, IndexError, KeyError, ClashError):
        pass
    return action


def describe_actions(
    game: Game, actions: Sequence[str], lang: str = "en", *, names: tuple[str, str] | None = None
) -> list[str]:
    """:func:`describe_action` for each of ``actions`` (all legal now), in order."""
    return [describe_action(game, a, lang, names=names) for a in actions]


def describe_sequence(
    game: Game, actions: Sequence[str], lang: str = "en", *, names: tuple[str, str] | None = None
) -> list[str]:
    """Sentences for ``actions`` played one after the other from ``game``'s position (``game`` is not
    changed): how an undo says what it took back."""
    copy = game.clone()
    out = []
    for action in actions:
        out.append(describe_action(copy, action, lang, names=names))
        try:
            copy.apply_text(action)
        except ClashError:
            break
    return out


def prompt_line(
    game: Game,
    lang: str,
    seat: int | None,
    *,
    names: tuple[str, str] | None = None,
    to_move: int | None = None,
    thinking: bool = False,
    build: bool = False,
) -> str:
    """One line for ``seat`` (``None``: a spectator): what it can do now and what ending the phase or
    the turn means at this moment (R3), or whom everyone is waiting for.

    ``to_move`` is the seat whose decision it is (default ``game.current_player``; a session may
    know better, e.g. the automaton); ``build`` says the custom build stage (R2.5) is on."""
    names = names or default_names(game, lang)
    mover = game.current_player if to_move is None else to_move
    if game.is_over() or mover < 0:
        return phrase(lang, "prompt.over")
    if seat is None or seat != mover:
        who = names[mover] if mover in (0, 1) else "?"
        return phrase(lang, "prompt.thinking" if thinking else "prompt.waiting", name=who)
    pending = game.pending
    if pending is not None:
        return phrase(lang, "prompt.order")
    if game.phase == "setup":
        if build or game.decision_kind is DecisionKind.BUILD:
            return phrase(lang, "prompt.build")
        legal = game.legal_action_texts()
        verb = legal[0].split()[0] if legal else ""
        if verb in ("pick", "deck", "ban"):
            return phrase(lang, f"prompt.{verb}", name=names[1 - seat])
        return phrase(lang, "prompt.setup")
    mana = game.mana
    if game.phase == "summon":
        return phrase(lang, "prompt.summon", mana=mana)
    casts = any(a.startswith("cast ") for a in game.legal_action_texts())
    if game.is_legal(game.parse_action("next")):
        key = "prompt.combat_cast" if casts else "prompt.combat"
    else:
        key = "prompt.combat_done_cast" if casts else "prompt.combat_done"
    return phrase(lang, key, mana=mana, name=names[1 - seat])


__all__ = [
    "cast_target",
    "default_names",
    "describe_action",
    "describe_actions",
    "describe_sequence",
    "next_attack",
    "prompt_line",
]
