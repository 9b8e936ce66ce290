"""The search agents (``ismcts``, ``mcts``), ``hint`` and the bench hook: small budgets, fixed seeds."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clashofdecks import Game, load_position
from clashofdecks.actions import BUILD_BASE, BUILD_COUNT
from clashofdecks.agents.evaluation import chance_after
from clashofdecks.agents.mcts import (
    ISMCTSAgent,
    MCTSAgent,
    Search,
    candidate_builds,
    hint,
    ismcts_iterations_per_second,
    position_after_random_turns,
)
from clashofdecks.agents.registry import make_agent
from clashofdecks.analyze import analyze_record
from clashofdecks.cli import main
from clashofdecks.formats import SetupState, new_game
from clashofdecks.record import GameRecord, record_game


def _kind(text: str) -> str:
    return text.split()[0]


def _play_out(game: Game, agents: list[ISMCTSAgent | MCTSAgent], kinds: set[str]) -> Game:
    """Play to the end; every chosen action must be legal for the player to move."""
    while not game.is_over():
        agent = agents[game.current_player]
        action = agent.act(game)
        assert game.is_legal(action), game.action_text(action)
        kinds.add(_kind(game.action_text(action)))
        game.apply(action)
    return game


def test_registry_knows_both_search_agents() -> None:
    assert isinstance(make_agent("ismcts", 3), ISMCTSAgent)
    assert isinstance(make_agent("mcts", 3), MCTSAgent)


@pytest.mark.parametrize("cls", [ISMCTSAgent, MCTSAgent])
def test_same_seed_and_budget_give_the_same_action(cls: type[ISMCTSAgent]) -> None:
    game = position_after_random_turns(seed=3, turns=4)
    first = cls(11, iterations=150)
    second = cls(11, iterations=150)
    a = first.act(game)
    b = second.act(game)
    assert a == b
    assert first.last is not None and second.last is not None
    assert first.last.stats == second.last.stats
    assert game.is_legal(a)


def test_search_does_not_change_the_game() -> None:
    game = position_after_random_turns(seed=2)
    before = (game.hand(0), game.hand(1), game.turn, game.mana, list(game.history))
    ISMCTSAgent(1, iterations=60).act(game)
    MCTSAgent(1, iterations=60).act(game)
    assert (game.hand(0), game.hand(1), game.turn, game.mana, list(game.history)) == before


@pytest.mark.parametrize(
    ("mode", "fmt", "expected"),
    [
        ("duel", "draft", {"pick", "play", "end"}),
        ("duel", "precon", {"deck", "play", "end"}),
        ("duel", "custom", {"build", "ban", "play", "end"}),
        ("solo", "draft", {"pick", "play", "end"}),
        ("solo", "precon", {"deck", "play", "end"}),
    ],
)
def test_every_decision_kind_gets_a_legal_action(mode: str, fmt: str, expected: set[str]) -> None:
    """Draft picks, deck choices, custom builds and bans (R2.3-R2.5), play and cast (R3.3, R5), in
    duel and solo (where the automaton's turn resolves inside ``end``, R7)."""
    game = new_game(mode=mode, format=fmt, seed=4, record_events=False)
    agents = [ISMCTSAgent(1, iterations=12), MCTSAgent(2, iterations=12)]
    kinds: set[str] = set()
    _play_out(game, agents, kinds)
    assert expected <= kinds


def _pending_game() -> Game:
    """A random duel stopped at a return-order decision (R3.9)."""
    for seed in range(400):
        rng = random.Random(seed)
        game = Game.random_duel(seed, record_events=False)
        while not game.is_over():
            if game.pending is not None:
                return game
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    raise AssertionError("no return order in 400 random games")


@pytest.mark.parametrize("cls", [ISMCTSAgent, MCTSAgent])
def test_return_order_decisions_are_searched(cls: type[ISMCTSAgent]) -> None:
    """R3.9: the owner of the destroyed creatures chooses the order, even in the opponent's turn."""
    game = _pending_game()
    assert game.pending is not None
    action = cls(5, iterations=40).act(game)
    assert game.is_legal(action)
    assert game.action_text(action).startswith("order ")


def test_custom_build_candidates_are_distinct_legal_decks() -> None:
    builds = candidate_builds(random.Random(1))
    assert len(builds) == len(set(builds)) > 1
    assert all(BUILD_BASE <= b < BUILD_BASE + BUILD_COUNT for b in builds)


def _winning_cast_position() -> Game:
    """P0 in combat: BOOM (1 damage) kills P1's only top-lane creature, ZOMBIE (health 1), so the
    BRUTE's attack reaches P1, whose Fort is one place from rightmost (R3.7, R4.3).  Any other line
    loses: P1's OGRE then attacks P0's empty bottom lane and P0's Fort is also nearly rightmost."""
    return load_position(
        {
            "active": 0,
            "phase": "combat",
            "mana": 1,
            "turn": 9,
            "players": [
                {"hand": ["BOOM", "FORT", "VORTEX"], "lanes": {"top": ["BRUTE"], "bottom": []}},
                {"hand": ["GNOME", "FORT", "SHAMAN"], "lanes": {"top": ["ZOMBIE"], "bottom": ["OGRE"]}},
            ],
        },
        record_events=False,
    )


@pytest.mark.parametrize("cls", [MCTSAgent, ISMCTSAgent])
def test_search_finds_the_winning_cast(cls: type[ISMCTSAgent]) -> None:
    game = _winning_cast_position()
    agent = cls(0, iterations=300)
    action = agent.act(game)
    assert game.action_text(action) == "cast BOOM 1.top.0"
    assert agent.last is not None and agent.last.win_chance > 0.95
    game.apply(action)
    game.apply_text("end")
    assert game.winner == 0


def _swap_hidden(hand: list[str]) -> list[str]:
    return [hand[0], *reversed(hand[1:])]


def test_ismcts_never_reads_the_opponents_hidden_hand() -> None:
    """R9.2: the order of the opponent's hand is hidden, so ISMCTS's decision (and its whole root
    statistics) must be the same for two games that differ only there; MCTS, which sees it, may
    differ (it is not asserted)."""
    hands = [
        ["OGRE", "BOOM", "GRRR", "SHAMAN", "BRUTE", "ZOMBIE", "VORTEX", "REPTILE"],
        ["TROLL", "MICROCTOPUS", "ASSASSIN", "COMBUSTION", "MACHINE", "LIEUTENANT", "BARON", "GNOME"],
    ]
    one = Game.from_hands(hands, record_events=False)
    two = Game.from_hands([hands[0], list(reversed(hands[1]))], record_events=False)
    assert one.hand(1) != two.hand(1)
    a1, a2 = ISMCTSAgent(7, iterations=200), ISMCTSAgent(7, iterations=200)
    assert a1.act(one) == a2.act(two)
    assert a1.last is not None and a2.last is not None
    assert a1.last.stats == a2.last.stats


def test_ismcts_never_reads_the_automaton_deck_order(
    make_solo_position: Callable[..., dict[str, Any]],
) -> None:
    """R9.2: in solo the automaton deck's order is the hidden chance."""
    pos = make_solo_position(random.Random(3))
    other = {**pos, "players": [pos["players"][0], dict(pos["players"][1])]}
    deck = pos["players"][1]["deck"]
    other["players"][1]["deck"] = [*reversed(deck[:-1]), deck[-1]]
    one = load_position(pos, record_events=False)
    two = load_position(other, record_events=False)
    a1, a2 = ISMCTSAgent(4, iterations=150), ISMCTSAgent(4, iterations=150)
    assert a1.act(one) == a2.act(two)
    assert a1.last is not None and a2.last is not None
    assert a1.last.stats == a2.last.stats


def test_hint_gives_a_legal_action_and_a_chance() -> None:
    game = _winning_cast_position()
    action, chance = hint(game, seconds=0.3)
    assert game.action_text(action) == "cast BOOM 1.top.0"
    # The learned evaluation's chance after the winning cast, well above the chance after "end".
    assert 0.75 < chance <= 1.0
    assert chance > chance_after(game, 0, game.parse_action("end")) + 0.5


def test_search_budget_and_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        ISMCTSAgent(0, iterations=0)
    with pytest.raises(ValueError):
        ISMCTSAgent(0, iterations=None, seconds=None)
    with pytest.raises(ValueError):
        Search(rollout="perfect")
    for mix in (-0.1, 1.5):
        with pytest.raises(ValueError, match="mix"):
            Search(mix=mix)
    seconds_agent = ISMCTSAgent(0, iterations=None, seconds=0.05)
    game = position_after_random_turns(seed=1)
    assert game.is_legal(seconds_agent.act(game))


def test_greedy_rollouts_are_legal_and_deterministic() -> None:
    game = position_after_random_turns(seed=5)
    a = ISMCTSAgent(3, iterations=8, rollout="greedy").act(game)
    b = ISMCTSAgent(3, iterations=8, rollout="greedy").act(game)
    assert a == b and game.is_legal(a)


@pytest.mark.parametrize(("fmt", "native"), [("draft", False), ("precon", False), ("draft", None)])
def test_greedy_rollouts_from_the_setup_choose_setup_actions_at_random(fmt: str, native: bool | None) -> None:
    """Setup picks are not positions the heuristic can score (no fortress in hand yet): greedy
    rollouts take them at random and score the play phase (before, this raised ValueError)."""
    game = Game.new(mode="duel", format=fmt, seed=4, record_events=False)
    result = Search(rollout="greedy", native=native).run(game, random.Random(4), iterations=12)
    assert game.is_legal(result.action) and result.iterations == 12


def test_bench_hook_counts_iterations() -> None:
    rate = ismcts_iterations_per_second(seed=1, iterations=50)
    assert rate > 0


# ---------------------------------------------------------------------------- clash analyze


def _thrown_game_record(tmp_path: Path) -> Path:
    """P0 ends its combat instead of casting the winning BOOM; P1's OGRE then wins (R4.3)."""
    game = _winning_cast_position()
    for text in ("end", "end", "end"):
        game.apply_text(text)
    assert game.winner == 1
    path = tmp_path / "thrown.json"
    record_game(game, ["p0", "p1"]).save(path)
    return path


def test_analyze_flags_the_thrown_win(tmp_path: Path) -> None:
    record = GameRecord.load(_thrown_game_record(tmp_path))
    analysis = analyze_record(record, iterations=200, seed=1)
    worst = analysis.mistakes(top=1)
    assert len(worst) == 1
    mistake = worst[0]
    assert (mistake.index, mistake.player, mistake.action) == (0, 0, "end")
    assert mistake.best_action == "cast BOOM 1.top.0"
    # Chances by the learned evaluation (a calibrated model, not a proof): clearly won vs clearly lost.
    assert mistake.best is not None and mistake.best > 0.75 and mistake.after < 0.25
    assert mistake.loss > 0.5
    # Player 0's chance after the last turn is the result: lost.
    assert analysis.turns[-1].p0_win_chance == 0.0
    assert [t.turn for t in analysis.turns] == [9, 10]


def test_cli_analyze(tmp_path: Path) -> None:
    path = _thrown_game_record(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["analyze", str(path), "--iterations", "150", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mistakes"][0]["action"] == "end"
    text = runner.invoke(main, ["analyze", str(path), "--iterations", "150"])
    assert text.exit_code == 0 and "cast BOOM 1.top.0" in text.output
    missing = runner.invoke(main, ["analyze", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "Traceback" not in missing.output


def test_ismcts_never_reads_the_face_down_draft_pile() -> None:
    """R2.4: the draft pile is face down for both players; only its order differs here (set
    through the private setup state, as no public call builds such a pair)."""
    game = new_game(mode="duel", format="draft", seed=3, record_events=False)
    other = game.clone()
    st = other._setup
    assert isinstance(st, SetupState)
    other._setup = dataclasses.replace(st, pool=tuple(reversed(st.pool)))
    a1, a2 = ISMCTSAgent(2, iterations=60), ISMCTSAgent(2, iterations=60)
    assert a1.act(game) == a2.act(other)
    assert a1.last is not None and a2.last is not None
    assert a1.last.stats == a2.last.stats
