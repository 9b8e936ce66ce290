"""The scenario suite (rules R1-R6 and both rulebook FAQs) and the reference turns, as pytest cases.

Every scenario of ``tests/scenarios`` (the ``disputed/`` folder excepted) and every reference turn of
``tests/data/reference-turns`` is one test case, run through :func:`clashofdecks.scenario.run_file`.
The runner itself is tested too: a wrong expectation, an "illegal" action that is legal and a refusal
for another reason than the scenario's ``refusal`` must FAIL; a scenario that checks nothing or whose
action does not parse is malformed (ERROR); and ``clash scenario`` must exit 0/1 accordingly.
``docs/rules-coverage.md`` must match the table regenerated from the scenario files, and every rule
number R3.1-R6.9 must be cited by a scenario.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from referencing import Registry, Resource

from clashofdecks import Game, IllegalActionError
from clashofdecks.cli import main as cli_main
from clashofdecks.errors import ActionSyntaxError
from clashofdecks.scenario import (
    ScenarioResult,
    notation_problem,
    refusal_mismatch,
    run_file,
    run_scenario,
)

TESTS = Path(__file__).resolve().parent
SCENARIO_DIR = TESTS / "scenarios"
REFERENCE_DIR = TESTS / "data" / "reference-turns"
DOC = TESTS.parent / "docs" / "rules-coverage.md"


def _coverage_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("coverage_table", TESTS / "tools" / "coverage_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COVERAGE = _coverage_tool()
SUITE_FILES: list[Path] = COVERAGE.suite_files(SCENARIO_DIR)
REFERENCE_FILES = sorted(REFERENCE_DIR.glob("*.json"))


def _items(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def _cases(files: list[Path]) -> list[Any]:
    return [
        pytest.param(path, i, id=str(item.get("name", f"{path.name}[{i}]")))
        for path in files
        for i, item in enumerate(_items(path))
    ]


@cache
def _results(path: Path) -> tuple[ScenarioResult, ...]:
    return tuple(run_file(path))


def _check(path: Path, index: int) -> None:
    result = _results(path)[index]
    assert result.passed, f"{result.name} ({path.name}): {result.message}"


@pytest.mark.parametrize(("path", "index"), _cases(SUITE_FILES))
def test_scenario(path: Path, index: int) -> None:
    """One scenario of the suite: its rule numbers are in its ``rules`` field and the coverage doc."""
    _check(path, index)


@pytest.mark.parametrize(("path", "index"), _cases(REFERENCE_FILES))
def test_reference_turn(path: Path, index: int) -> None:
    """One whole turn of a random game, as played by the independent reference implementation."""
    _check(path, index)


def test_suite_and_reference_turns_are_present() -> None:
    assert len(SUITE_FILES) >= 7
    assert sum(len(_items(p)) for p in SUITE_FILES) >= 150
    assert len(REFERENCE_FILES) >= 344


def test_scenario_names_are_unique_and_described() -> None:
    names = [item["name"] for path in SUITE_FILES for item in _items(path)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    for path in SUITE_FILES:
        for item in _items(path):
            assert item.get("rules"), f"{item['name']}: a suite scenario must cite rule numbers"
            assert item.get("description"), f"{item['name']}: a suite scenario needs a description"


# ---------------------------------------------------------------------------------------- coverage

#: Every rule and ruling number of R3-R6 in the digest (copied here: tests never read ../shared).
DIGEST_R3_R6 = [
    "R3.1",
    "R3.2",
    "R3.3",
    "R3.4",
    "R3.4a",
    "R3.4b",
    "R3.4c",
    "R3.5",
    "R3.5a",
    "R3.5b",
    "R3.6",
    "R3.7",
    "R3.8",
    "R3.9",
    "R3.10",
    "R4.1",
    "R4.2",
    "R4.2a",
    "R4.3",
    "R4.4",
    "R5.1",
    "R5.1a",
    "R5.2",
    "R5.2a",
    "R5.3",
    "R5.4",
    "R5.4a",
    "R5.5",
    "R6.1",
    "R6.2",
    "R6.3",
    "R6.4",
    "R6.4a",
    "R6.4b",
    "R6.4c",
    "R6.5",
    "R6.5a",
    "R6.5b",
    "R6.6",
    "R6.6a",
    "R6.7",
    "R6.8",
    "R6.8a",
    "R6.9",
]
#: Also asked for: board words, the rotated-lanes Variant.
OTHER_RULES = ["R1.2", "R1.3", "R1.4", "R1.5", "R1.5a"]
#: Solo (tests/scenarios/solo): every rule and ruling of R7 and R8 a position can express (the setup
#: rules R2, R7.1 and the level arithmetic R8.1 are checked by tests/test_formats.py and test_threat.py).
SOLO_RULES = [
    "R7.1a",
    "R7.2",
    "R7.3",
    "R7.3a",
    "R7.3b",
    "R7.4",
    "R7.4a",
    "R7.5",
    "R7.5a",
    "R7.6",
    "R7.6a",
    "R7.7",
    "R7.8",
    "R7.8a",
    "R8.2",
    "R8.2a",
    "R8.2b",
    "R8.3",
]
#: The rulebook's FAQ questions: 15 general ones, 12 on special abilities.
FAQ_IDS = [f"FAQ-G{i}" for i in range(1, 16)] + [f"FAQ-A{i}" for i in range(1, 13)]


def test_every_r3_to_r6_rule_and_faq_question_has_a_scenario() -> None:
    cited = COVERAGE.collect(SCENARIO_DIR)
    missing = [r for r in [*DIGEST_R3_R6, *OTHER_RULES, *SOLO_RULES, *FAQ_IDS] if r not in cited]
    assert not missing, f"no scenario cites {missing}"


def test_every_cited_number_is_a_known_rule_or_faq_question() -> None:
    cited = COVERAGE.collect(SCENARIO_DIR)
    unknown = sorted(set(cited) - set(COVERAGE.RULES) - set(COVERAGE.FAQ))
    assert not unknown, f"typo in a rules field? {unknown}"
    assert set(DIGEST_R3_R6) <= set(COVERAGE.RULES)


def test_rules_coverage_doc_is_up_to_date() -> None:
    expected = COVERAGE.render(SCENARIO_DIR)
    assert DOC.read_text(encoding="utf-8") == expected, (
        "docs/rules-coverage.md is stale: run .venv/bin/python tests/tools/coverage_table.py --write"
    )
    assert "**not covered**" not in expected


# ------------------------------------------------------------------------- R2.6 (not a position)


def test_r2_6_first_player_gets_six_mana_on_the_first_turn_only() -> None:
    """R2.6: the starting player has 6 mana on the very first turn (9 cards in hand); the other
    player's first turn has the normal mana (R3.1), and so has the starting player's second turn."""
    game = Game.random_duel(seed=7, record_events=False)
    assert (game.turn, game.active, game.phase) == (1, 0, "summon")
    assert len(game.hand(0)) == 9 and game.hand(0)[0] == "BASTION"
    assert game.mana == 6
    game.apply_text("end")
    game.apply_text("end")
    assert (game.turn, game.active) == (2, 1)
    assert game.mana == len(game.hand(1)) == 9
    game.apply_text("end")
    game.apply_text("end")
    assert (game.turn, game.active) == (3, 0)
    assert game.mana == len(game.hand(0)) == 9

    from_hands = Game.from_hands([["ZOMBIE", "GRRR", "BARON"], ["OGRE", "TROLL", "GNOME", "BRUTE"]])
    assert from_hands.mana == 6 and from_hands.hand(0) == ["BASTION", "ZOMBIE", "GRRR", "BARON"]


# ------------------------------------------------------------------------ the runner can fail

BASE = {
    "name": "runner self-test",
    "rules": ["R3.7"],
    "position": {
        "active": 0,
        "phase": "combat",
        "mana": 0,
        "players": [
            {"hand": ["BASTION", "BOOM", "GRRR"], "lanes": {"top": ["BARON"], "bottom": []}},
            {"hand": ["BASTION", "OGRE", "TROLL"], "lanes": {"top": ["BRUTE"], "bottom": []}},
        ],
    },
    "actions": ["next"],
    "expect": {"players": [{}, {"lanes": {"top": [{"card": "BRUTE", "damage": 3}], "bottom": []}}]},
}


def _variant(**changes: Any) -> dict[str, Any]:
    scenario = copy.deepcopy(BASE)
    scenario.update(changes)
    return scenario


def test_runner_passes_the_right_expectation() -> None:
    assert run_scenario(_variant()).passed


def test_runner_fails_a_wrong_expectation_and_names_the_difference() -> None:
    wrong = _variant(
        expect={"players": [{}, {"lanes": {"top": [{"card": "BRUTE", "damage": 4}], "bottom": []}}]}
    )
    result = run_scenario(wrong)
    assert not result.passed and not result.error
    assert "damage" in result.message and "4" in result.message and "3" in result.message


def test_runner_fails_a_wrong_lane_length() -> None:
    wrong = _variant(expect={"players": [{}, {"lanes": {"top": [], "bottom": []}}]})
    assert not run_scenario(wrong).passed


def test_runner_fails_an_illegal_action_that_is_legal() -> None:
    scenario = _variant(illegal="next", actions=[])
    del scenario["expect"]
    result = run_scenario(scenario)
    assert not result.passed
    assert "accepted" in result.message


def test_runner_reports_a_refused_setup_action() -> None:
    result = run_scenario(_variant(actions=["next", "next"]))
    assert not result.passed and "refused" in result.message


def test_runner_reports_a_malformed_scenario() -> None:
    result = run_scenario(_variant(expect=None, illegal=None))
    assert not result.passed and result.error


# ----------------------------------------------- scenarios that cannot pass by accident


def _illegal(action: str, **changes: Any) -> dict[str, Any]:
    """BASE in its Combat phase with an illegal action instead of the expectation."""
    scenario = _variant(actions=[], illegal=action, **changes)
    del scenario["expect"]
    return scenario


def test_every_illegal_scenario_of_the_suite_says_why_it_is_refused() -> None:
    unexplained = [
        item["name"]
        for path in SUITE_FILES
        for item in _items(path)
        if "illegal" in item and "refusal" not in item
    ]
    assert not unexplained, f"illegal scenarios without a 'refusal': {unexplained}"
    assert sum("refusal" in item for path in SUITE_FILES for item in _items(path)) >= 30


def test_an_illegal_scenario_in_the_old_format_still_passes() -> None:
    """Without ``refusal`` any refusal passes, as before (files in today's format stay valid)."""
    assert run_scenario(_illegal("play GRRR top")).passed


@pytest.mark.parametrize(
    "action",
    [
        "nxt",
        "play ZOMBEE top",
        "play GRRR middle",
        "cast BOOM 1.top",
        "cast BOOM top",
        "play BOOM top",
        "order",
        "order GNOME GNOME",
        "order GNOMEE OGRE",
        "next 1",
        "build ZOMBIE",
        "deck 5",
        "",
    ],
)
def test_an_illegal_action_that_does_not_parse_is_a_scenario_error(action: str) -> None:
    """An unparseable action would be "refused" whatever the rules say: the file is wrong."""
    assert notation_problem(action)
    result = run_scenario(_illegal(action))
    assert not result.passed and result.error, result
    assert "not an action of the notation" in result.message
    assert repr(action) in result.message


def test_an_action_that_does_not_parse_is_a_scenario_error() -> None:
    result = run_scenario(_variant(actions=["nxt"]))
    assert not result.passed and result.error
    assert "action 1 'nxt' is not an action of the notation" in result.message


@pytest.mark.parametrize(
    "action",
    [
        "next",
        "end",
        "play GRRR top",
        "cast BOOM 1.top.0",
        "order GNOME",
        "order GNOME OGRE",
        "pick ZOMBIE",
        "ban OGRE",
        "deck 2",
        "PLAY grrr TOP",
        "build ANNIHILATION BARON BOOM GNOME OGRE TROLL ZOMBIE GRRR BRUTE ALPHA",
    ],
)
def test_well_formed_actions_parse_whatever_the_game(action: str) -> None:
    """``order`` is well-formed with any distinct card ids, even with no return order pending: the
    game then refuses it (R3.9 scenarios rely on that)."""
    assert notation_problem(action) is None


@pytest.mark.parametrize("refusal", ["R3.3", "IllegalActionError", "ClashError"])
def test_a_matching_refusal_passes(refusal: str) -> None:
    """'play GRRR top' in Combat is refused citing R3.3, as an IllegalActionError (a ClashError)."""
    result = run_scenario(_illegal("play GRRR top", refusal=refusal))
    assert result.passed, result.message


@pytest.mark.parametrize(
    ("action", "refusal", "expected"),
    [
        ("play GRRR top", "R3.2", "expected a refusal citing R3.2, got IllegalActionError: creatures are"),
        ("play GRRR top", "R3", "expected a refusal citing R3, got"),
        ("play GRRR top", "ActionSyntaxError", "expected a refusal of class ActionSyntaxError, got Illegal"),
        (
            "order GNOME",
            "IllegalActionError",
            "expected a refusal of class IllegalActionError, got ActionSyntaxError: no",
        ),
        (
            "cast BOOM 1.top.1",
            "R5.2a",
            "expected a refusal citing R5.2a, got IllegalActionError: not enough mana",
        ),
    ],
)
def test_a_refusal_for_another_reason_fails(action: str, refusal: str, expected: str) -> None:
    result = run_scenario(_illegal(action, refusal=refusal))
    assert not result.passed and not result.error, result
    assert result.message.startswith(f"{action!r} was refused for another reason: {expected}"), result.message


def test_a_rule_number_matches_only_as_a_whole_token() -> None:
    refusal = IllegalActionError("playing the last card would lose the game (R3.4a); see also R3.10.")
    assert refusal_mismatch("R3.4a", refusal) is None
    assert refusal_mismatch("R3.10", refusal) is None
    for not_cited in ("R3.4", "R3.1", "R3", "R3.4b", "R4.4"):
        assert refusal_mismatch(not_cited, refusal) == (
            f"expected a refusal citing {not_cited}, got IllegalActionError: {refusal}"
        )
    assert refusal_mismatch("R3.4", IllegalActionError("keep a card (R3.4)")) is None
    assert refusal_mismatch("R3.4", IllegalActionError("R3.4, R3.4a")) is None
    assert refusal_mismatch("R3.4", IllegalActionError("see XR3.4 and R3.4.1")) is not None
    # A class matches the error's class or a base class; the message is not searched for it.
    assert refusal_mismatch("ActionSyntaxError", ActionSyntaxError("x")) is None
    assert refusal_mismatch("ClashError", ActionSyntaxError("x")) is None
    assert refusal_mismatch("IllegalActionError", ActionSyntaxError("IllegalActionError")) is not None


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"refusal": "IllegalActonError"},
            "'refusal' must be a rule number such as 'R3.2' or an error class",
        ),
        ({"refusal": "rule 3.3"}, "'refusal' must be a rule number"),
        ({"refusal": "r3.3"}, "'refusal' must be a rule number"),
        ({"refusal": ["R3.3"]}, "'refusal' must be a rule number"),
        ({"refusal": "ValueError"}, "'refusal' must be a rule number"),
    ],
)
def test_a_malformed_refusal_is_a_scenario_error(changes: dict[str, Any], expected: str) -> None:
    result = run_scenario(_illegal("play GRRR top", **changes))
    assert not result.passed and result.error
    assert expected in result.message


def test_a_refusal_without_an_illegal_action_is_a_scenario_error() -> None:
    result = run_scenario(_variant(refusal="R3.7"))
    assert not result.passed and result.error
    assert "'refusal' goes with 'illegal'" in result.message


@pytest.mark.parametrize(
    "expect", [{}, {"ruleset": {}}, {"players": {}}, {"ruleset": {"players": {}}, "threat": {}}]
)
def test_an_expectation_that_checks_nothing_is_a_scenario_error(expect: dict[str, Any]) -> None:
    """Such an ``expect`` matches every position: the scenario would pass whatever the engine does."""
    result = run_scenario(_variant(expect=expect))
    assert not result.passed and result.error
    assert "'expect' checks nothing" in result.message


def test_an_expectation_of_one_value_is_a_check() -> None:
    assert run_scenario(_variant(expect={"mana": 0})).passed
    assert not run_scenario(_variant(expect={"mana": 1})).passed
    # A list checks its length: an empty lane is something to check.
    assert run_scenario(_variant(expect={"players": [{}, {"lanes": {"bottom": []}}]})).passed


# ------------------------------------------------------------------------------ the JSON Schema


def _schema(name: str) -> dict[str, Any]:
    text = resources.files("clashofdecks").joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


SCENARIO_SCHEMA = _schema("scenario")
SCHEMA_REGISTRY: Registry[Any] = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in (SCENARIO_SCHEMA, _schema("position"))
)
SCENARIO_VALIDATOR = jsonschema.Draft202012Validator(SCENARIO_SCHEMA, registry=SCHEMA_REGISTRY)


def test_scenario_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert SCENARIO_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCENARIO_SCHEMA)


@pytest.mark.slow
def test_the_schema_accepts_every_scenario_file_and_reference_turn() -> None:
    for path in [*SUITE_FILES, *REFERENCE_FILES]:
        errors = [e.message for e in SCENARIO_VALIDATOR.iter_errors(json.loads(path.read_text("utf-8")))]
        assert not errors, f"{path.name}: {errors[:3]}"
    assert SCENARIO_VALIDATOR.is_valid(BASE) and SCENARIO_VALIDATOR.is_valid(_illegal("next", refusal="R3.5"))


@pytest.mark.parametrize(
    "scenario",
    [
        _variant(expect={}),
        _variant(refusal="R3.7"),
        _variant(illegal="next"),
        _variant(colour="red"),
        _variant(actions=["nxt"]),
        _variant(actions="next"),
        _illegal("nxt"),
        _illegal("next", refusal="rule 3.5"),
        _illegal("next", refusal="r3.5"),
        _variant(position={"active": 0}),
    ],
)
def test_the_schema_rejects_what_the_runner_calls_malformed(scenario: dict[str, Any]) -> None:
    assert not SCENARIO_VALIDATOR.is_valid(scenario)
    assert not SCENARIO_VALIDATOR.is_valid([BASE, scenario])
    result = run_scenario(scenario)
    assert result.error and not result.passed, result


# ---------------------------------------------------------------------- the clash scenario CLI


def _write(path: Path, scenarios: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(scenarios), encoding="utf-8")
    return path


def test_cli_scenario_exit_status_and_json(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.json", [_variant(name="good one")])
    bad_expect = _variant(
        name="bad one", expect={"players": [{}, {"lanes": {"top": ["OGRE"], "bottom": []}}]}
    )
    bad = _write(tmp_path / "bad.json", [_variant(name="good again"), bad_expect])
    runner = CliRunner()

    ok = runner.invoke(cli_main, ["scenario", str(good)])
    assert ok.exit_code == 0, ok.output
    assert "PASS good one" in ok.output and "1 passed, 0 failed" in ok.output

    failing = runner.invoke(cli_main, ["scenario", str(bad)])
    assert failing.exit_code == 1
    assert "FAIL bad one" in failing.output and "1 passed, 1 failed" in failing.output

    as_json = runner.invoke(cli_main, ["scenario", "--json", str(bad)])
    assert as_json.exit_code == 1
    report = json.loads(as_json.output)
    assert (report["passed"], report["failed"]) == (1, 1)
    assert [r["status"] for r in report["results"]] == ["PASS", "FAIL"]
    first, second = report["results"]
    assert set(first) >= {"name", "path", "status", "message", "rules"}
    assert first["name"] == "good again" and first["rules"] == ["R3.7"] and first["message"] == ""
    assert second["name"] == "bad one" and "OGRE" in second["message"]


def test_cli_scenario_reports_malformed_scenarios_as_errors(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "bad.json",
        [
            _variant(name="checks nothing", expect={}),
            _illegal("nxt", name="misspelt"),
            _illegal("play GRRR top", name="wrong reason", refusal="R3.2"),
            _illegal("play GRRR top", name="right reason", refusal="R3.3"),
        ],
    )
    result = CliRunner().invoke(cli_main, ["scenario", "--json", str(path)])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert [r["status"] for r in report["results"]] == ["ERROR", "ERROR", "FAIL", "PASS"]
    assert (report["passed"], report["failed"], report["malformed"]) == (1, 3, 2)
    text = CliRunner().invoke(cli_main, ["scenario", "-q", str(path)])
    assert text.exit_code == 1
    assert "ERROR misspelt" in text.output and "FAIL wrong reason" in text.output
    assert "right reason" not in text.output and "1 passed, 3 failed (2 malformed)" in text.output


def test_cli_scenario_runs_a_directory(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", [_variant(name="a")])
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub" / "b.json", [_variant(name="b")])
    result = CliRunner().invoke(cli_main, ["scenario", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(r["name"] for r in json.loads(result.output)["results"]) == ["a", "b"]


def test_cli_scenario_on_the_suite_file() -> None:
    """``clash scenario`` on one file of the suite (quiet: failures and summary only)."""
    path = SCENARIO_DIR / "r6-abilities.json"
    result = CliRunner().invoke(cli_main, ["scenario", "-q", "--json", str(path)])
    report = json.loads(result.output)
    assert report["passed"] + report["failed"] == len(_items(path))
    real_failures = [r for r in report["results"] if r["status"] != "PASS"]
    assert not real_failures, real_failures
