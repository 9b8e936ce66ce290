"""Positions (engine.md "Positions"): canonical form, defaults, malformed input, and the JSON Schema.

Every malformed position must give an :class:`InvalidPositionError` whose message names the
problem; the schema (``src/clashofdecks/schemas/position.schema.json``) must accept every position
the engine writes and reject the malformed ones it can express.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from importlib import resources
from typing import Any

import jsonschema
import pytest

from clashofdecks import (
    CARDS,
    Game,
    InvalidPositionError,
    Ruleset,
    Threat,
    dump_position,
    load_position,
    view,
)
from clashofdecks.formats import new_game
from clashofdecks.options import THREAT_ABILITIES, THREAT_CHOICES, VARIANT_CHOICES

# The example of engine.md, verbatim.
EXAMPLE: dict[str, Any] = {
    "mode": "duel",
    "ruleset": {"protection": "targeted", "incantation_timing": "summon_and_combat"},
    "turn": 7,
    "active": 0,
    "phase": "combat",
    "mana": 1,
    "winner": None,
    "players": [
        {
            "hand": ["ZOMBIE", "BASTION", "BARON", "BOOM"],
            "lanes": {"top": [{"card": "BRUTE", "damage": 2}, "OGRE"], "bottom": []},
        },
        {"hand": ["FORT", "GNOME", "TROLL"], "lanes": {"top": [], "bottom": ["ALPHA"]}},
    ],
}

DEFAULT_RULESET = {
    "lanes": "shared",
    "first_player": "random",
    "incantation_timing": "summon_and_combat",
    "protection": "targeted",
    "automaton_lanes": "per_creature",
    "max_turns": None,
}
# engine.md: "the defaults of the quick game".
DEFAULT_THREAT = {
    "extra_mana_per_creature": 1,
    "base_mana": 6,
    "starts": "player",
    "resilience": "bastion",
    "defence": "full",
    "abilities": [],
}

SOLO: dict[str, Any] = {
    "mode": "solo",
    "active": 0,
    "phase": "summon",
    "mana": 6,
    "players": [
        {"hand": ["BASTION", "ZOMBIE", "GNOME", "BOOM"], "lanes": {"top": ["OGRE"], "bottom": []}},
        {
            "automaton": True,
            "deck": ["BRUTE", "TROLL", "BASTION"],
            "discard": ["ALPHA"],
            "lanes": {"top": [], "bottom": ["BARON"]},
        },
    ],
}


def schema() -> dict[str, Any]:
    text = (
        resources.files("clashofdecks").joinpath("schemas/position.schema.json").read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


VALIDATOR = jsonschema.Draft202012Validator(schema())


def schema_errors(position: Any) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(position)]


# ----------------------------------------------------------------------------- canonical form


def test_example_of_engine_md_loads_and_dumps_canonically() -> None:
    """The contract's example loads; the dump fills the defaults and keeps everything else."""
    game = load_position(EXAMPLE)
    expected = copy.deepcopy(EXAMPLE)
    expected["ruleset"] = DEFAULT_RULESET
    assert dump_position(game) == expected
    assert (game.turn, game.active, game.phase, game.mana, game.winner) == (7, 0, "combat", 1, None)
    assert game.hand(0) == ["ZOMBIE", "BASTION", "BARON", "BOOM"]
    assert game.fortress(1) == ("FORT", 2, 3)


def test_creature_is_a_bare_id_when_every_field_has_its_default() -> None:
    """Canonical output: a bare id when all per-turn fields are defaults, else only the non-default fields."""
    pos = copy.deepcopy(EXAMPLE)
    pos["players"][0]["lanes"]["top"] = [
        {
            "card": "BRUTE",
            "damage": 0,
            "new": False,
            "protected": False,
            "activated": False,
            "sprint_bonus": 0,
        },
        {"card": "OGRE", "new": True, "damage": 0},
        {"card": "ZOMBIE", "activated": True, "protected": False},
        {"card": "MUTANT", "sprint_bonus": 2, "damage": 3},
        "CARAPACE",
    ]
    pos["players"][0]["hand"] = ["BASTION", "BARON", "BOOM"]
    out = dump_position(load_position(pos))
    assert out["players"][0]["lanes"]["top"] == [
        "BRUTE",
        {"card": "OGRE", "new": True},
        {"card": "ZOMBIE", "activated": True},
        {"card": "MUTANT", "damage": 3, "sprint_bonus": 2},
        "CARAPACE",
    ]


def test_expanded_output_writes_every_creature_field() -> None:
    out = dump_position(load_position(EXAMPLE), expanded=True)
    assert out["players"][0]["lanes"]["top"] == [
        {
            "card": "BRUTE",
            "damage": 2,
            "new": False,
            "protected": False,
            "activated": False,
            "sprint_bonus": 0,
        },
        {
            "card": "OGRE",
            "damage": 0,
            "new": False,
            "protected": False,
            "activated": False,
            "sprint_bonus": 0,
        },
    ]
    # The expanded form loads back to the same game.
    assert dump_position(load_position(out)) == dump_position(load_position(EXAMPLE))


def test_round_trip_is_exact_through_json_text() -> None:
    game = load_position(json.dumps(EXAMPLE))
    text = json.dumps(dump_position(game))
    assert dump_position(load_position(text)) == json.loads(text)


def test_round_trip_of_every_position_of_random_games(
    make_solo_position: Callable[..., dict[str, Any]],
) -> None:
    """dump(load(dump(g))) == dump(g) at every position without a pending decision (duel and solo)."""
    rng = random.Random(5)
    games = [Game.random_duel(s, record_events=False) for s in range(15)]
    games += [load_position(make_solo_position(rng), record_events=False) for _ in range(15)]
    checked = 0
    for game in games:
        while True:
            if game.pending is None:
                pos = dump_position(game)
                assert dump_position(load_position(pos)) == pos
                checked += 1
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 500


# ----------------------------------------------------------------------------- defaults


def test_missing_keys_take_their_defaults() -> None:
    """Required: players, active, phase, mana; mode duel, turn 1, winner null, default ruleset."""
    minimal = {
        "active": 1,
        "phase": "summon",
        "mana": 4,
        "players": [{"hand": ["BASTION", "ZOMBIE"]}, {"hand": ["GNOME", "BASTION", "BOOM"]}],
    }
    out = dump_position(load_position(minimal))
    assert out == {
        "mode": "duel",
        "ruleset": DEFAULT_RULESET,
        "turn": 1,
        "active": 1,
        "phase": "summon",
        "mana": 4,
        "winner": None,
        "players": [
            {"hand": ["BASTION", "ZOMBIE"], "lanes": {"top": [], "bottom": []}},
            {"hand": ["GNOME", "BASTION", "BOOM"], "lanes": {"top": [], "bottom": []}},
        ],
    }
    assert "threat" not in out  # threat options belong to solo positions only


def test_solo_defaults_are_the_quick_game() -> None:
    game = load_position(SOLO)
    out = dump_position(game)
    assert out["threat"] == DEFAULT_THREAT
    assert game.threat == Threat() and game.ruleset == Ruleset()
    assert out["players"][1] == {
        "automaton": True,
        "deck": ["BRUTE", "TROLL", "BASTION"],
        "discard": ["ALPHA"],
        "lanes": {"top": [], "bottom": ["BARON"]},
    }
    assert game.is_solo and game.automaton_deck_size == 2 and game.automaton_discard == ["ALPHA"]
    no_discard = copy.deepcopy(SOLO)
    del no_discard["players"][1]["discard"]
    assert dump_position(load_position(no_discard))["players"][1]["discard"] == []


def test_partial_ruleset_and_threat_are_completed() -> None:
    pos = copy.deepcopy(SOLO)
    pos["ruleset"] = {"lanes": "rotated", "max_turns": 40}
    pos["threat"] = {"base_mana": 8, "abilities": ["berserk", "splash"]}
    out = dump_position(load_position(pos))
    assert out["ruleset"] == {**DEFAULT_RULESET, "lanes": "rotated", "max_turns": 40}
    # Abilities come out in the canonical (R8.2) order, so equal options serialise equally.
    assert out["threat"] == {**DEFAULT_THREAT, "base_mana": 8, "abilities": ["splash", "berserk"]}


def test_every_ruleset_key_is_accepted_in_every_mode() -> None:
    """A variant that does not apply (automaton_lanes in duel, first_player in solo) has no effect."""
    duel = copy.deepcopy(EXAMPLE)
    duel["ruleset"] = {"automaton_lanes": "per_card", "first_player": "last_draft_pick"}
    assert dump_position(load_position(duel))["ruleset"]["automaton_lanes"] == "per_card"
    solo = copy.deepcopy(SOLO)
    solo["ruleset"] = {"first_player": "last_draft_pick"}
    assert dump_position(load_position(solo))["ruleset"]["first_player"] == "last_draft_pick"


def test_finished_games_load_with_their_winner() -> None:
    """winner 0/1/"draw"; a finished game may have its fortress rightmost (R4.3)."""
    pos = copy.deepcopy(EXAMPLE)
    pos["winner"] = 0
    pos["players"][1]["hand"] = ["GNOME", "TROLL", "FORT"]
    game = load_position(pos)
    assert game.is_over() and game.winner == 0 and game.legal_actions() == []
    assert dump_position(game) == {**pos, "ruleset": DEFAULT_RULESET}
    draw = copy.deepcopy(EXAMPLE)
    draw["winner"] = "draw"
    draw["ruleset"] = {"max_turns": 7}
    game = load_position(draw)
    assert game.is_over() and game.outcome is not None and game.outcome.is_draw
    assert dump_position(game)["winner"] == "draw"


def test_a_capped_game_ends_in_a_draw_at_max_turns() -> None:
    """ruleset.max_turns: a game that reaches the end of that turn is a draw, written "draw"."""
    game = Game.random_duel(3, ruleset=Ruleset(max_turns=2), record_events=False)
    while not game.is_over():
        game.apply_text("end")
    out = dump_position(game)
    assert out["winner"] == "draw" and out["turn"] == 2 and out["ruleset"]["max_turns"] == 2
    assert dump_position(load_position(out)) == out


def test_same_card_on_both_sides_is_allowed_in_duel_only() -> None:
    """Custom format: each player owns a Starter Kit; in solo every card exists once."""
    pos = copy.deepcopy(EXAMPLE)
    pos["players"][1]["hand"] = ["FORT", "ZOMBIE", "TROLL"]
    load_position(pos)
    solo = copy.deepcopy(SOLO)
    solo["players"][1]["deck"] = ["ZOMBIE", "BASTION"]
    with pytest.raises(InvalidPositionError, match="in solo every card exists once: ZOMBIE"):
        load_position(solo)


def test_solo_position_with_the_automaton_to_act_resolves_its_turn() -> None:
    """The automaton's turn is a rule (R7): loading a position where it is to act plays its turn."""
    pos = copy.deepcopy(SOLO)
    pos.update(active=1, phase="summon", mana=6)
    game = load_position(pos)
    assert game.is_over() or game.current_player == 0


# ----------------------------------------------------------------------------- malformed positions


def _players(d: dict[str, Any]) -> list[dict[str, Any]]:
    players: list[dict[str, Any]] = d["players"]
    return players


def _solo(d: dict[str, Any], automaton: Any, **extra: Any) -> None:
    """Make ``d`` a solo position with ``automaton`` as players[1] (and ``extra`` top-level keys)."""
    d["mode"] = "solo"
    _players(d)[1] = automaton
    d.update(extra)


# (id, mutation of EXAMPLE, expected message (regex), the schema rejects it too)
MALFORMED: list[tuple[str, Callable[[dict[str, Any]], object], str, bool]] = [
    ("unknown key", lambda d: d.update(colour="red"), r"unknown key 'colour' in position", True),
    ("missing players", lambda d: d.pop("players"), r"missing required key 'players'", True),
    ("missing active", lambda d: d.pop("active"), r"missing required key 'active'", True),
    ("missing phase", lambda d: d.pop("phase"), r"missing required key 'phase'", True),
    ("missing mana", lambda d: d.pop("mana"), r"missing required key 'mana'", True),
    ("bad mode", lambda d: d.update(mode="coop"), r"mode must be 'duel' or 'solo', not 'coop'", True),
    ("bad phase", lambda d: d.update(phase="mana"), r"phase must be 'summon' or 'combat', not 'mana'", True),
    ("active 2", lambda d: d.update(active=2), r"active: 2 is out of range", True),
    ("negative mana", lambda d: d.update(mana=-1), r"mana: -1 is out of range", True),
    ("mana as text", lambda d: d.update(mana="3"), r"mana: must be an integer", True),
    ("turn 0", lambda d: d.update(turn=0), r"turn: 0 is out of range", True),
    ("bad winner", lambda d: d.update(winner=2), r"winner must be null, 0, 1 or 'draw', not 2", True),
    ("boolean winner", lambda d: d.update(winner=True), r"winner must be null, 0, 1 or 'draw'", True),
    (
        "one player",
        lambda d: d.update(players=d["players"][:1]),
        r"players must be a list of two players",
        True,
    ),
    (
        "unknown player key",
        lambda d: _players(d)[0].update(life=3),
        r"players\[0\]: unknown key 'life'",
        True,
    ),
    (
        "two fortresses",
        lambda d: _players(d)[0]["hand"].append("FORT"),
        r"players\[0\]\.hand: must hold exactly one BASTION or FORT, found 2",
        True,
    ),
    (
        "no fortress",
        lambda d: _players(d)[1]["hand"].remove("FORT"),
        r"players\[1\]\.hand: must hold exactly one BASTION or FORT, found 0",
        True,
    ),
    (
        "unknown card id",
        lambda d: _players(d)[0]["hand"].insert(0, "DRAGON"),
        r"players\[0\]\.hand\[0\]: unknown card id 'DRAGON'",
        True,
    ),
    (
        "hidden card of a view",
        lambda d: _players(d)[1]["hand"].insert(1, "?"),
        r"players\[1\]\.hand\[1\]: unknown card id '\?'",
        True,
    ),
    (
        "duplicate card in hand",
        lambda d: _players(d)[0]["hand"].insert(0, "BARON"),
        r"players\[0\]: card BARON appears more than once",
        True,
    ),
    (
        "card in hand and lane",
        lambda d: _players(d)[0]["lanes"]["bottom"].append("ZOMBIE"),
        r"players\[0\]: card ZOMBIE appears more than once",
        False,
    ),
    (
        "damage equal to health",
        lambda d: _players(d)[0]["lanes"]["top"].__setitem__(0, {"card": "BRUTE", "damage": 5}),
        r"players\[0\]\.lanes\.top\[0\]: BRUTE has 5 damage but only 5 health",
        False,
    ),
    (
        "negative damage",
        lambda d: _players(d)[0]["lanes"]["top"].__setitem__(0, {"card": "BRUTE", "damage": -1}),
        r"players\[0\]\.lanes\.top\[0\]\.damage: -1 is out of range",
        True,
    ),
    (
        "incantation in a lane",
        lambda d: _players(d)[1]["lanes"]["top"].append("METEORITE"),
        r"players\[1\]\.lanes\.top\[0\]: METEORITE is an incantation, not a creature",
        True,
    ),
    (
        "fortress in a lane",
        lambda d: _players(d)[1]["lanes"]["top"].append("BASTION"),
        r"players\[1\]\.lanes\.top\[0\]: BASTION cannot be here",
        True,
    ),
    (
        "unknown lane",
        lambda d: _players(d)[0]["lanes"].update(middle=[]),
        r"players\[0\]\.lanes: unknown lane 'middle'",
        True,
    ),
    (
        "unknown creature field",
        lambda d: _players(d)[0]["lanes"]["top"].__setitem__(1, {"card": "OGRE", "health": 4}),
        r"players\[0\]\.lanes\.top\[1\]: unknown creature field 'health'",
        True,
    ),
    (
        "creature object without card",
        lambda d: _players(d)[0]["lanes"]["top"].__setitem__(1, {"damage": 1}),
        r"players\[0\]\.lanes\.top\[1\]: a creature object needs 'card'",
        True,
    ),
    (
        "flag not boolean",
        lambda d: _players(d)[0]["lanes"]["top"].__setitem__(1, {"card": "OGRE", "new": 1}),
        r"players\[0\]\.lanes\.top\[1\]\.new: must be true or false, not 1",
        True,
    ),
    (
        "bad ruleset value",
        lambda d: d.update(ruleset={"lanes": "diagonal"}),
        r"ruleset: lanes must be one of shared, rotated, not 'diagonal'",
        True,
    ),
    (
        "unknown ruleset key",
        lambda d: d.update(ruleset={"speed": 2}),
        r"ruleset: unknown key 'speed'",
        True,
    ),
    (
        "max_turns zero",
        lambda d: d.update(ruleset={"max_turns": 0}),
        r"ruleset: max_turns must be a positive integer or null, not 0",
        True,
    ),
    ("threat in duel", lambda d: d.update(threat={}), r"'threat' applies only to solo positions", True),
    (
        "fortress rightmost in a live game",
        lambda d: _players(d)[0].update(hand=["ZOMBIE", "BARON", "BOOM", "BASTION"]),
        r"players\[0\]\.hand: the fortress card cannot be rightmost in a game that goes on",
        False,
    ),
    (
        "pending decision",
        lambda d: d.update(pending={"player": 1, "decision": "order", "cards": ["GNOME", "TROLL"]}),
        r"positions with a pending decision cannot be loaded",
        False,
    ),
    (
        "automaton in duel",
        lambda d: _players(d).__setitem__(1, {"automaton": True, "deck": ["GNOME", "BASTION"]}),
        r"players\[1\]: in solo, players\[1\] is the automaton \(and only in solo\)",
        True,
    ),
    (
        "solo without automaton",
        lambda d: d.update(mode="solo"),
        r"players\[1\]: in solo, players\[1\] is the automaton",
        True,
    ),
    (
        "solo without automaton deck",
        lambda d: _solo(d, {"automaton": True, "discard": ["GNOME"]}),
        r"players\[1\]: the automaton needs a 'deck'",
        True,
    ),
    (
        "solo with an empty deck",
        lambda d: _solo(d, {"automaton": True, "deck": []}),
        r"players\[1\]\.deck: must end with its fortress card",
        True,
    ),
    (
        "automaton fortress not last",
        lambda d: _solo(d, {"automaton": True, "deck": ["GNOME", "BASTION", "TROLL"]}),
        r"players\[1\]\.deck: must end with its fortress card",
        False,
    ),
    (
        "automaton deck empty above its Bastion",
        lambda d: _solo(d, {"automaton": True, "deck": ["BASTION"], "discard": ["GNOME"]}),
        r"players\[1\]\.deck: empty above its Bastion: the Bastion would already have flipped",
        False,
    ),
    (
        "automaton with a hand",
        lambda d: _solo(d, {"automaton": True, "hand": ["BASTION", "GNOME"], "deck": ["FORT"]}),
        r"players\[1\]: unknown key 'hand'",
        True,
    ),
    (
        "bad threat value",
        lambda d: _solo(d, {"automaton": True, "deck": ["GNOME", "BASTION"]}, threat={"base_mana": 11}),
        r"threat: base_mana must be one of 6, 7, 8, 9, 10, not 11",
        True,
    ),
    (
        "unknown threat option",
        lambda d: _solo(d, {"automaton": True, "deck": ["GNOME", "BASTION"]}, threat={"power": 1}),
        r"threat: unknown option 'power'",
        True,
    ),
    (
        "unknown threat ability",
        lambda d: _solo(
            d, {"automaton": True, "deck": ["GNOME", "BASTION"]}, threat={"abilities": ["flying"]}
        ),
        r"threat: unknown ability 'flying'",
        True,
    ),
    (
        "threat not an object",
        lambda d: _solo(d, {"automaton": True, "deck": ["GNOME", "BASTION"]}, threat=3),
        r"threat must be an object",
        True,
    ),
    (
        "card on both sides in solo",
        lambda d: _solo(d, {"automaton": True, "deck": ["BARON", "BASTION"]}),
        r"in solo every card exists once: BARON is on both sides",
        False,
    ),
]


@pytest.mark.parametrize(
    ("mutate", "message"), [(m, msg) for _, m, msg, _ in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_position_names_the_problem(
    mutate: Callable[[dict[str, Any]], object], message: str
) -> None:
    position = copy.deepcopy(EXAMPLE)
    mutate(position)
    with pytest.raises(InvalidPositionError, match=message):
        load_position(position)


def test_pending_decision_is_dumped_with_the_resolving_incantation() -> None:
    """R3.9, R5.4a: a dump during a return-order decision carries ``pending``; when the decision
    interrupts an incantation, ``pending.resolving`` names it (it is in no hand or lane meanwhile).
    The schema accepts both; loading such a position is refused (optional in engine.md)."""
    base: dict[str, Any] = {
        "active": 0,
        "mana": 3,
        "players": [
            {"hand": ["BASTION", "COMBUSTION", "BARON", "OGRE"], "lanes": {"top": ["BRIGAND"]}},
            {"hand": ["BASTION", "TROLL"], "lanes": {"top": ["ZOMBIE"], "bottom": ["GNOME"]}},
        ],
    }
    cast = load_position({**base, "phase": "summon"})
    cast.apply_text("cast COMBUSTION 1.top.0")
    out = dump_position(cast)
    assert out["pending"] == {
        "player": 1,
        "decision": "order",
        "cards": ["ZOMBIE", "GNOME"],
        "resolving": {"player": 0, "card": "COMBUSTION"},
    }
    assert out["players"][0]["hand"] == ["BASTION", "BARON", "OGRE"]
    attack = load_position({**base, "phase": "combat"})
    attack.apply_text("next")  # Brigand's Splash attack destroys both (R6.1)
    assert dump_position(attack)["pending"] == {
        "player": 1,
        "decision": "order",
        "cards": ["ZOMBIE", "GNOME"],
    }
    for game in (cast, attack):
        assert schema_errors(dump_position(game)) == []
        with pytest.raises(InvalidPositionError, match="pending decision cannot be loaded"):
            load_position(dump_position(game))


def test_malformed_json_text_and_non_objects() -> None:
    with pytest.raises(InvalidPositionError, match="not valid JSON"):
        load_position("{players: []")
    with pytest.raises(InvalidPositionError, match="a position must be a JSON object"):
        load_position("[1, 2]")
    with pytest.raises(InvalidPositionError, match="a position must be a JSON object"):
        load_position(None)


def test_invalid_position_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        load_position({})


def test_a_view_is_not_loadable() -> None:
    """Views are output only (engine.md): their hidden cards "?" are not card ids."""
    game = Game.random_duel(11)
    with pytest.raises(InvalidPositionError, match=r"unknown key 'hidden_cards'"):
        load_position(view(game, 0))
    v = view(game, 0)
    del v["players"][1]["hidden_cards"]
    with pytest.raises(InvalidPositionError, match=r"unknown card id '\?'"):
        load_position(v)


def test_positions_cover_the_play_phases_only() -> None:
    game = new_game(mode="duel", format="draft", seed=1)
    with pytest.raises(InvalidPositionError, match="setup stage"):
        dump_position(game)


# ----------------------------------------------------------------------------- the JSON Schema


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    s = schema()
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(s)


def test_schema_enums_match_the_card_data_and_options() -> None:
    """The schema is hand-written: these keep it in step with the card data and the options."""
    defs = schema()["$defs"]
    assert defs["cardId"]["enum"] == [c.id for c in CARDS]
    assert defs["creatureId"]["enum"] == [c.id for c in CARDS if c.is_creature]
    assert defs["incantationId"]["enum"] == [c.id for c in CARDS if not c.is_creature]
    assert defs["fortressId"]["enum"] == ["BASTION", "FORT"]
    ruleset = defs["ruleset"]["properties"]
    assert set(ruleset) == set(DEFAULT_RULESET)
    for name, choices in VARIANT_CHOICES.items():
        assert tuple(ruleset[name]["enum"]) == choices
        assert ruleset[name]["default"] == DEFAULT_RULESET[name]
    threat = defs["threat"]["properties"]
    assert set(threat) == set(DEFAULT_THREAT)
    for name, values in THREAT_CHOICES.items():
        assert tuple(threat[name]["enum"]) == values
        assert threat[name]["default"] == DEFAULT_THREAT[name]
    assert tuple(threat["abilities"]["items"]["enum"]) == THREAT_ABILITIES


def test_schema_accepts_the_contract_examples() -> None:
    assert schema_errors(EXAMPLE) == []
    assert schema_errors(SOLO) == []
    assert (
        schema_errors({"active": 0, "phase": "summon", "mana": 6, "players": [{"hand": ["BASTION"]}] * 2})
        == []
    )


def test_schema_accepts_every_position_the_engine_writes(
    make_solo_position: Callable[..., dict[str, Any]],
) -> None:
    """Canonical and expanded dumps of random duel and solo games (pending decisions and finished
    games included) all validate; so does every solo game started by new_game with threat options."""
    rng = random.Random(2024)
    games = [
        Game.random_duel(s, ruleset=Ruleset(max_turns=rng.choice([None, 9])), record_events=False)
        for s in range(12)
    ]
    games += [load_position(make_solo_position(rng), record_events=False) for _ in range(8)]
    for s in range(6):
        threat = Threat(
            base_mana=6 + s % 5,
            starts=("player", "automaton")[s % 2],
            resilience=("bastion", "fort")[s % 3 == 0],
        )
        game = new_game(mode="solo", format="draft", seed=s, threat=threat, record_events=False)
        while game.phase == "setup":
            game.apply(rng.choice(game.legal_actions()))
        games.append(game)
    seen = {"pending": 0, "over": 0, "solo": 0, "draw": 0}
    for game in games:
        while True:
            positions = [dump_position(game)]
            if len(game.history) % 4 == 0 or game.pending is not None or game.is_over():
                positions.append(dump_position(game, expanded=True))
            for pos in positions:
                errors = schema_errors(pos)
                assert not errors, (errors, pos)
            seen["pending"] += game.pending is not None
            seen["solo"] += game.is_solo
            if game.is_over():
                seen["over"] += 1
                seen["draw"] += game.outcome is not None and game.outcome.is_draw
                break
            game.apply(rng.choice(game.legal_actions()))
    assert all(seen.values()), seen  # the sample did reach each kind of position


@pytest.mark.parametrize(
    ("mutate", "rejects"), [(m, r) for _, m, _, r in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_schema_rejects_the_malformed_positions_it_can_express(
    mutate: Callable[[dict[str, Any]], object], rejects: bool
) -> None:
    """The schema rejects every structural error; the hard rules across fields (a card twice across
    hand and lanes, damage >= health, a rightmost fortress in a live game, the automaton's fortress
    card not last, a card on both sides in solo) and the pending decision are the loader's alone."""
    position = copy.deepcopy(EXAMPLE)
    mutate(position)
    assert bool(schema_errors(position)) == rejects, schema_errors(position)


def test_schema_rejects_a_bad_pending_object() -> None:
    pos = copy.deepcopy(EXAMPLE)
    pos["pending"] = {"player": 0, "decision": "order", "cards": ["BRUTE", "OGRE"]}
    assert schema_errors(pos) == []
    pos["pending"]["resolving"] = {"player": 1, "card": "CYCLONE"}
    assert schema_errors(pos) == []
    for bad in (
        {"player": 0, "decision": "pick", "cards": ["BRUTE", "OGRE"]},
        {"player": 2, "decision": "order", "cards": ["BRUTE", "OGRE"]},
        {"player": 0, "decision": "order", "cards": ["BRUTE"]},
        {"player": 0, "decision": "order", "cards": ["BRUTE", "BOOM"]},
        {"player": 0, "decision": "order"},
        {"player": 0, "decision": "order", "cards": ["BRUTE", "OGRE"], "why": "R3.9"},
        {"player": 0, "decision": "order", "cards": ["BRUTE", "OGRE"], "resolving": {"player": 1}},
        {
            "player": 0,
            "decision": "order",
            "cards": ["BRUTE", "OGRE"],
            "resolving": {"player": 1, "card": "OGRE"},
        },
    ):
        pos["pending"] = bad
        assert schema_errors(pos), bad
