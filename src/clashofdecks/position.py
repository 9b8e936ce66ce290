"""Positions: the JSON format of ``docs/formats.md`` (``engine.md``), views (R9) and determinization.

:func:`load_position` validates structure and the hard rules and names the first problem in an
:class:`InvalidPositionError`; :func:`dump_position` gives the canonical form (round trip exact).
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

from .cards import BASTION, CARD_IDS, CARD_INDEX, FORT, HEALTH, IS_INCANTATION, N_CARDS
from .errors import InvalidPositionError
from .options import Ruleset, Threat
from .rules import COMBAT, DRAW, OVER, SUMMON, Creature, Game, seed_rng

CREATURE_FIELDS: Final = ("damage", "new", "protected", "activated", "sprint_bonus")
_DEFAULTS: Final[dict[str, Any]] = {
    "damage": 0,
    "new": False,
    "protected": False,
    "activated": False,
    "sprint_bonus": 0,
}
TOP_KEYS: Final = (
    "mode",
    "ruleset",
    "threat",
    "turn",
    "active",
    "phase",
    "mana",
    "winner",
    "players",
    "pending",
)
HIDDEN: Final = "?"


# ---------------------------------------------------------------------------- dump


def _creature_json(cr: Creature, expanded: bool) -> Any:
    fields = {
        "damage": cr[1],
        "new": cr[2],
        "protected": cr[3],
        "activated": cr[4],
        "sprint_bonus": cr[5],
    }
    if expanded:
        return {"card": CARD_IDS[cr[0]], **fields}
    extra = {k: v for k, v in fields.items() if v != _DEFAULTS[k]}
    if not extra:
        return CARD_IDS[cr[0]]
    return {"card": CARD_IDS[cr[0]], **extra}


def dump_position(game: Game, *, expanded: bool = False) -> dict[str, Any]:
    """The game's position as a JSON-ready dict (canonical; ``expanded`` writes every creature field)."""
    if game._stage not in (SUMMON, COMBAT, OVER):
        raise InvalidPositionError("positions cover the play phases; this game is still in its setup stage")
    out: dict[str, Any] = {"mode": "solo" if game._solo else "duel", "ruleset": game._ruleset.to_dict()}
    if game._solo:
        out["threat"] = game._threat.to_dict()
    winner: Any = game._winner
    if winner == DRAW:
        winner = "draw"
    phase = "combat" if game._stage == COMBAT else "summon"
    if game._stage == OVER:
        phase = "combat" if game._over_phase == COMBAT else "summon"
    out.update(
        {"turn": game._turn, "active": game._active, "phase": phase, "mana": game._mana, "winner": winner}
    )
    players: list[dict[str, Any]] = []
    for p in (0, 1):
        lanes = {
            "top": [_creature_json(cr, expanded) for cr in game._lanes[p * 2]],
            "bottom": [_creature_json(cr, expanded) for cr in game._lanes[p * 2 + 1]],
        }
        if game._solo and p == 1:
            players.append(
                {
                    "automaton": True,
                    "deck": [CARD_IDS[c] for c in game._deck],
                    "discard": [CARD_IDS[c] for c in game._discard],
                    "lanes": lanes,
                }
            )
        else:
            players.append({"hand": [CARD_IDS[c] for c in game._hands[p]], "lanes": lanes})
    out["players"] = players
    if game._pending is not None:
        who, cards = game._pending
        pending: dict[str, Any] = {"player": who, "decision": "order", "cards": [CARD_IDS[c] for c in cards]}
        if game._cast_cont is not None:
            # The incantation being resolved is in no hand or lane until the order is chosen (R5.4a).
            caster, inc = game._cast_cont
            pending["resolving"] = {"player": caster, "card": CARD_IDS[inc]}
        out["pending"] = pending
    return out


def dump_position_text(game: Game, *, indent: int | None = None) -> str:
    return json.dumps(dump_position(game), indent=indent, ensure_ascii=False)


# ---------------------------------------------------------------------------- load


def _fail(where: str, msg: str) -> InvalidPositionError:
    return InvalidPositionError(f"{where}: {msg}" if where else msg)


def _int(value: Any, where: str, lo: int, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(where, f"must be an integer, not {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise _fail(where, f"{value} is out of range ({lo}-{hi if hi is not None else '…'})")
    return value


def _card(value: Any, where: str, *, fortress: bool = False) -> int:
    if not isinstance(value, str):
        raise _fail(where, f"a card id must be a string, not {value!r}")
    idx = CARD_INDEX.get(value)
    if idx is None:
        raise _fail(where, f"unknown card id {value!r}")
    if idx >= N_CARDS and not fortress:
        raise _fail(where, f"{value} cannot be here")
    return idx


def _creature(value: Any, where: str) -> Creature:
    if isinstance(value, str):
        data: dict[str, Any] = {"card": value}
    elif isinstance(value, dict):
        data = value
    else:
        raise _fail(where, f"a creature is a card id or an object, not {value!r}")
    unknown = sorted(set(data) - {"card", *CREATURE_FIELDS})
    if unknown:
        raise _fail(where, f"unknown creature field {unknown[0]!r}")
    if "card" not in data:
        raise _fail(where, "a creature object needs 'card'")
    c = _card(data["card"], where)
    if IS_INCANTATION[c]:
        raise _fail(where, f"{CARD_IDS[c]} is an incantation, not a creature")
    damage = _int(data.get("damage", 0), f"{where}.damage", 0)
    if damage >= HEALTH[c]:
        raise _fail(
            where, f"{CARD_IDS[c]} has {damage} damage but only {HEALTH[c]} health (it would be destroyed)"
        )
    flags = []
    for key in ("new", "protected", "activated"):
        v = data.get(key, False)
        if not isinstance(v, bool):
            raise _fail(f"{where}.{key}", f"must be true or false, not {v!r}")
        flags.append(v)
    sprint = _int(data.get("sprint_bonus", 0), f"{where}.sprint_bonus", 0)
    return (c, damage, flags[0], flags[1], flags[2], sprint)


def _lanes(value: Any, where: str) -> tuple[list[Creature], list[Creature]]:
    if not isinstance(value, dict):
        raise _fail(where, "lanes must be an object with 'top' and 'bottom'")
    unknown = sorted(set(value) - {"top", "bottom"})
    if unknown:
        raise _fail(where, f"unknown lane {unknown[0]!r} (lanes are 'top' and 'bottom')")
    out: list[list[Creature]] = []
    for name in ("top", "bottom"):
        items = value.get(name, [])
        if not isinstance(items, list):
            raise _fail(f"{where}.{name}", "must be a list")
        out.append([_creature(v, f"{where}.{name}[{i}]") for i, v in enumerate(items)])
    return out[0], out[1]


def load_position(data: Any, *, record_events: bool = True) -> Game:
    """Build a :class:`Game` from a position (a dict, or JSON text).

    Checks structure and the hard rules (one fortress card per hand, a card at most once per player
    and once in all in solo, damage below health, known ids and keys); nothing about reachability.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InvalidPositionError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidPositionError("a position must be a JSON object")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise InvalidPositionError(f"unknown key {unknown[0]!r} in position")
    for key in ("players", "active", "phase", "mana"):
        if key not in data:
            raise InvalidPositionError(f"missing required key {key!r}")
    mode = data.get("mode", "duel")
    if mode not in ("duel", "solo"):
        raise InvalidPositionError(f"mode must be 'duel' or 'solo', not {mode!r}")
    solo = mode == "solo"
    ruleset = Ruleset.from_dict(data.get("ruleset", {}))
    if "threat" in data and not solo:
        raise InvalidPositionError("'threat' applies only to solo positions")
    threat = Threat.from_dict(data.get("threat", {})) if solo else Threat()
    game = Game(solo=solo, ruleset=ruleset, threat=threat, record_events=record_events)
    game.meta.update({"mode": mode, "format": "position", "start_position": data})
    game._turn = _int(data.get("turn", 1), "turn", 1)
    game._active = _int(data["active"], "active", 0, 1)
    phase = data["phase"]
    if phase not in ("summon", "combat"):
        raise InvalidPositionError(f"phase must be 'summon' or 'combat', not {phase!r}")
    game._mana = _int(data["mana"], "mana", 0)
    winner = data.get("winner")
    if not (winner is None or winner == "draw" or (type(winner) is int and winner in (0, 1))):
        raise InvalidPositionError(f"winner must be null, 0, 1 or 'draw', not {winner!r}")
    if "pending" in data:
        raise InvalidPositionError(
            "positions with a pending decision cannot be loaded: replay the game record instead"
        )
    players = data["players"]
    if not isinstance(players, list) or len(players) != 2:
        raise InvalidPositionError("players must be a list of two players")
    seen_all: set[int] = set()
    for p, pl in enumerate(players):
        where = f"players[{p}]"
        if not isinstance(pl, dict):
            raise _fail(where, "must be an object")
        is_auto = pl.get("automaton", False)
        if is_auto is not True and is_auto is not False:
            raise _fail(where, "automaton must be true or false")
        if is_auto != (solo and p == 1):
            raise _fail(where, "in solo, players[1] is the automaton (and only in solo)")
        allowed = {"automaton", "deck", "discard", "lanes"} if is_auto else {"hand", "lanes"}
        extra = sorted(set(pl) - allowed)
        if extra:
            raise _fail(where, f"unknown key {extra[0]!r}")
        top, bottom = _lanes(pl.get("lanes", {}), f"{where}.lanes")
        game._lanes[p * 2] = top
        game._lanes[p * 2 + 1] = bottom
        owned = [cr[0] for cr in top] + [cr[0] for cr in bottom]
        if is_auto:
            for key in ("deck", "discard"):
                if not isinstance(pl.get(key, []), list):
                    raise _fail(f"{where}.{key}", "must be a list")
            if "deck" not in pl:
                raise _fail(where, "the automaton needs a 'deck' (top card first, its fortress card last)")
            deck = [_card(v, f"{where}.deck[{i}]", fortress=True) for i, v in enumerate(pl["deck"])]
            if not deck or deck[-1] < N_CARDS or any(c >= N_CARDS for c in deck[:-1]):
                raise _fail(
                    f"{where}.deck", "must end with its fortress card (BASTION or FORT) and hold it once"
                )
            if deck == [BASTION] and winner is None:
                raise _fail(
                    f"{where}.deck",
                    "empty above its Bastion: the Bastion would already have flipped to Fort (R7.7, R7.8a)",
                )
            game._fort[p] = deck[-1] == FORT
            game._deck = deck
            game._discard = [_card(v, f"{where}.discard[{i}]") for i, v in enumerate(pl.get("discard", []))]
            owned += deck[:-1] + game._discard
        else:
            hand_raw = pl.get("hand")
            if not isinstance(hand_raw, list):
                raise _fail(f"{where}.hand", "must be a list of card ids")
            hand = [_card(v, f"{where}.hand[{i}]", fortress=True) for i, v in enumerate(hand_raw)]
            forts = [c for c in hand if c >= N_CARDS]
            if len(forts) != 1:
                raise _fail(f"{where}.hand", f"must hold exactly one BASTION or FORT, found {len(forts)}")
            game._fort[p] = forts[0] == FORT
            if hand[-1] >= N_CARDS and winner is None:
                raise _fail(
                    f"{where}.hand",
                    "the fortress card cannot be rightmost in a game that goes on (R4.2, R4.3)",
                )
            game._hands[p] = hand
            owned += [c for c in hand if c < N_CARDS]
        dupes = {CARD_IDS[c] for c in owned if owned.count(c) > 1}
        if dupes:
            raise _fail(where, f"card {sorted(dupes)[0]} appears more than once")
        if solo:
            both = seen_all & set(owned)
            if both:
                raise _fail(where, f"in solo every card exists once: {CARD_IDS[min(both)]} is on both sides")
            seen_all |= set(owned)
    if solo and not game._deck:
        raise InvalidPositionError("solo position without an automaton deck")
    if winner is not None:
        game._winner = DRAW if winner == "draw" else winner
        game._winner_reason = "loaded as finished"
        game._stage = OVER
        game._over_phase = SUMMON if phase == "summon" else COMBAT
    else:
        game._stage = SUMMON if phase == "summon" else COMBAT
        if solo and game._active == 1:
            # The automaton's turn is a rule, not a decision: it resolves as soon as it starts.
            game._last_turn = game._fort[1] and len(game._deck) <= 1
            game._auto = (0, 0) if phase == "summon" else None
            game._automaton_continue()
            game._events.clear()
    return game


# ---------------------------------------------------------------------------- views (R9)


def view(game: Game, player: int | None) -> dict[str, Any]:
    """What ``player`` may know (R9): the position with every hidden card shown as ``"?"``;
    ``player=None`` is a spectator's view (both hands hidden as the opponent's would be).

    Hidden: the opponent's hand cards whose place is not public (the fortress card and cards that
    returned to the hand rightmost stay visible), and the automaton deck but its fortress card.
    The player object with hidden places also lists ``hidden_cards``: the cards behind the ``"?"``,
    sorted (their identities are public in every format, R9.1; their places are not, R9.2).
    Output only: a view is not loadable as a position.
    """
    pos = dump_position(game)
    if game._solo:
        if player != 1:
            deck = pos["players"][1]["deck"]
            pos["players"][1]["deck"] = [HIDDEN] * (len(deck) - 1) + [deck[-1]]
            pos["players"][1]["hidden_cards"] = sorted(deck[:-1])
        if player is None:
            _hide_hand(game, pos, 0)
        return pos
    for opp in (0, 1):
        if opp != player:
            _hide_hand(game, pos, opp)
    return pos


def _hide_hand(game: Game, pos: dict[str, Any], opp: int) -> None:
    known = game._known[opp]
    hand = game._hands[opp]
    pos["players"][opp]["hand"] = [CARD_IDS[c] if c >= N_CARDS or known >> c & 1 else HIDDEN for c in hand]
    # Whose identities are public (drafted, a chosen deck, a revealed custom deck: R9.1), only not
    # their places: the cards behind the "?", sorted.
    pos["players"][opp]["hidden_cards"] = sorted(
        CARD_IDS[c] for c in hand if c < N_CARDS and not known >> c & 1
    )


def sample_determinization(game: Game, player: int, rng: random.Random) -> Game:
    """A full game consistent with ``player``'s view: hidden places are refilled at random.

    In every format of the rulebook the identities of each player's cards are public (drafted,
    a chosen preconstructed deck, a revealed custom deck): what is hidden is their order in the
    hand and the automaton deck's order.  The sample keeps every visible card where it is and
    shuffles the hidden ones among the hidden places.  The copy shares no state with ``game``.
    """
    g = game.clone()
    g._rng = seed_rng(rng.getrandbits(64))  # future chance (shuffles, reshuffles) is unknown too
    opp = 1 - player
    if g._setup is not None:
        _sample_setup(g, player, rng)
        return g
    if g._solo:
        if player == 0 and len(g._deck) > 1:
            body = sorted(g._deck[:-1])  # sorted first: the sample depends only on the view and rng
            rng.shuffle(body)
            g._deck = [*body, g._deck[-1]]
        return g
    hand = g._hands[opp]
    known = g._known[opp]
    slots = [i for i, c in enumerate(hand) if c < N_CARDS and not known >> c & 1]
    cards = sorted(hand[i] for i in slots)  # sorted first: the sample depends only on the view and rng
    rng.shuffle(cards)
    for i, c in zip(slots, cards, strict=True):
        hand[i] = c
    g._legal = None
    return g


def _sample_setup(g: Game, player: int, rng: random.Random) -> None:
    """Setup stage: the face-down draft pile's order, and an opponent's custom deck that is built but
    not yet revealed (R2.5), are unknown."""
    from dataclasses import replace

    from .formats import SetupState

    st = g._setup
    assert isinstance(st, SetupState)
    pool = sorted(st.pool)  # sorted first: the sample depends only on what is public and rng
    rng.shuffle(pool)
    cards = list(st.cards)
    opp = 1 - player
    if st.kind == "custom" and st.built[opp] and not all(st.built):
        cards[opp] = tuple(sorted(rng.sample(range(N_CARDS), len(cards[opp]))))
    g._setup = replace(st, pool=tuple(pool), cards=(cards[0], cards[1]))
    g._legal = None


__all__ = [
    "BASTION",
    "FORT",
    "HIDDEN",
    "dump_position",
    "dump_position_text",
    "load_position",
    "sample_determinization",
    "view",
]
