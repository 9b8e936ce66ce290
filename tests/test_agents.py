"""Baseline agents: ``random`` and ``greedy`` (legality on every decision kind, seeding, fairness,
finding a winning move) and the agent registry."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from clashofdecks import Game, dump_position, load_position, sample_determinization, view
from clashofdecks.actions import (
    BAN_BASE,
    BUILD_BASE,
    CAST_BASE,
    DECK_BASE,
    END,
    NEXT,
    ORDER_BASE,
    PICK_BASE,
    PLAY_BASE,
)
from clashofdecks.agents.base import Agent, NoDecisionError, is_build_stage
from clashofdecks.agents.greedy import (
    CARD_RANKING,
    GreedyAgent,
    card_value,
    evaluate,
    fortress_after,
    incoming_hits,
)
from clashofdecks.agents.random_agent import RandomAgent
from clashofdecks.agents.registry import UnknownAgentError, known_agents, make_agent, register_agent
from clashofdecks.cards import CARD_IDS, CARD_INDEX
from clashofdecks.formats import new_game
from clashofdecks.options import Threat
from random_play import play_randomly


def kind(game: Game, action: int) -> str:
    """The decision kind of ``action`` (its verb)."""
    if game.pending is not None:
        return "order"
    if game.phase == "setup" and action >= BUILD_BASE:
        return "build"
    return game.action_text(action).split()[0]


def play_checked(game: Game, agents: list[Agent], kinds: Counter[str]) -> Game:
    """Play to the end, checking every action is legal and that ``act`` leaves the game unchanged."""
    while not game.is_over():
        player = game.current_player
        before = dump_position(game, expanded=True) if game.phase != "setup" else None
        history = game.history
        action = agents[player].act(game)
        assert game.is_legal(action), f"{agents[player].name} chose illegal {action}"
        if before is not None:
            assert dump_position(game, expanded=True) == before, "act() changed the game"
        assert game.history == history
        kinds[(agents[player].name, kind(game, action))] += 1  # type: ignore[index]
        game.apply(action)
    return game


ALL_KINDS = {"play", "cast", "next", "end", "order", "pick", "deck", "build", "ban"}


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_agent_makes_only_legal_choices_on_every_decision_kind(name: str) -> None:
    """Both agents decide every kind of decision (R2 setup: pick, deck, build, ban; R3 play, cast,
    next, end; R3.9 order) legally, in duel and solo, without touching the game."""
    kinds: Counter[tuple[str, str]] = Counter()  # type: ignore[assignment]
    for seed in range(24):
        for mode, fmt in (("duel", "draft"), ("duel", "precon"), ("duel", "custom"), ("solo", "draft")):
            if mode == "solo" and seed % 3:
                continue
            game = new_game(mode=mode, format=fmt, seed=seed, record_events=False)
            me = make_agent(name, seed)
            other = RandomAgent(seed + 1000)
            agents: list[Agent] = [me, other] if seed % 2 == 0 else [other, me]
            play_checked(game, agents, kinds)  # type: ignore[arg-type]
    seen = {k for (who, k) in kinds if who == name}
    assert seen == ALL_KINDS, f"{name} never faced: {ALL_KINDS - seen}"


def test_random_agent_is_seeded() -> None:
    def line(seed: int) -> list[int]:
        game = Game.random_duel(5, record_events=False)
        agent = RandomAgent(seed)
        out = []
        while not game.is_over():
            a = agent.act(game)
            out.append(a)
            game.apply(a)
        return out

    assert line(1) == line(1)
    assert line(1) != line(2)
    # reset() reseeds: the same agent object replays the same line.
    agent = RandomAgent(99)
    agent.reset(1)
    game = Game.random_duel(5, record_events=False)
    assert agent.act(game) == line(1)[0]


def test_random_agent_is_uniform_over_legal_actions() -> None:
    game = Game.random_duel(3, record_events=False)
    legal = game.legal_actions()
    agent = RandomAgent(0)
    counts = Counter(agent.act(game) for _ in range(200 * len(legal)))
    assert set(counts) == set(legal)
    assert min(counts.values()) > 120  # each expected 200 times


def test_agents_refuse_a_finished_game() -> None:
    game = Game.random_duel(1, record_events=False)
    rng = random.Random(0)
    play_randomly(game, rng)
    for agent in (RandomAgent(0), GreedyAgent(0)):
        with pytest.raises(NoDecisionError, match="over"):
            agent.act(game)


# A position where exactly one first action wins at once: player 1's Fort has 1 place left and a
# Zombie (health 1) blocks the top lane.  Brute attacking would only destroy the Zombie (excess
# damage is lost, R3.8) and the Zombie's return heals player 1 by one place (R4.4).  Casting BOOM
# on the Zombie first (R5.3) clears the lane: Brute then deals 5 to a Fort 2 places from the right.
WINNING_CAST = {
    "active": 0,
    "phase": "summon",
    "mana": 3,
    "turn": 5,
    "players": [
        {"hand": ["BASTION", "BOOM", "BARON", "OGRE"], "lanes": {"top": ["BRUTE"], "bottom": []}},
        {"hand": ["FORT", "TROLL"], "lanes": {"top": ["ZOMBIE"], "bottom": []}},
    ],
}


def test_greedy_takes_the_winning_line_r5_r3_8() -> None:
    """R5.3/R3.8/R4.3: greedy finds the only first action after which its turn wins."""
    game = load_position(WINNING_CAST)
    assert "cast BOOM 1.top.0" in game.legal_action_texts()
    # The cast is the only first action after which the default rest of the turn (end, end) wins.
    winners = []
    for action in game.legal_actions():
        check = game.clone()
        check.apply(action)
        while not check.is_over() and check.turn == game.turn:
            check.apply(check.legal_actions()[0])
        if check.winner == 0:
            winners.append(game.action_text(action))
    assert winners == ["cast BOOM 1.top.0"]
    for seed in range(5):
        action = GreedyAgent(seed).act(game)
        assert game.action_text(action) == "cast BOOM 1.top.0"
    game.apply_text("cast BOOM 1.top.0")
    game.apply_text("end")
    game.apply_text("end")
    assert game.winner == 0


def test_greedy_wins_at_once_in_combat_r4_3() -> None:
    """R4.3: with a Fort 2 places from the right and an open lane, every greedy line attacks and wins."""
    game = load_position(
        {
            "active": 0,
            "phase": "combat",
            "mana": 0,
            "players": [
                {"hand": ["BASTION", "BOOM", "GRRR"], "lanes": {"top": ["OGRE"], "bottom": []}},
                {"hand": ["GNOME", "FORT", "TROLL", "BRUTE"], "lanes": {"top": [], "bottom": ["BARON"]}},
            ],
        }
    )
    agent = GreedyAgent(0)
    while not game.is_over() and game.current_player == 0:
        game.apply(agent.act(game))
    assert game.winner == 0


def test_greedy_orders_returns_r3_9() -> None:
    """R3.9: greedy chooses a return order when its creatures die together (a pending decision)."""
    game = load_position(
        {
            "active": 0,
            "phase": "combat",
            "mana": 0,
            "players": [
                {"hand": ["BASTION", "BOOM", "ZOMBIE"], "lanes": {"top": ["BRIGAND"], "bottom": []}},
                {
                    "hand": ["BASTION", "OGRE", "TROLL"],
                    "lanes": {"top": ["GNOME"], "bottom": ["MICROCTOPUS"]},
                },
            ],
        }
    )
    game.apply_text("next")
    assert game.current_player == 1 and game.pending is not None
    action = GreedyAgent(0).act(game)
    assert ORDER_BASE <= action < ORDER_BASE + 2 and game.is_legal(action)


def test_greedy_decision_ignores_hidden_cards_r9() -> None:
    """R9: greedy's choice is the same whatever the order of the opponent's hidden cards."""
    rng = random.Random(4)
    differing = 0
    for seed in range(12):
        game = Game.random_duel(seed, record_events=False)
        for _ in range(rng.randrange(3, 30)):
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))
        if game.is_over():
            continue
        me = game.current_player
        # Another true state with the same view: the hidden cards of the opponent's hand placed
        # differently (sample_determinization keeps every card whose place is public).
        other = sample_determinization(game, me, random.Random(seed))
        assert view(other, me) == view(game, me)
        differing += dump_position(other) != dump_position(game)
        assert GreedyAgent(seed).act(game) == GreedyAgent(seed).act(other)
    assert differing >= 6  # the check compared genuinely different hidden arrangements


def test_greedy_setup_choices() -> None:
    """R2.3-R2.5: greedy drafts the strongest revealed card, takes the best deck, builds its ten
    best-ranked cards and removes the opponent's strongest card."""
    game = new_game(mode="duel", format="draft", seed=3)
    legal = game.legal_actions()
    pick = GreedyAgent(0).act(game)
    assert pick == max(legal, key=lambda a: card_value(a - PICK_BASE))

    game = new_game(mode="duel", format="precon", seed=3)
    deck = GreedyAgent(0).act(game)
    assert DECK_BASE + 1 <= deck <= DECK_BASE + 4

    game = new_game(mode="duel", format="custom", seed=3)
    assert is_build_stage(game)
    build = GreedyAgent(0).act(game)
    assert game.is_legal(build)
    built = set(game.action_text(build).split()[1:])
    assert built == {CARD_IDS[c] for c in CARD_RANKING[:10]}
    game.apply(build)
    game.apply(RandomAgent(1).act(game))  # the other build
    assert not is_build_stage(game)
    ban = GreedyAgent(0).act(game)
    assert BAN_BASE <= ban < BUILD_BASE
    legal = game.legal_actions()
    assert ban == max(legal, key=lambda a: card_value(a - BAN_BASE))


def test_card_ranking_is_sensible() -> None:
    """The static ranking puts strong cheap cards above weak ones (a sanity check of card_value)."""
    assert card_value(CARD_INDEX["ALPHA"]) > card_value(CARD_INDEX["MACHINE"])
    assert card_value(CARD_INDEX["MARTYR"]) > card_value(CARD_INDEX["VORTEX"])
    assert sorted(CARD_RANKING) == list(range(32))


def test_incoming_hits_and_fortress_after_r3_7_r4_2() -> None:
    """The heuristic's combat estimate: blockers absorb attacks, excess is lost (R3.8), Berserk
    attacks again after a kill (R6.6), a Bastion that falls loses the rest of that attack (R4.2)."""
    game = load_position(
        {
            "active": 0,
            "phase": "summon",
            "mana": 0,
            "players": [
                {"hand": ["BASTION", "BOOM"], "lanes": {"top": ["OGRE", "BARON"], "bottom": ["ZOMBIE"]}},
                {"hand": ["BASTION", "GNOME", "TROLL", "BRUTE"], "lanes": {"top": ["GRRR"], "bottom": []}},
            ],
        }
    )
    lanes: list[list[tuple[int, int, bool, bool, bool, int]]] = [[], [], [], []]
    for p, lane, _pos, cr in game.creatures():
        lanes[p * 2 + lane].append(cr)
    # Baron (3) kills Grrr (health 3); Ogre (4, Berserk) then has an empty lane: 4; Zombie: 3.
    assert incoming_hits(lanes, 0) == [4, 3]
    # Player 1's Grrr (1) meets Ogre: absorbed.
    assert incoming_hits(lanes, 1) == []
    # Bastion 3 places from the right: 4 makes it fall (rest lost), the Fort is leftmost with
    # 3 places; 3 more pushes it to the right end: lost.
    assert fortress_after(True, 3, 4, [4, 3]) is None
    assert fortress_after(True, 3, 4, [4, 2]) == (False, 1)
    assert fortress_after(False, 5, 6, [4]) == (False, 1)


def test_evaluate_is_nearly_antisymmetric_and_scores_wins() -> None:
    game = Game.random_duel(8, record_events=False)
    rng = random.Random(1)
    for _ in range(20):
        game.apply(rng.choice(game.legal_actions()))
    # Only the evaluating player's own hand quality is counted (the other hand is hidden, R9), so
    # the two scores are opposite up to those terms.
    assert abs(evaluate(game, 0) + evaluate(game, 1)) < 5
    play_randomly(game, rng)
    w = game.winner
    assert w is not None
    assert evaluate(game, w) > 1e8 and evaluate(game, 1 - w) < -1e8


# ---------------------------------------------------------------------------- registry


def test_registry_knows_the_baselines_and_lists_names_on_error() -> None:
    assert {"random", "greedy"} <= set(known_agents())
    assert isinstance(make_agent("random", 1), RandomAgent)
    assert isinstance(make_agent("greedy", 1), GreedyAgent)
    with pytest.raises(UnknownAgentError, match=r"unknown agent 'nobody'.*greedy.*random"):
        make_agent("nobody", 0)
    with pytest.raises(UnknownAgentError, match="only for clash play"):
        make_agent("human", 0)


def test_register_agent() -> None:
    class Ender(Agent):
        name = "test-ender"

        def __init__(self, seed: int | None = 0) -> None:
            self.seed = seed

        def act(self, game: Game) -> int:
            legal = game.legal_actions()
            return END if END in legal else legal[0]

    register_agent("test-ender", Ender)
    agent = make_agent("test-ender", 7)
    assert isinstance(agent, Ender) and agent.seed == 7
    with pytest.raises(ValueError, match="already registered"):
        register_agent("test-ender", lambda s: Ender(s))
    with pytest.raises(ValueError, match="reserved"):
        register_agent("human", Ender)


def test_action_layout_constants_used_by_kind() -> None:
    # kind() above relies on the layout; keep it honest.
    assert END == 0 and NEXT == 1 and PLAY_BASE == 2 and CAST_BASE > PLAY_BASE


def test_solo_threat_abilities_do_not_break_greedy() -> None:
    """R8.2: with threat abilities the automaton's creatures count them; greedy still plays legally."""
    threat = Threat(base_mana=7, abilities=("splash", "rage"))
    kinds: Counter[tuple[str, str]] = Counter()  # type: ignore[assignment]
    for seed in range(3):
        game = new_game(mode="solo", format="draft", seed=seed, threat=threat, record_events=False)
        play_checked(game, [GreedyAgent(seed), RandomAgent(0)], kinds)  # type: ignore[arg-type]
    assert kinds
