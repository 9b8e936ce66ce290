"""The one game loop (``clashofdecks.game_loop``): what it yields and when it stops, and that every
place now stepping a game through it plays the same games as before it existed.

The pinned figures were taken from the code before the loop (each place then had a loop of its own):
the simulation runner's games (winner, turns, actions, termination, and the record's actions as a
hash), the session's agent seats and the web's AI move jobs, for fixed seeds.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from clashofdecks.events import Event
from clashofdecks.game_loop import LoopStep, game_steps, next_decision, play_out
from clashofdecks.options import Ruleset, Threat
from clashofdecks.record import GameRecord, record_game
from clashofdecks.rules import Game
from clashofdecks.session import GameSession, Seat
from clashofdecks.simulation.game import GameSpec, play_game
from clashofdecks.web.workers import agent_action

#: ``play_game`` before the loop: spec -> [winner, turns, actions, termination(, records' hash)].
SIMULATION_PINS = {
    "duel-draft-100-plain": [0, 7, 43, "fort_rightmost"],
    "duel-draft-100-records": [0, 7, 43, "fort_rightmost", "3774b9192ee1f453"],
    "solo-200-plain": [0, 18, 44, "survived_last_turn"],
    "solo-200-records": [0, 18, 44, "survived_last_turn", "741529b64d423137"],
    "precon-decks-300-plain": [1, 6, 29, "fort_rightmost"],
    "precon-decks-300-records": [1, 6, 29, "fort_rightmost", "643e4cddfc1701a7"],
    "custom-stats-400-plain": [0, 7, 36, "fort_rightmost"],
    "custom-stats-400-records": [0, 7, 36, "fort_rightmost", "d824b1934b45a714"],
    "duel-draft-101-plain": [0, 7, 48, "fort_rightmost"],
    "duel-draft-101-records": [0, 7, 48, "fort_rightmost", "5e40cf59038f5837"],
    "solo-201-plain": [1, 10, 28, "fort_rightmost"],
    "solo-201-records": [1, 10, 28, "fort_rightmost", "93f5fd21bd48a837"],
    "precon-decks-301-plain": [0, 5, 24, "fort_rightmost"],
    "precon-decks-301-records": [0, 5, 24, "fort_rightmost", "939080a80f0adf60"],
    "custom-stats-401-plain": [0, 9, 40, "fort_rightmost"],
    "custom-stats-401-records": [0, 9, 40, "fort_rightmost", "d03bb853319131b1"],
    "duel-draft-102-plain": [0, 9, 55, "fort_rightmost"],
    "duel-draft-102-records": [0, 9, 55, "fort_rightmost", "fa9f956206caf825"],
    "solo-202-plain": [0, 14, 30, "survived_last_turn"],
    "solo-202-records": [0, 14, 30, "survived_last_turn", "313c994de530522e"],
    "precon-decks-302-plain": [0, 7, 34, "fort_rightmost"],
    "precon-decks-302-records": [0, 7, 34, "fort_rightmost", "7293294836f67d33"],
    "custom-stats-402-plain": [0, 7, 35, "fort_rightmost"],
    "custom-stats-402-records": [0, 7, 35, "fort_rightmost", "7d2bbcad922a0ad6"],
    "duel-draft-103-plain": [0, 7, 37, "fort_rightmost"],
    "duel-draft-103-records": [0, 7, 37, "fort_rightmost", "1852e17eab35da90"],
    "solo-203-plain": [1, 14, 34, "fort_rightmost"],
    "solo-203-records": [1, 14, 34, "fort_rightmost", "228f2491bab50f26"],
    "precon-decks-303-plain": [1, 10, 48, "fort_rightmost"],
    "precon-decks-303-records": [1, 10, 48, "fort_rightmost", "881ee693ad3be913"],
    "custom-stats-403-plain": [1, 16, 89, "fort_rightmost"],
    "custom-stats-403-records": [1, 16, 89, "fort_rightmost", "a7925085466d5ab4"],
}

#: Sessions and AI move jobs before the loop.
SESSION_PINS = {
    "session-duel-0": [39, "1b68b30ac1942bdc"],
    "session-solo-0": [34, "81e19226eff6edf0"],
    "worker-0-0": "deck 1",
    "worker-0-5": "play TROLL top",
    "worker-0-20": "end",
    "session-duel-1": [43, "d9476df4ea2b8970"],
    "session-solo-1": [22, "6692b9be2dbd194a"],
    "worker-1-0": "deck 1",
    "worker-1-5": "play BRUTE top",
    "worker-1-20": "play BRUTE bottom",
    "session-duel-2": [99, "fc3fa8e040931e5a"],
    "session-solo-2": [39, "0c0b76f5618998ea"],
    "worker-2-0": "deck 1",
    "worker-2-5": "play BRUTE top",
    "worker-2-20": "end",
}


def _digest(actions: list[str]) -> str:
    return hashlib.sha256("\n".join(actions).encode()).hexdigest()[:16]


def _specs(seed: int) -> list[tuple[str, GameSpec]]:
    cap = Ruleset(max_turns=200)
    return [
        (
            "duel-draft",
            GameSpec(seed, "duel", "draft", 100 + seed, ("greedy", "random"), (seed, seed + 7), cap),
        ),
        (
            "solo",
            GameSpec(
                seed, "solo", "draft", 200 + seed, ("greedy", "automaton"), (seed, 0), cap, Threat.level(2)
            ),
        ),
        (
            "precon-decks",
            GameSpec(
                seed,
                "duel",
                "precon",
                300 + seed,
                ("random", "greedy"),
                (seed, 3),
                cap,
                decks=(1 + seed % 2, 3),
                coin_toss_seats=True,
            ),
        ),
        (
            "custom-stats",
            GameSpec(
                seed, "duel", "custom", 400 + seed, ("random", "random"), (seed, 1), cap, collect_stats=True
            ),
        ),
    ]


@pytest.mark.parametrize("seed", range(4))
def test_the_simulation_runner_plays_the_same_games(seed: int, tmp_path: Path) -> None:
    for name, spec in _specs(seed):
        result, game = play_game(spec)
        assert game.is_over()
        got = [result.winner, result.turns, result.actions, result.termination]
        assert got == SIMULATION_PINS[f"{name}-{spec.seed}-plain"], name
        recorded, _ = play_game(GameSpec(**{**_fields(spec), "records_dir": str(tmp_path)}))
        assert recorded.record is not None
        actions = GameRecord.load(recorded.record).actions
        pinned = SIMULATION_PINS[f"{name}-{spec.seed}-records"]
        assert [
            recorded.winner,
            recorded.turns,
            recorded.actions,
            recorded.termination,
            _digest(actions),
        ] == pinned
        assert len(actions) == recorded.actions


def _fields(spec: GameSpec) -> dict[str, object]:
    return {f: getattr(spec, f) for f in spec.__dataclass_fields__}


@pytest.mark.parametrize("seed", range(3))
def test_sessions_and_the_web_ai_jobs_play_the_same_games(seed: int) -> None:
    duel = GameSession.new(
        mode="duel",
        format="draft",
        seed=seed,
        participants=[Seat.agent_seat("greedy"), Seat.agent_seat("random")],
    )
    steps = duel.advance_agents()
    actions = duel.record().actions
    assert duel.is_over and len(steps) == len(actions)
    assert [len(actions), _digest(actions)] == SESSION_PINS[f"session-duel-{seed}"]
    solo = GameSession.new(mode="solo", format="precon", seed=seed, participants=[Seat.agent_seat("greedy")])
    solo.advance_agents()
    actions = solo.record().actions
    assert [len(actions), _digest(actions)] == SESSION_PINS[f"session-solo-{seed}"]
    record = solo.record().to_dict()
    for cut in (0, 5, 20):
        job = dict(record, actions=record["actions"][:cut], result=None)
        assert agent_action(job, "greedy", seed * 3 + cut) == SESSION_PINS[f"worker-{seed}-{cut}"]


def _first(game: Game) -> int:
    return game.legal_actions()[0]


def test_steps_are_yielded_applied_with_their_seat_and_events() -> None:
    game = Game.random_duel(seed=4)
    reference = Game.random_duel(seed=4)
    seen: list[LoopStep] = []
    for step in game_steps(game, [_first, _first], max_steps=30):
        seen.append(step)
        assert game.history[-1] == step.action  # applied before it is yielded
    assert len(seen) == 30
    for step in seen:
        assert step.seat == reference.current_player
        assert step.action == _first(reference)
        assert tuple(step.events) == tuple(reference.apply(step.action))


def test_the_loop_stops_at_a_seat_nobody_decides_for_and_resumes_there() -> None:
    game = Game.random_duel(seed=2)
    mover = game.current_player
    assert list(game_steps(game, [None, None])) == []
    deciders = [None, None]
    deciders[mover] = _first  # type: ignore[call-overload]
    played = list(game_steps(game, deciders))
    assert played and all(step.seat == mover for step in played)
    assert game.current_player == 1 - mover and not game.is_over()
    assert next_decision(game, deciders) is None
    deciders[1 - mover] = _first  # type: ignore[call-overload]
    assert next_decision(game, deciders) == (1 - mover, _first(game))
    assert len(game.history) == len(played)  # next_decision applies nothing


def test_stop_max_steps_and_apply_hook() -> None:
    game = Game.random_duel(seed=3)
    turn = game.turn
    played = list(game_steps(game, [_first, _first], stop=lambda g: g.turn != turn))
    assert played and game.turn == turn + 1
    applied: list[tuple[int, int]] = []

    def apply(seat: int, action: int) -> tuple[Event, ...]:
        applied.append((seat, action))
        return tuple(game.apply(action))

    steps = list(game_steps(game, [_first, _first], apply=apply, max_steps=3))
    assert [(s.seat, s.action) for s in steps] == applied and len(applied) == 3


def test_play_out_runs_to_the_end_and_counts() -> None:
    game = Game.random_duel(seed=5)
    rng = random.Random(5)

    def pick(g: Game) -> int:
        legal = g.legal_actions()
        return legal[rng.randrange(len(legal))]

    count = play_out(game, [pick, pick])
    assert game.is_over() and count == len(game.history)
    assert next_decision(game, [pick, pick]) is None
    assert list(game_steps(game, [pick, pick])) == []
    assert record_game(game).result is not None


def test_play_out_plays_what_the_steps_play() -> None:
    for seed in range(3):
        stepped, counted = Game.random_duel(seed=seed), Game.random_duel(seed=seed)
        deciders = [_seeded_picker(seed), _seeded_picker(seed + 50)]
        steps = list(game_steps(stepped, deciders))
        deciders = [_seeded_picker(seed), _seeded_picker(seed + 50)]
        assert play_out(counted, deciders) == len(steps)
        assert counted.history == stepped.history and counted.outcome == stepped.outcome


def _seeded_picker(seed: int) -> Callable[[Game], int]:
    rng = random.Random(seed)

    def pick(game: Game) -> int:
        legal = game.legal_actions()
        return legal[rng.randrange(len(legal))]

    return pick
