"""The compiled core (``clashofdecks._native``, issue 13) against the Python engine.

The heart is the differential test: random games from random starting positions (duel and solo,
every format's setup, random ruleset variants, turn caps and threat options) played in lockstep in
both engines, comparing after every action the legal actions, the whole state and the outcome
(:mod:`clashofdecks.native_check`).  Every scenario and reference turn whose position is past the
setup also runs on the compiled core.  Conversion refuses what the core does not cover, by name.

These tests skip only when the extension is not built (or ``CLASH_NATIVE=0``); with
``CLASH_REQUIRE_NATIVE=1`` in the environment (CI) a missing extension is a failure instead.
``CLASH_NATIVE_CHECK_GAMES`` sets the size of the differential run (default 3,000 games).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from clashofdecks import native
from clashofdecks.errors import ActionSyntaxError, IllegalActionError
from clashofdecks.options import Ruleset, Threat
from clashofdecks.position import dump_position, load_position
from clashofdecks.rules import SUMMON, Game
from clashofdecks.scenario import first_difference

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    how = (
        "unset CLASH_NATIVE"
        if native.DISABLED
        else "build it with `pip install -e .` (or `python setup.py build_ext --inplace`)"
    )
    pytest.skip(f"{native.engine_notice()}; {how} to run these tests", allow_module_level=True)

from clashofdecks import _native
from clashofdecks.native import NativeGame, NativeUnsupportedError, random_duel_playouts
from clashofdecks.native_check import KINDS, NativeMismatch, compare, run_check, start_game

TESTS = Path(__file__).resolve().parent
MASK64 = (1 << 64) - 1


# ------------------------------------------------------------------ chance: BLAKE2b and the deal


@pytest.mark.parametrize("size", [0, 1, 12, 64, 127, 128, 129, 256, 1000])
def test_blake2b_is_rfc_7693_as_hashlib_computes_it(size: int) -> None:
    data = bytes((i * 7 + size) % 256 for i in range(size))
    assert _native.blake2b_512(data) == hashlib.blake2b(data, digest_size=64).digest()


def test_the_random_deal_is_the_python_engines_for_the_same_seed() -> None:
    for seed in [*range(200), 2**32 + 5, 2**64 - 1, -1]:
        python = Game.random_duel(seed, record_events=False)
        nat = NativeGame.random_duel(seed)
        assert nat.state() == python.state(), seed
        assert nat.config_matches() and nat.legal_actions() == python.legal_actions()


def test_solo_reshuffles_draw_the_same_chance() -> None:
    """R7.7: the automaton's rebuilt deck is shuffled by the game's seeded RNG in both engines."""
    rebuilt = 0
    for seed in range(60):
        rng = random.Random(seed)
        py = start_game("solo_precon", seed, rng)
        nat = NativeGame.from_game(py)
        while not py.is_over():
            before = py.state().rng
            a = rng.choice(py.legal_actions())
            py.apply(a)
            nat.apply(a)
            assert nat.state() == py.state()
            rebuilt += py.state().rng != before
    assert rebuilt > 0, "no game reshuffled the automaton's deck: the test checks nothing"


# ------------------------------------------------------------------ the differential test


def test_random_games_in_lockstep_agree_after_every_action() -> None:
    games = int(os.environ.get("CLASH_NATIVE_CHECK_GAMES", "3000"))
    report = run_check(games, seed=20261130)
    assert report.games == games
    assert set(report.kinds) == set(KINDS)
    # The run reaches both ways a game ends here (a Fort falls; the turn cap).
    assert report.terminations["fort_rightmost"] > 0 and report.terminations["turn_cap"] > 0
    assert report.actions > 20 * games


def check_game_against(py: Game, twin: NativeGame) -> None:
    compare(py, twin, lambda: "a game with another mana")


def test_the_differential_check_finds_a_difference() -> None:
    """The lockstep comparison can fail: a game whose compiled twin was given another mana."""
    py = Game.random_duel(3, record_events=False)
    twin = NativeGame.from_state(replace(py.state(), mana=py.mana + 1))
    with pytest.raises(NativeMismatch, match="mana"):
        check_game_against(py, twin)


def test_native_check_command_reports_agreement() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "clashofdecks.native_check", "--games", "30", "--seed", "7"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "30 games" in result.stdout and "both engines agree" in result.stdout


def test_a_split_check_plays_the_same_games_as_one_process() -> None:
    from clashofdecks.native_check import run_check_parallel

    one = run_check(24, seed=500)
    split = run_check_parallel(24, 500, 2, chunk=5)
    assert (split.games, split.actions, split.kinds, split.terminations) == (
        one.games,
        one.actions,
        one.kinds,
        one.terminations,
    )


# ------------------------------------------------------------------ scenarios and reference turns


def _scenario_items() -> list[Any]:
    files = sorted(p for p in (TESTS / "scenarios").rglob("*.json") if "disputed" not in p.parts)
    files += sorted((TESTS / "data" / "reference-turns").glob("*.json"))
    out = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, item in enumerate(data if isinstance(data, list) else [data]):
            out.append(pytest.param(item, id=f"{path.stem}[{i}]"))
    return out


SCENARIOS = _scenario_items()


def _run_on_both(item: dict[str, Any]) -> str:
    """Run one scenario on both engines in lockstep; returns "setup" when the core does not cover it."""
    py = load_position(item["position"], record_events=False)
    try:
        nat = NativeGame.from_game(py)
    except NativeUnsupportedError as exc:
        assert "setup" in str(exc)
        return "setup"
    assert nat.state() == py.state()
    for text in item["actions"]:
        try:
            action = py.parse_action(text)  # the notation is Python's, before either engine
        except ActionSyntaxError:
            return "refused"
        try:
            py.apply(action)
        except IllegalActionError as exc:
            with pytest.raises(IllegalActionError) as native_exc:
                nat.apply(action)
            assert str(native_exc.value) == str(exc)
            return "refused"
        nat.apply(action)
        assert nat.state() == py.state(), text
    if "illegal" in item:
        try:
            action = py.parse_action(item["illegal"])
        except ActionSyntaxError:
            return "refused"
        before = nat.state()
        with pytest.raises(IllegalActionError):
            nat.apply(action)
        assert nat.state() == before
        return "illegal"
    final = nat.to_game(record_events=False)
    final.origin = py.origin
    diff = first_difference(item["expect"], dump_position(final, expanded=True))
    assert diff is None, diff
    return "expect"


@pytest.mark.parametrize("item", SCENARIOS)
def test_scenarios_and_reference_turns_on_the_compiled_core(item: dict[str, Any]) -> None:
    if _run_on_both(item) == "setup":
        pytest.skip("a setup-stage scenario: the compiled core starts at the first turn")


def test_every_scenario_and_reference_turn_runs_on_the_compiled_core() -> None:
    """None of them starts in the setup stage today: all 219 + 344 run on both engines."""
    kinds = [_run_on_both(p.values[0]) for p in SCENARIOS]
    assert len(kinds) >= 219 + 344 and "setup" not in kinds


# ------------------------------------------------------------------ the Game API subset


def test_apply_undo_clone_mask_and_outcome_match_the_python_engine() -> None:
    rng = random.Random(5)
    for seed in range(40):
        py = Game.random_duel(seed, record_events=False)
        nat = NativeGame.random_duel(seed)
        lines: list[int] = []
        while not py.is_over():
            assert nat.legal_action_mask() == py.legal_action_mask()
            assert (nat.current_player, nat.turn, nat.active, nat.mana, nat.phase) == (
                py.current_player,
                py.turn,
                py.active,
                py.mana,
                py.phase,
            )
            a = rng.choice(py.legal_actions())
            assert nat.is_legal(a)
            py.apply(a)
            nat.apply(a)
            lines.append(a)
        assert nat.outcome == py.outcome and nat.winner == py.winner and nat.is_over()
        copy = nat.clone()
        for a in reversed(lines):
            assert nat.undo() == a
        assert nat.state() == Game.random_duel(seed, record_events=False).state()
        assert copy.is_over() and copy.outcome == py.outcome
        with pytest.raises(IndexError):
            nat.undo()


def test_undo_records_are_bounded_as_the_python_engines() -> None:
    from clashofdecks.rules import UNDO_LIMIT

    py = Game.random_duel(2, record_events=False, ruleset=Ruleset(max_turns=10**6))
    nat = NativeGame.from_game(py)
    # END of Summoning then END of Combat: an endless game of passing turns.
    for _ in range(UNDO_LIMIT + 10):
        py.apply(0)
        nat.apply(0)
    assert nat.undo_depth == py.undo_depth < UNDO_LIMIT
    assert nat.state() == py.state()


def test_keep_undo_off_keeps_no_records() -> None:
    nat = NativeGame.random_duel(1)
    nat.keep_undo = False
    nat.apply(nat.legal_actions()[-1])
    with pytest.raises(IndexError):
        nat.undo()


def test_an_illegal_action_is_refused_with_the_python_reason_and_changes_nothing() -> None:
    nat = NativeGame.random_duel(1)
    py = Game.random_duel(1, record_events=False)
    before = nat.state()
    for action in (1, 705, 5000, -3):
        with pytest.raises(IllegalActionError) as exc:
            nat.apply(action)
        assert str(exc.value) == py.explain_illegal(action)
        assert nat.state() == before


def test_determinization_is_the_python_engines() -> None:
    """Same generator, same sample: the core draws with ``rng.getrandbits`` as ``random.Random``
    does (duel with public and with hidden identities, solo), and leaves the generator in the same
    state; both ways ``random.sample`` picks (pool and set) are reached."""
    ways = set()
    samples = 0
    for seed in range(400):
        rng = random.Random(seed)
        game = start_game(KINDS[seed % len(KINDS)], seed, rng)
        for _ in range(rng.randrange(40)):
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))
        if game.is_over():
            continue
        nat = NativeGame.from_game(game)
        for player in (0, 1):
            py_rng, nat_rng = random.Random(seed * 2 + player), random.Random(seed * 2 + player)
            expected = game.sample_determinization(player, py_rng).state()
            assert nat.sample_determinization(player, nat_rng).state() == expected, (seed, player)
            assert nat_rng.getstate() == py_rng.getstate()
            samples += 1
            if game.hidden_identities:
                state = game.state()
                opp = state.hands[1 - player]
                hidden = sum(c < 32 and not state.known[1 - player] >> c & 1 for c in opp)
                seen = {*state.hands[player], *(cr[0] for lane in state.lanes for cr in lane)}
                seen |= {c for c in opp if c < 32 and state.known[1 - player] >> c & 1}
                unseen = 32 - len({c for c in seen if c < 32})
                ways.add("pool" if unseen <= 21 + (64 if hidden > 5 else 0) else "set")
    assert samples > 500 and ways == {"pool", "set"}


def test_determinization_with_another_generator_class_is_the_python_engines() -> None:
    class Other(random.Random):
        pass

    game = Game.random_duel(8, record_events=False)
    game.apply(0)
    nat = NativeGame.from_game(game)
    assert nat.sample_determinization(0, Other(3)).state() == game.sample_determinization(0, Other(3)).state()


def test_resume_plays_the_automatons_turn_as_the_python_engine() -> None:
    """A built solo state with the automaton to play (what load_position resumes)."""
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        py = start_game("solo_draft", seed, rng)
        if py.active != 0 or py.phase != "summon":
            continue
        state = replace(py.state(), active=1, stage=SUMMON, automaton=None)
        python_game = Game(state, record_events=False)
        python_game.resume()
        nat = NativeGame.from_state(state)
        nat.resume()
        assert nat.state() == python_game.state()
        checked += 1
    assert checked > 10


def test_variants_and_threat_options_reach_the_core() -> None:
    """Every ruleset variant and threat option changes what the core does in some game."""
    variants = [
        Ruleset(lanes="rotated"),
        Ruleset(incantation_timing="summon_only"),
        Ruleset(protection="any_damage"),
        Ruleset(max_turns=3),
    ]
    for ruleset in variants:
        for seed in range(20):
            py = Game.random_duel(seed, ruleset=ruleset, record_events=False)
            nat = NativeGame.random_duel(seed, ruleset=ruleset)
            rng = random.Random(seed)
            while not py.is_over():
                a = rng.choice(py.legal_actions())
                assert nat.legal_actions() == py.legal_actions()
                py.apply(a)
                nat.apply(a)
            assert nat.state() == py.state()
    threat = Threat(base_mana=10, starts="automaton", defence="minus_one", abilities=("splash", "berserk"))
    py = Game.new(mode="solo", format="precon", seed=2, threat=threat, record_events=False)
    while py.phase == "setup":
        py.apply(py.legal_actions()[0])
    assert NativeGame.from_game(py).state() == py.state()


# ------------------------------------------------------------------ playouts inside C


def _splitmix(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def _python_replay(first_seed: int, games: int, choice_seed: int) -> tuple[int, int, int, int, int]:
    """The C playouts' games, replayed by the Python engine with the same documented choices."""
    gen = choice_seed
    actions = turns = 0
    wins = [0, 0, 0]
    for i in range(games):
        game = Game.random_duel(first_seed + i, record_events=False)
        while not game.is_over():
            legal = game.legal_actions()
            gen, bits = _splitmix(gen)
            game.apply(legal[(bits * len(legal)) >> 64])
            actions += 1
        turns += game.turn
        wins[2 if game.winner is None else game.winner] += 1
    return actions, turns, wins[0], wins[1], wins[2]


def test_playouts_inside_c_are_the_python_engines_games() -> None:
    assert random_duel_playouts(11, 300, 99) == _python_replay(11, 300, 99)


def test_native_game_playout_continues_a_game_to_its_end() -> None:
    nat = NativeGame.random_duel(4)
    nat.apply(0)
    played = nat.playout(12345)
    assert nat.is_over() and played > 0
    partial = NativeGame.random_duel(4)
    assert partial.playout(1, max_actions=3) == 3 and not partial.is_over()


def test_rollouts_inside_c_draw_the_searchs_random_stream_exactly() -> None:
    """Same generator, same rollout: the final state and the generator's state after it are equal
    to the Python loop's (agents/mcts.py's random rollout, with and without a turn limit)."""
    for seed in range(120):
        rng = random.Random(seed)
        start = start_game(KINDS[seed % len(KINDS)], seed, rng)
        for _ in range(rng.randrange(20)):
            if start.is_over():
                break
            start.apply(rng.choice(start.legal_actions()))
        limit = None if seed % 3 else start.turn + 2
        py, nat = start.clone(), NativeGame.from_game(start)
        py_rng, nat_rng = random.Random(seed), random.Random(seed)
        played = 0
        while played < 500 and not py.is_over() and (limit is None or py.turn <= limit):
            legal = py.legal_actions()
            py.apply(legal[0] if len(legal) == 1 else legal[int(py_rng.random() * len(legal))])
            played += 1
        assert nat.rollout(nat_rng.random, 500, limit) == played
        assert nat.state() == py.state() and nat_rng.getstate() == py_rng.getstate()


def test_the_search_rollout_and_the_core_rollout_agree() -> None:
    from clashofdecks.agents.mcts import MAX_ROLLOUT_ACTIONS, Search

    for seed in range(30):
        py = Game.random_duel(seed, record_events=False)
        nat = NativeGame.from_game(py)
        py_rng, nat_rng = random.Random(seed), random.Random(seed)
        Search(cutoff=None, native=False)._rollout(py, py_rng)
        nat.rollout(nat_rng.random, MAX_ROLLOUT_ACTIONS)
        assert nat.state() == py.state() and nat_rng.getstate() == py_rng.getstate()


@pytest.mark.parametrize(
    ("kind", "settings"),
    [
        ("random_duel", {"cutoff": None}),
        ("duel_draft", {}),
        ("solo_precon", {}),
        ("solo_draft", {"evaluation": "learned"}),
        ("duel_custom", {"perfect_information": True}),
    ],
)
@pytest.mark.parametrize(("rollout", "seeds", "iterations"), [("random", 3, 150), ("greedy", 2, 40)])
def test_searches_choose_identically_with_rollouts_in_the_core(
    kind: str, settings: dict[str, Any], rollout: str, seeds: int, iterations: int
) -> None:
    """Same seed, same search: ISMCTS/MCTS with random or greedy rollouts in the compiled core give
    the very same statistics as the pure-Python search (setup-stage rollouts hand over at the first
    turn); greedy rollouts cost more, hence fewer seeds and iterations."""
    from clashofdecks.agents.mcts import Search

    for seed in range(seeds):
        rng = random.Random(seed)
        game = start_game(kind, seed, rng)
        for _ in range(rng.randrange(12)):
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))
        if game.is_over():
            continue
        results = [
            Search(native=native_on, rollout=rollout, **settings).run(
                game, random.Random(seed), iterations=iterations
            )
            for native_on in (False, True)
        ]
        assert results[0].stats == results[1].stats and results[0].action == results[1].action


@pytest.mark.parametrize(("rollout", "iterations"), [("random", 60), ("greedy", 25)])
def test_searches_in_the_setup_stage_hand_rollouts_to_the_core(rollout: str, iterations: int) -> None:
    from clashofdecks.agents.mcts import Search

    game = Game.new(mode="duel", format="draft", seed=4, record_events=False)
    searches = [Search(native=on, rollout=rollout) for on in (False, True)]
    results = [search.run(game, random.Random(4), iterations=iterations) for search in searches]
    assert results[0].stats == results[1].stats


def test_a_bad_random_source_is_refused() -> None:
    nat = NativeGame.random_duel(1)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        nat.rollout(lambda: 1.5, 10)


# ------------------------------------------------------------------ what the core refuses


def test_a_core_is_never_uninitialised_and_a_refused_load_changes_nothing() -> None:
    blank = _native.Core.__new__(_native.Core)
    assert blank.legal_actions() == () and blank.current_player == -1
    assert blank.playout(1) == 0 and blank.rollout(random.random, 10) == 0
    with pytest.raises(ValueError):
        blank.apply(0)
    game = NativeGame.random_duel(3)
    core = game._core
    before = core.export()
    with pytest.raises(ValueError):
        core.__init__(core.config(), (*before[:7], (32, 5, 5), *before[8:]))
    assert core.export() == before


def test_the_setup_stage_is_refused_by_name() -> None:
    game = Game.new(mode="duel", format="draft", seed=1)
    with pytest.raises(NativeUnsupportedError, match="setup stage"):
        NativeGame.from_game(game)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"hands": ((32, 5, 5), (32, 6))}, "two places"),
        ({"hands": ((5, 6), (32, 7))}, "fortress"),
        ({"hands": (tuple([32, *range(32), 33]), (32,))}, "fortress"),
        ({"mana": 10**9}, "mana"),
        ({"rng": 1 << 100}, "rng"),
        ({"rng": -1}, "rng"),
        ({"pending": (0, (1, 2, 3, 4))}, "pending"),
        ({"deck": (3,)}, "automaton"),
    ],
)
def test_states_the_core_cannot_hold_are_refused_clearly(change: dict[str, Any], words: str) -> None:
    state = replace(Game.random_duel(1, record_events=False).state(), **change)
    with pytest.raises(NativeUnsupportedError, match=words):
        NativeGame.from_state(state)


def test_a_build_older_than_its_source_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not native._stale()
    monkeypatch.setattr(native, "SOURCE_HASH", "0" * 16)
    assert native._stale()


def test_clash_native_0_forces_pure_python() -> None:
    code = "from clashofdecks import native; print(native.AVAILABLE); print(native.engine_notice())"
    env = {**os.environ, "CLASH_NATIVE": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    available, notice = out.stdout.splitlines()
    assert available == "False" and "CLASH_NATIVE=0" in notice
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[0] == "True"
