"""Positions: the JSON format of ``docs/formats.md`` (``engine.md``), views (R9) and determinization.

:func:`load_position` validates structure and the hard rules and names the first problem in an
:class:`InvalidPositionError`; :func:`dump_position` gives the canonical form (round trip exact).
"""

from __future__ import annotations

import json
import random
from typing import Any, Final, NamedTuple

from .cards import BASTION, CARD_IDS, CARD_INDEX, FORT, HEALTH, IS_INCANTATION, N_CARDS
from .errors import InvalidPositionError
from .options import Ruleset, Threat
from .rules import (
    COMBAT,
    DRAW,
    OVER,
    SETUP,
    SUMMON,
    Creature,
    Game,
    GameOrigin,
    GameState,
    Termination,
    termination_reason,
)
from .setup import CHANCE_STEPS, DECISIONS, FORMATS, VERBS, SetupState

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
    "termination",
    "players",
    "pending",
    "chance",
    "hidden_identities",
    "setup",
)
HIDDEN: Final = "?"
_PHASES: Final = {SETUP: "setup", SUMMON: "summon", COMBAT: "combat"}
_MASK32: Final = (1 << 32) - 1


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


def _ids(cards: Any) -> list[str]:
    return [CARD_IDS[c] for c in cards]


def _setup_json(st: SetupState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "format": st.kind,
        "steps": [[verb, seat] for verb, seat in st.steps],
        "pool": _ids(st.pool),
        "revealed": _ids(st.revealed),
        "cards": [_ids(st.cards[0]), _ids(st.cards[1])],
        "built": list(st.built),
        "decks": list(st.decks),
    }
    if st.external:
        out["external_chance"] = True
    if st.placed is not None:
        out["placed"] = [_ids(st.placed[0]), _ids(st.placed[1])]
    return out


def dump_position(game: Game, *, expanded: bool = False) -> dict[str, Any]:
    """The game's position as a JSON-ready dict (canonical; ``expanded`` writes every creature field).

    Complete: loading it and playing on gives exactly the game that would have followed (chance,
    public hand places, a pending decision with what it interrupted, the setup stage).

    >>> from clashofdecks import Game
    >>> pos = dump_position(Game.random_duel(seed=1))
    >>> pos["phase"], pos["mana"], pos["chance"]
    ('summon', 6, {'seed': 1, 'draws': 1})
    """
    st = game.state()
    out: dict[str, Any] = {"mode": "solo" if st.solo else "duel", "ruleset": st.ruleset.to_dict()}
    if st.solo:
        out["threat"] = st.threat.to_dict()
    winner: Any = st.winner
    if winner == DRAW:
        winner = "draw"
    phase = _PHASES[st.over_phase if st.stage == OVER else st.stage]
    out.update({"turn": st.turn, "active": st.active, "phase": phase, "mana": st.mana, "winner": winner})
    if st.stage == OVER and st.termination is not _default_termination(winner, st.solo):
        out["termination"] = st.termination.value
    players: list[dict[str, Any]] = []
    for p in (0, 1):
        lanes = {
            "top": [_creature_json(cr, expanded) for cr in st.lanes[p * 2]],
            "bottom": [_creature_json(cr, expanded) for cr in st.lanes[p * 2 + 1]],
        }
        if st.solo and p == 1:
            auto: dict[str, Any] = {"automaton": True, "deck": _ids(st.deck), "discard": _ids(st.discard)}
            if st.last_turn:
                auto["last_turn"] = True
            auto["lanes"] = lanes
            players.append(auto)
        else:
            hand = st.hands[p]
            player: dict[str, Any] = {"hand": _ids(hand), "lanes": lanes}
            public = [CARD_IDS[c] for c in hand if c < N_CARDS and st.known[p] >> c & 1]
            if public:
                player["public"] = public
            players.append(player)
    out["players"] = players
    if st.pending is not None:
        who, cards = st.pending
        pending: dict[str, Any] = {"player": who, "decision": "order", "cards": _ids(cards)}
        if st.resolving is not None:
            # The incantation being resolved is in no hand or lane until the order is chosen (R5.4a).
            caster, inc = st.resolving
            pending["resolving"] = {"player": caster, "card": CARD_IDS[inc]}
        if st.attacker is not None:
            pending["attacker"] = {"player": st.attacker[0], "card": CARD_IDS[st.attacker[1]]}
        if st.ending:
            pending["ending"] = True
        if st.automaton is not None:
            spent, slot, shown = st.automaton
            pending["automaton"] = {"spent": spent, "slot": slot, "revealed": shown}
        out["pending"] = pending
    if st.rng:
        out["chance"] = {"seed": st.rng >> 32, "draws": st.rng & _MASK32}
    if st.hidden_identities:
        out["hidden_identities"] = True
    if st.setup is not None:
        out["setup"] = _setup_json(st.setup)
    return out


def dump_position_text(game: Game, *, indent: int | None = None) -> str:
    """The position as JSON text (see :func:`dump_position`)."""
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


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"must be true or false, not {value!r}")
    return value


def _obj(value: Any, where: str, allowed: set[str], required: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "must be an object")
    extra = sorted(set(value) - allowed)
    if extra:
        raise _fail(where, f"unknown key {extra[0]!r}")
    for key in required:
        if key not in value:
            raise _fail(where, f"missing required key {key!r}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, "must be a list")
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


def _cards(value: Any, where: str) -> tuple[int, ...]:
    return tuple(_card(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where)))


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
    flags = [_bool(data.get(key, False), f"{where}.{key}") for key in ("new", "protected", "activated")]
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


def _card_of(value: Any, where: str, player_max: int = 1) -> tuple[int, int]:
    data = _obj(value, where, {"player", "card"}, ("player", "card"))
    return _int(data["player"], f"{where}.player", 0, player_max), _card(data["card"], f"{where}.card")


def _setup(value: Any, solo: bool) -> SetupState:
    where = "setup"
    keys = {"format", "steps", "pool", "revealed", "cards", "built", "decks", "external_chance", "placed"}
    data = _obj(value, where, keys, ("format", "steps"))
    kind = data["format"]
    if kind not in FORMATS or (solo and kind == "custom"):
        raise _fail(f"{where}.format", f"unknown or not allowed here: {kind!r}")
    steps: list[tuple[str, int]] = []
    for i, step in enumerate(_list(data["steps"], f"{where}.steps")):
        if not (isinstance(step, list) and len(step) == 2 and step[0] in VERBS):
            raise _fail(f"{where}.steps[{i}]", f"a step is [verb, seat] with a verb of {', '.join(VERBS)}")
        steps.append((step[0], _int(step[1], f"{where}.steps[{i}][1]", 0, 1)))
    external = _bool(data.get("external_chance", False), f"{where}.external_chance")
    if not steps or steps[0][0] not in (DECISIONS + CHANCE_STEPS if external else DECISIONS):
        raise _fail(
            f"{where}.steps", "the next step must be a decision (deck, pick, build or ban) or chance's"
        )
    if not external and any(verb in CHANCE_STEPS for verb, _ in steps):
        raise _fail(f"{where}.steps", "chance steps need 'external_chance': true")
    placed: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    if "placed" in data:
        raw = _list(data["placed"], f"{where}.placed")
        if len(raw) != 2 or not external:
            raise _fail(f"{where}.placed", "two lists, and only with external chance")
        placed = (_cards(raw[0], f"{where}.placed[0]"), _cards(raw[1], f"{where}.placed[1]"))
    cards_raw = _list(data.get("cards", [[], []]), f"{where}.cards")
    if len(cards_raw) != 2:
        raise _fail(f"{where}.cards", "must hold two lists (one per seat)")
    built = _list(data.get("built", [False, False]), f"{where}.built")
    if len(built) != 2:
        raise _fail(f"{where}.built", "must hold two booleans")
    decks = tuple(_int(d, f"{where}.decks", 1, 4) for d in _list(data.get("decks", []), f"{where}.decks"))
    st = SetupState(
        kind,
        tuple(steps),
        pool=_cards(data.get("pool", []), f"{where}.pool"),
        revealed=_cards(data.get("revealed", []), f"{where}.revealed"),
        cards=(_cards(cards_raw[0], f"{where}.cards[0]"), _cards(cards_raw[1], f"{where}.cards[1]")),
        built=(_bool(built[0], f"{where}.built[0]"), _bool(built[1], f"{where}.built[1]")),
        decks=decks,
        external=external,
        placed=placed,
    )
    taken = (
        [*st.pool, *st.revealed, *st.cards[0], *st.cards[1]] if kind == "draft" else [*st.pool, *st.revealed]
    )
    if len(taken) != len(set(taken)):
        raise _fail(where, "a card is in more than one of pool, revealed and the seats' cards")
    first = steps[0]
    if solo and first[1] == 1 and first[0] in DECISIONS:
        raise _fail(f"{where}.steps", "the automaton makes no choices (R7.5a)")
    if len(st.pool) < 4 * sum(v == "reveal" for v, _ in steps):
        raise _fail(f"{where}.pool", "too few face-down cards for the reveals to come")
    if first[0] == "ban" and not st.cards[1 - first[1]]:
        raise _fail(f"{where}.cards", "a removal needs a card in the opponent's deck (R2.5)")
    if sum(v == "deck" for v, _ in steps) > 4 - len(set(decks)):
        raise _fail(f"{where}.steps", "more deck choices than preconstructed decks left (R2.3)")
    if steps[0][0] == "pick" and not st.revealed:
        raise _fail(f"{where}.revealed", "a pick needs face-up cards")
    return st


class _Header(NamedTuple):
    """A position's top-level fields, checked (everything but the players and a pending decision)."""

    mode: str
    solo: bool
    ruleset: Ruleset
    threat: Threat
    turn: int
    active: int
    phase: str
    mana: int
    winner: Any
    rng: int
    hidden_ids: bool


class _Sides(NamedTuple):
    """The players' cards, checked: hands, lanes (``player*2 + lane``), public cards, the automaton's."""

    hands: list[tuple[int, ...]]
    lanes: list[tuple[Creature, ...]]
    known: list[int]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    last_turn: bool | None


def load_position(data: Any, *, record_events: bool = True) -> Game:
    """Build a :class:`Game` from a position (a dict, or JSON text).

    Checks structure and the hard rules (one fortress card per hand, a card at most once per player
    and once in all in solo, damage below health, known ids and keys); nothing about reachability.
    A position whose automaton is to act resolves the automaton's turn at once (R7: it is a rule).
    """
    data = _position_object(data)
    head = _header(data)
    sides = _sides(data, head)
    solo, winner, in_setup = head.solo, head.winner, head.phase == "setup"
    deck = sides.deck
    if solo and not deck and not in_setup:
        raise InvalidPositionError("solo position without an automaton deck")
    state_kw: dict[str, Any] = {}
    if "pending" in data:
        state_kw = _pending(
            data["pending"], solo, winner, in_setup, sides.hands, deck, sides.lanes, head.active
        )
    termination = _termination(data, winner, solo)
    last_turn = sides.last_turn
    if last_turn is None:
        # R7.8a: the last turn is the automaton's first turn that begins with its deck empty above its Fort.
        fort1 = bool(deck) and deck[-1] == FORT
        last_turn = solo and head.active == 1 and fort1 and len(deck) <= 1 and head.phase == "summon"
    stage = SETUP if in_setup else SUMMON if head.phase == "summon" else COMBAT
    state = GameState(
        solo=solo,
        ruleset=head.ruleset,
        threat=head.threat,
        stage=OVER if winner is not None else stage,
        turn=head.turn,
        active=head.active,
        mana=head.mana,
        winner=None if winner is None else DRAW if winner == "draw" else winner,
        reason=termination_reason(termination, winner if winner in (0, 1) else None, head.ruleset.max_turns)
        if winner is not None
        else "",
        termination=termination,
        over_phase=stage,
        hands=(sides.hands[0], sides.hands[1]),
        lanes=tuple(sides.lanes),
        known=(sides.known[0], sides.known[1]),
        deck=deck,
        discard=sides.discard,
        last_turn=last_turn,
        rng=head.rng,
        setup=_setup(data["setup"], solo) if in_setup else None,
        hidden_identities=head.hidden_ids,
        **state_kw,
    )
    game = Game(state, record_events=record_events)
    game.origin = GameOrigin(mode=head.mode, format="position", start_position=data)
    game.resume()
    return game


def _position_object(data: Any) -> dict[str, Any]:
    """The position as a dict with only known keys and every required one (``data``: a dict or JSON)."""
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
    return data


def _header(data: dict[str, Any]) -> _Header:
    mode = data.get("mode", "duel")
    if mode not in ("duel", "solo"):
        raise InvalidPositionError(f"mode must be 'duel' or 'solo', not {mode!r}")
    solo = mode == "solo"
    ruleset = Ruleset.from_dict(data.get("ruleset", {}))
    if "threat" in data and not solo:
        raise InvalidPositionError("'threat' applies only to solo positions")
    threat = Threat.from_dict(data.get("threat", {})) if solo else Threat()
    turn = _int(data.get("turn", 1), "turn", 1)
    active = _int(data["active"], "active", 0, 1)
    phase = data["phase"]
    if phase not in ("summon", "combat", "setup"):
        raise InvalidPositionError(f"phase must be 'setup', 'summon' or 'combat', not {phase!r}")
    in_setup = phase == "setup"
    mana = _int(data["mana"], "mana", 0)
    winner = data.get("winner")
    if not (winner is None or winner == "draw" or (type(winner) is int and winner in (0, 1))):
        raise InvalidPositionError(f"winner must be null, 0, 1 or 'draw', not {winner!r}")
    if in_setup != ("setup" in data):
        raise InvalidPositionError("a position in phase 'setup' has a 'setup' object, and only then")
    if in_setup and winner is not None:
        raise InvalidPositionError("a game in its setup stage has no winner")
    rng = 0
    if "chance" in data:
        chance = _obj(data["chance"], "chance", {"seed", "draws"}, ("seed", "draws"))
        rng = _int(chance["seed"], "chance.seed", 0, (1 << 64) - 1) << 32
        rng |= _int(chance["draws"], "chance.draws", 0, _MASK32)
    hidden_ids = _bool(data.get("hidden_identities", False), "hidden_identities")
    return _Header(mode, solo, ruleset, threat, turn, active, phase, mana, winner, rng, hidden_ids)


def _sides(data: dict[str, Any], head: _Header) -> _Sides:
    """Both players checked, in order, each card at most once per player (and once in all in solo)."""
    players = data["players"]
    if not isinstance(players, list) or len(players) != 2:
        raise InvalidPositionError("players must be a list of two players")
    sides = _Sides([(), ()], [(), (), (), ()], [0, 0], (), (), None)
    in_setup = head.phase == "setup"
    seen_all: set[int] = set()
    for p, pl in enumerate(players):
        where = f"players[{p}]"
        if not isinstance(pl, dict):
            raise _fail(where, "must be an object")
        is_auto = pl.get("automaton", False)
        if is_auto is not True and is_auto is not False:
            raise _fail(where, "automaton must be true or false")
        if is_auto != (head.solo and p == 1):
            raise _fail(where, "in solo, players[1] is the automaton (and only in solo)")
        allowed = (
            {"automaton", "deck", "discard", "lanes", "last_turn"} if is_auto else {"hand", "lanes", "public"}
        )
        extra = sorted(set(pl) - allowed)
        if extra:
            raise _fail(where, f"unknown key {extra[0]!r}")
        top, bottom = _lanes(pl.get("lanes", {}), f"{where}.lanes")
        sides.lanes[p * 2], sides.lanes[p * 2 + 1] = tuple(top), tuple(bottom)
        owned = [cr[0] for cr in top] + [cr[0] for cr in bottom]
        if in_setup and owned:
            raise _fail(f"{where}.lanes", "no creature is in play during the setup stage")
        if is_auto:
            sides, auto_owned = _automaton_side(pl, where, head, sides)
            if in_setup:
                continue
            owned += auto_owned
        else:
            owned += _hand_side(data, pl, p, head, sides)
        dupes = {CARD_IDS[c] for c in owned if owned.count(c) > 1}
        if dupes:
            raise _fail(where, f"card {sorted(dupes)[0]} appears more than once")
        if head.solo:
            both = seen_all & set(owned)
            if both:
                raise _fail(where, f"in solo every card exists once: {CARD_IDS[min(both)]} is on both sides")
            seen_all |= set(owned)
    return sides


def _automaton_side(pl: dict[str, Any], where: str, head: _Header, sides: _Sides) -> tuple[_Sides, list[int]]:
    """The automaton's deck, discard and last-turn flag checked into ``sides``; the cards it owns."""
    for key in ("deck", "discard"):
        if not isinstance(pl.get(key, []), list):
            raise _fail(f"{where}.{key}", "must be a list")
    if "last_turn" in pl:
        sides = sides._replace(last_turn=_bool(pl["last_turn"], f"{where}.last_turn"))
    if head.phase == "setup":
        if pl.get("deck") or pl.get("discard"):
            raise _fail(where, "the automaton has no deck during the setup stage")
        return sides, []
    if "deck" not in pl:
        raise _fail(where, "the automaton needs a 'deck' (top card first, its fortress card last)")
    deck = tuple(_card(v, f"{where}.deck[{i}]", fortress=True) for i, v in enumerate(pl["deck"]))
    if not deck or deck[-1] < N_CARDS or any(c >= N_CARDS for c in deck[:-1]):
        raise _fail(f"{where}.deck", "must end with its fortress card (BASTION or FORT) and hold it once")
    if deck == (BASTION,) and head.winner is None:
        raise _fail(
            f"{where}.deck",
            "empty above its Bastion: the Bastion would already have flipped to Fort (R7.7, R7.8a)",
        )
    discard = _cards(pl.get("discard", []), f"{where}.discard")
    return sides._replace(deck=deck, discard=discard), list(deck[:-1]) + list(discard)


def _hand_side(data: dict[str, Any], pl: dict[str, Any], p: int, head: _Header, sides: _Sides) -> list[int]:
    """Player ``p``'s hand and public cards checked into ``sides``; the hand's cards (no fortress)."""
    where = f"players[{p}]"
    hand_raw = pl.get("hand")
    if not isinstance(hand_raw, list):
        raise _fail(f"{where}.hand", "must be a list of card ids")
    hand = tuple(_card(v, f"{where}.hand[{i}]", fortress=True) for i, v in enumerate(hand_raw))
    if head.phase == "setup":
        if hand:
            raise _fail(f"{where}.hand", "hands are dealt when the setup ends (R2.6): empty here")
    else:
        forts = [c for c in hand if c >= N_CARDS]
        if len(forts) != 1:
            raise _fail(f"{where}.hand", f"must hold exactly one BASTION or FORT, found {len(forts)}")
        # While an incantation resolves it is in no hand, and its caster's fortress is checked
        # only once it is back at the right end (R3.4c, R5.4a): the caster's may be rightmost.
        if hand[-1] >= N_CARDS and head.winner is None and p != _resolving_player(data):
            raise _fail(
                f"{where}.hand",
                "the fortress card cannot be rightmost in a game that goes on (R4.2, R4.3), "
                "except in the hand of a player whose incantation is resolving (R3.4c)",
            )
    sides.hands[p] = hand
    for i, cid in enumerate(_list(pl.get("public", []), f"{where}.public")):
        c = _card(cid, f"{where}.public[{i}]")
        if c not in hand:
            raise _fail(f"{where}.public[{i}]", f"{cid} is not in this hand")
        sides.known[p] |= 1 << c
    return [c for c in hand if c < N_CARDS]


def _termination(data: dict[str, Any], winner: Any, solo: bool) -> Termination:
    """How a finished position ended (``termination``, else the default); refused for a game in play."""
    termination = _default_termination(winner, solo)
    if winner is not None:
        if "termination" in data:
            try:
                termination = Termination(data["termination"])
            except ValueError:
                names = ", ".join(t.value for t in Termination)
                raise _fail("termination", f"unknown termination {data['termination']!r} ({names})") from None
    elif "termination" in data:
        raise InvalidPositionError("'termination' belongs to a finished game (winner not null)")
    return termination


def _default_termination(winner: Any, solo: bool) -> Termination:
    """How a finished position without ``termination`` ended: a draw is the turn cap; a solo player
    who won survived the last turn (R7.8); any other win is a Fort gone rightmost (R4.3)."""
    if winner == "draw":
        return Termination.TURN_CAP
    if solo and winner == 0:
        return Termination.SURVIVED_LAST_TURN
    return Termination.FORT_FALLEN


def _resolving_player(data: dict[str, Any]) -> int | None:
    """The player whose incantation a pending decision interrupted (``pending.resolving.player``), if
    any: read before the pending decision itself is checked (``_pending`` checks it)."""
    pending = data.get("pending")
    resolving = pending.get("resolving") if isinstance(pending, dict) else None
    player = resolving.get("player") if isinstance(resolving, dict) else None
    return player if isinstance(player, int) and not isinstance(player, bool) else None


def _pending(
    value: Any,
    solo: bool,
    winner: Any,
    in_setup: bool,
    hands: list[tuple[int, ...]],
    deck: tuple[int, ...],
    lanes: list[tuple[Creature, ...]],
    active: int,
) -> dict[str, Any]:
    where = "pending"
    keys = {"player", "decision", "cards", "resolving", "attacker", "ending", "automaton"}
    data = _obj(value, where, keys, ("player", "decision", "cards"))
    if winner is not None or in_setup:
        raise _fail(where, "a pending decision belongs to a game in play")
    if data["decision"] != "order":
        raise _fail(
            f"{where}.decision", f"the only pending decision is 'order' (R3.9), not {data['decision']!r}"
        )
    who = _int(data["player"], f"{where}.player", 0, 1)
    if solo and who == 1:
        raise _fail(f"{where}.player", "the automaton makes no choices (R7.5a)")
    cards = _cards(data["cards"], f"{where}.cards")
    if not 2 <= len(cards) <= 3 or len(set(cards)) != len(cards):
        raise _fail(f"{where}.cards", "a return order is chosen for 2 or 3 different destroyed cards (R3.9)")
    in_play = {cr[0] for cr in lanes[who * 2] + lanes[who * 2 + 1]}
    for c in cards:
        if c in hands[who] or c in in_play:
            raise _fail(f"{where}.cards", f"{CARD_IDS[c]} is already in player {who}'s hand or lanes")
    out: dict[str, Any] = {"pending": (who, cards)}
    if "resolving" in data:
        out["resolving"] = _card_of(data["resolving"], f"{where}.resolving")
        caster, inc = out["resolving"]
        if not IS_INCANTATION[inc]:
            raise _fail(f"{where}.resolving", "the card being resolved is an incantation")
        if inc in hands[caster] or (solo and caster == 1 and inc in deck):
            raise _fail(f"{where}.resolving", f"{CARD_IDS[inc]} is resolving: it is in no hand (R5.4a)")
    if "attacker" in data:
        out["attacker"] = attacker = _card_of(data["attacker"], f"{where}.attacker")
        if attacker[0] != active:
            raise _fail(f"{where}.attacker", "the attacker of a Berserk chain belongs to the active player")
        if attacker[1] not in {cr[0] for cr in lanes[attacker[0] * 2] + lanes[attacker[0] * 2 + 1]}:
            raise _fail(
                f"{where}.attacker", f"{CARD_IDS[attacker[1]]} is not in play for player {attacker[0]}"
            )
    out["ending"] = _bool(data.get("ending", False), f"{where}.ending")
    if "automaton" in data:
        if not solo:
            raise _fail(f"{where}.automaton", "only in solo")
        auto = _obj(data["automaton"], f"{where}.automaton", {"spent", "slot", "revealed"}, ("spent", "slot"))
        out["automaton"] = (
            _int(auto["spent"], f"{where}.automaton.spent", 0),
            _int(auto["slot"], f"{where}.automaton.slot", 0),
            _int(auto.get("revealed", 1), f"{where}.automaton.revealed", 0),
        )
    return out


# ---------------------------------------------------------------------------- views (R9)


def view(game: Game, player: int | None, dumped: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``player`` may know (R9): the position with every hidden card shown as ``"?"``;
    ``player=None`` is a spectator's view (both hands hidden as an opponent's would be).

    Hidden: the opponent's hand cards whose place is not public (the fortress card and cards that
    returned to the hand rightmost stay visible, R9.2), the automaton deck but its fortress card,
    the face-down draft pile and a custom deck not yet revealed (R2.5).  A player object with hidden
    places also lists ``hidden_cards``, the cards behind the ``"?"``, sorted, where their identities
    are public (drafted, a chosen deck, a revealed custom deck: R9.1); under the benchmark's random
    deal they are not, and ``hidden_cards`` is absent.  A view never carries the chance state
    (it would tell the draft pile and future shuffles).  Output only: not loadable as a position.

    >>> from clashofdecks import Game
    >>> v = view(Game.random_duel(seed=1), 0)
    >>> v["players"][1]["hand"][:2], "chance" in v, "hidden_cards" in v["players"][1]
    (['BASTION', '?'], False, False)

    ``dumped``: :func:`dump_position` of ``game`` as it is now, made once for several views (the
    web server's frames of one move); it is not changed, and the view shares its unredacted parts.
    """
    if player not in (0, 1, None):
        raise ValueError(f"a view is for player 0, 1 or None (a spectator), not {player!r}")
    pos = dump_position(game) if dumped is None else _redactable_copy(dumped)
    pos.pop("chance", None)
    public_ids = not game.hidden_identities
    if "setup" in pos:
        st = pos["setup"]
        st["pool"] = [HIDDEN] * len(st["pool"])
        setup = game.setup_state
        if setup is not None and setup.kind == "custom" and not all(setup.built):
            for seat in (0, 1):
                if seat != player:
                    st["cards"][seat] = [HIDDEN] * len(st["cards"][seat])
        if "placed" in st:
            for seat in (0, 1):
                if seat != player:
                    st["placed"][seat] = [HIDDEN] * len(st["placed"][seat])
    if game.is_solo:
        auto = pos["players"][1]
        if player != 1 and len(auto.get("deck", [])) > 1:
            deck = auto["deck"]
            auto["deck"] = [HIDDEN] * (len(deck) - 1) + [deck[-1]]
            auto["hidden_cards"] = sorted(deck[:-1])
    for p in (0, 1):
        if p == player or (game.is_solo and p == 1):
            continue
        entry = pos["players"][p]
        hidden = game.is_hidden(p, player)
        hand = entry["hand"]
        if not any(hidden):
            continue
        entry["hand"] = [HIDDEN if h else c for c, h in zip(hand, hidden, strict=True)]
        if public_ids:
            entry["hidden_cards"] = sorted(c for c, h in zip(hand, hidden, strict=True) if h)
    return pos


def _redactable_copy(pos: dict[str, Any]) -> dict[str, Any]:
    """A copy of a dump that :func:`view` may redact: the dicts and lists it replaces items of are
    copied, the rest (lanes, the ruleset) is shared with ``pos``."""
    out = dict(pos)
    out["players"] = [dict(p) for p in pos["players"]]
    if "setup" in pos:
        st = out["setup"] = dict(pos["setup"])
        st["cards"] = list(st["cards"])
        if "placed" in st:
            st["placed"] = list(st["placed"])
    return out


def sample_determinization(game: Game, player: int, rng: random.Random) -> Game:
    """A full game consistent with ``player``'s view, hidden things refilled at random
    (:meth:`Game.sample_determinization`).  The copy shares no state with ``game``."""
    return game.sample_determinization(player, rng)


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
