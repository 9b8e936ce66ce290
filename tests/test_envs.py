"""Research environments (issue 11): the observation encoding (R9: a seat's view only), the Gymnasium
and PettingZoo environments, and each library's own conformance checks.

Skipped as a whole when the rl extra is not installed (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("PIL")  # the rl extra's Pillow: the check_env tests render rgb_array boards

from clashofdecks import actions as A  # noqa: E402
from clashofdecks.agents.random_agent import RandomAgent  # noqa: E402
from clashofdecks.cards import CARD_INDEX, N_CARDS  # noqa: E402
from clashofdecks.envs.encoding import (  # noqa: E402
    CARD_KINDS,
    CREATURE_FEATURES,
    INFOSTATE_LAYOUT,
    LANE_CAP,
    OBSERVATION_LAYOUT,
    encode_infostate,
    encode_observation,
    legal_mask,
)
from clashofdecks.envs.match import Match  # noqa: E402
from clashofdecks.errors import IllegalActionError  # noqa: E402
from clashofdecks.formats import start_game  # noqa: E402
from clashofdecks.options import Ruleset, Threat  # noqa: E402
from clashofdecks.position import HIDDEN, view  # noqa: E402
from clashofdecks.rules import Game  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs" / "envs.md"
GAMES = [
    ("duel", "draft", None),
    ("duel", "precon", None),
    ("duel", "custom", None),
    ("duel", "random", None),
    ("solo", "draft", Threat.level(0)),
    ("solo", "precon", Threat.level(5)),
    ("solo", "draft", Threat(extra_mana_per_creature=2, abilities=("splash", "rage", "berserk"))),
]


def _positions(mode: str, fmt: str, threat: Threat | None, seed: int) -> list[Game]:
    """Every position of one random game (setup and play, pending orders included), as copies."""
    game = start_game(mode=mode, format=fmt, seed=seed, threat=threat, record_events=False)
    agent = RandomAgent(seed)
    out = [game.clone()]
    while not game.is_over():
        game.apply(agent.act(game))
        out.append(game.clone())
    return out


def _slice(obs: Any, name: str) -> Any:
    return OBSERVATION_LAYOUT.split(obs)[name]


# ---------------------------------------------------------------------------- the encoding (R9)


def test_layout_slices_are_contiguous_and_documented() -> None:
    start = 0
    for name, sl in OBSERVATION_LAYOUT.slices.items():
        assert sl.start == start, name
        start = sl.stop
    assert OBSERVATION_LAYOUT.size == start
    assert list(INFOSTATE_LAYOUT.slices)[: len(OBSERVATION_LAYOUT.slices)] == list(OBSERVATION_LAYOUT.slices)
    text = DOCS.read_text(encoding="utf-8")
    for name, sl in INFOSTATE_LAYOUT.slices.items():
        row = re.search(
            rf"^\| `{name}` \| {sl.start} \| \({', '.join(map(str, sl.shape))},?\) \|", text, re.M
        )
        assert row, f"docs/envs.md has no row for slice {name!r} at {sl.start} with shape {sl.shape}"
    assert f"{OBSERVATION_LAYOUT.size} floats" in text and f"{INFOSTATE_LAYOUT.size} floats" in text


@pytest.mark.parametrize(("mode", "fmt", "threat"), GAMES)
def test_states_a_seat_cannot_tell_apart_encode_identically(
    mode: str, fmt: str, threat: Threat | None
) -> None:
    """R9: determinizations for a seat (hidden cards, the draft pile, the automaton deck's order and
    future chance refilled at random) encode identically for that seat, and the test is not vacuous:
    the same samples often differ for the other seat."""
    rng = random.Random(7)
    differs_for_other = 0
    checked = 0
    for seed in range(2):
        for game in _positions(mode, fmt, threat, seed):
            if game.is_over():
                continue
            for seat in (0, 1):
                if mode == "solo" and seat == 1:
                    continue
                mine = encode_observation(game, seat)
                for _ in range(2):
                    sample = game.sample_determinization(seat, rng)
                    np.testing.assert_array_equal(encode_observation(sample, seat), mine)
                    checked += 1
                    if mode == "duel" and not np.array_equal(
                        encode_observation(sample, 1 - seat), encode_observation(game, 1 - seat)
                    ):
                        differs_for_other += 1
    assert checked > 50
    if mode == "duel":
        assert differs_for_other > 0


def _from_view(game: Game, seat: int) -> dict[str, Any]:
    """Slices rebuilt from the view JSON alone (the reference the fast encoder must agree with)."""
    v = view(game, seat)
    opp = 1 - seat
    out: dict[str, Any] = {}
    players = v["players"]
    hand_me = np.zeros((9, CARD_KINDS), dtype=np.float32)
    for i, card in enumerate(players[seat].get("hand", [])):
        hand_me[i, CARD_INDEX[card]] = 1
    out["hand_me"] = hand_me
    if not players[opp].get("automaton"):
        hand_opp = np.zeros((9, CARD_KINDS + 1), dtype=np.float32)
        for i, card in enumerate(players[opp].get("hand", [])):
            hand_opp[i, CARD_KINDS if card == HIDDEN else CARD_INDEX[card]] = 1
        out["hand_opp"] = hand_opp
        hidden = np.zeros(N_CARDS, dtype=np.float32)
        for card in players[opp].get("hidden_cards", []):
            hidden[CARD_INDEX[card]] = 1
        out["opp_hidden_cards"] = hidden
    else:
        deck = np.zeros(N_CARDS, dtype=np.float32)
        for card in players[opp].get("hidden_cards", []):
            deck[CARD_INDEX[card]] = 1
        out["automaton_deck"] = deck
        discard = np.zeros(N_CARDS, dtype=np.float32)
        for card in players[opp]["discard"]:
            discard[CARD_INDEX[card]] = 1
        out["automaton_discard"] = discard
    lanes = np.zeros((2, 2, LANE_CAP, CREATURE_FEATURES), dtype=np.float32)
    for k, p in enumerate((seat, opp)):
        for ln, lane in enumerate(("top", "bottom")):
            for i, cr in enumerate(players[p]["lanes"][lane][:LANE_CAP]):
                card = cr if isinstance(cr, str) else cr["card"]
                lanes[k, ln, i, 0] = 1
                lanes[k, ln, i, 1 + CARD_INDEX[card]] = 1
                damage = 0 if isinstance(cr, str) else cr.get("damage", 0)
                lanes[k, ln, i, 1 + N_CARDS] = damage / 10
    out["lanes_cards"] = lanes[..., : 2 + N_CARDS]
    out["mana"] = np.array([v["mana"] / 10], dtype=np.float32)
    if "setup" in v:
        revealed = np.zeros(N_CARDS, dtype=np.float32)
        for card in v["setup"]["revealed"]:
            revealed[CARD_INDEX[card]] = 1
        out["setup_revealed"] = revealed
    return out


@pytest.mark.parametrize(("mode", "fmt", "threat"), GAMES)
def test_encoding_agrees_with_the_view(mode: str, fmt: str, threat: Threat | None) -> None:
    for game in _positions(mode, fmt, threat, seed=3)[::3]:
        for seat in (0,) if mode == "solo" else (0, 1):
            parts = OBSERVATION_LAYOUT.split(encode_observation(game, seat))
            for name, expected in _from_view(game, seat).items():
                got = parts["lanes"][..., : 2 + N_CARDS] if name == "lanes_cards" else parts[name]
                np.testing.assert_allclose(got, expected, atol=1e-6, err_msg=f"{name} ({game.phase})")


def test_encoding_bounds_and_mask_agree_with_the_engine() -> None:
    for mode, fmt, threat in GAMES:
        for game in _positions(mode, fmt, threat, seed=5):
            for seat in (0, 1):
                obs = encode_observation(game, seat)
                assert obs.dtype == np.float32 and obs.shape == (OBSERVATION_LAYOUT.size,)
                assert obs.min() >= 0 and obs.max() <= 64
                mask = legal_mask(game, seat)
                if game.is_over() or game.current_player != seat or isinstance(game.legal_actions(), range):
                    assert not mask.any()
                else:
                    assert sorted(np.flatnonzero(mask)) == sorted(game.legal_actions())


def test_lane_beyond_the_cap_is_counted() -> None:
    """A lane longer than LANE_CAP (the rules set no limit, R3.3) keeps its first creatures from the
    bridge and its true count."""
    from clashofdecks.cards import CARDS
    from clashofdecks.position import dump_position, load_position

    pos = dump_position(Game.from_hands([["OGRE"], ["GNOME"]]))
    creatures = [c.id for c in CARDS if c.is_creature and c.id not in ("OGRE", "GNOME")][: LANE_CAP + 2]
    pos["players"][1]["lanes"]["top"] = creatures
    parts = OBSERVATION_LAYOUT.split(encode_observation(load_position(pos), 0))
    assert parts["lane_sizes"][1, 0] == pytest.approx((LANE_CAP + 2) / LANE_CAP)
    assert parts["lanes"][1, 0, :, 0].sum() == LANE_CAP
    assert parts["lanes"][1, 0, 0, 1 + CARD_INDEX[creatures[0]]] == 1
    assert parts["lanes"][1, 0, LANE_CAP - 1, 1 + CARD_INDEX[creatures[LANE_CAP - 1]]] == 1


def test_infostate_is_perfect_recall_and_view_only() -> None:
    match = Match(mode="duel", format="draft", seed=4, ruleset=Ruleset(max_turns=100))
    agent = RandomAgent(4)
    rng = random.Random(1)
    seen: set[bytes] = set()
    while not match.over:
        for seat in (0, 1):
            mine = encode_infostate(match.game, seat, match.dealt[seat], match.history)
            assert mine.shape == (INFOSTATE_LAYOUT.size,)
            sample = match.game.sample_determinization(seat, rng)
            again = encode_infostate(sample, seat, match.dealt[seat], match.history)
            np.testing.assert_array_equal(again, mine)
            if seat == 0:
                key = mine.tobytes()
                assert key not in seen  # every decision adds to the history: no two states alike
                seen.add(key)
        match.apply(agent.act(match.game))
    assert match.dealt[0] is not None and len(match.dealt[0]) == 9


def test_the_environments_read_the_engine_only_through_its_public_api() -> None:
    """The encoder reads a game through ``Game.fields()`` and public properties, never a private
    field (``game._turn``): the engine may rename its internals freely."""
    import ast

    reads: list[str] = []
    for path in sorted(
        (Path(__file__).resolve().parent.parent / "src" / "clashofdecks" / "envs").glob("*.py")
    ):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                reads.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert not reads, "\n".join(reads)


def test_game_fields_are_the_games_own_and_match_its_state() -> None:
    """``Game.fields()`` (no copies) says what ``Game.state()`` (copies) says, along whole games."""
    for mode, fmt, threat in GAMES:
        for game in _positions(mode, fmt, threat, seed=6)[::4]:
            f, st = game.fields(), game.state()
            assert (f.solo, f.stage, f.turn, f.active, f.mana) == (
                st.solo,
                st.stage,
                st.turn,
                st.active,
                st.mana,
            )
            assert f.max_turns == st.ruleset.max_turns and f.hidden_identities == st.hidden_identities
            assert tuple(map(tuple, f.hands)) == st.hands and tuple(f.known) == st.known
            assert tuple(map(tuple, f.lanes)) == st.lanes and f.pending == st.pending
            assert (tuple(f.deck), tuple(f.discard), f.last_turn) == (st.deck, st.discard, st.last_turn)
            for p in (0, 1):
                if f.hands[p] or (f.solo and p == 1):  # no fortress before the deal
                    assert (game.fortress(p)[0] == "FORT") == f.fort[p]


# ---------------------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("ClashOfDecks/Solo-v1", {"level": 2}),
        ("ClashOfDecks/Solo-v1", {"level": 0, "format": "precon", "observation": "infostate"}),
        ("ClashOfDecks/Duel-v1", {"opponent": "greedy", "format": "precon"}),
        ("ClashOfDecks/Duel-v1", {"opponent": "random", "format": "custom"}),
        ("ClashOfDecks/Solo-v0", {"level": 2, "illegal_action": "penalty"}),
        ("ClashOfDecks/Duel-v0", {"opponent": "random", "illegal_action": "penalty"}),
    ],
)
def test_gymnasium_check_env_passes_silently(env_id: str, kwargs: dict[str, Any]) -> None:
    """Gymnasium's own checker (it steps random actions: -v1 gives them the penalty by default, -v0
    needs the option), and PassiveEnvChecker silent over a whole game."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Gymnasium's notice that a newer version of an id exists (the only warning -v0 gives).
        warnings.filterwarnings("ignore", ".*is out of date", DeprecationWarning)
        env = gym.make(env_id, **kwargs)
        check_env(env.unwrapped)
        _, info = env.reset(seed=11)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, reward, terminated, truncated, info = env.step(int(legal[0]))
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
        env.close()


def test_gymnasium_seeding_reproduces_a_game() -> None:
    def play(seed: int) -> list[bytes]:
        env = gym.make("ClashOfDecks/Duel-v0", opponent="greedy")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs.tobytes()]
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            obs, _, terminated, truncated, info = env.step(rng.choice(legal))
            out.append(obs.tobytes())
            done = terminated or truncated
        return out

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_an_environment_game_is_a_replayable_record() -> None:
    from clashofdecks.record import GameRecord, replay

    env = gym.make("ClashOfDecks/Duel-v0", opponent="greedy", format="custom").unwrapped
    _, info = env.reset(seed=8)
    rng = np.random.default_rng(8)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
    record = env.record()
    assert record.players[env.seat] == "learner" and record.result is not None
    again = replay(GameRecord.from_dict(record.to_dict()))
    assert again.history == env.game.history and again.outcome == env.game.outcome


def test_illegal_action_is_an_error_or_a_penalty_never_remapped() -> None:
    env = gym.make("ClashOfDecks/Solo-v0").unwrapped
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game.history
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.game.history == before
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(A.ACTION_SPACE)
    env = gym.make("ClashOfDecks/Solo-v0", illegal_action="penalty", illegal_penalty=-0.5).unwrapped
    obs, info = env.reset(seed=1)
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == -0.5 and info2["illegal_action"] and not terminated and not truncated
    np.testing.assert_array_equal(obs, obs2)
    assert env.game.history == []


def test_action_masks_for_maskable_ppo_and_info_mask_agree() -> None:
    env = gym.make("ClashOfDecks/Duel-v0", format="precon").unwrapped
    _, info = env.reset(seed=2)
    masks = env.action_masks()
    assert masks.dtype == bool and masks.shape == (A.ACTION_SPACE,)
    np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
    assert sorted(np.flatnonzero(masks)) == sorted(env.game.legal_actions())


def test_solo_level_and_turn_cap_truncation() -> None:
    env = gym.make("ClashOfDecks/Solo-v0", level=4, format="precon", max_turns=2).unwrapped
    obs, info = env.reset(seed=3)
    threat = OBSERVATION_LAYOUT.split(obs)["threat"]
    assert threat[1] == pytest.approx(1.0)  # base mana 10 (R8.3 level 4)
    done = False
    while not done:  # deck 1, then only 'end': a short game, capped after turn 2 unless lost first
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert env.game.turn <= 2
    if truncated:
        assert reward == 0.0 and info["termination"] == "turn_cap" and not terminated
    else:
        assert reward == -1.0


def test_renders_ansi_board_and_rgb_image() -> None:
    env = gym.make("ClashOfDecks/Duel-v0", render_mode="ansi", format="random")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "learner" in text.lower()
    env = gym.make("ClashOfDecks/Duel-v0", render_mode="rgb_array", format="random")
    _, info = env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    assert not np.array_equal(first, env.render())


def test_vector_envs_step_with_masks() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("ClashOfDecks/Solo-v0") for _ in range(3)])
    obs, infos = envs.reset(seed=[1, 2, 3])
    assert obs.shape == (3, OBSERVATION_LAYOUT.size)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(200):
        # After a game ends its mask is empty; the next step resets it (the action is ignored).
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        obs, _rewards, terminated, truncated, infos = envs.step(np.array(actions))
        finished += int(np.sum(terminated | truncated))
        assert obs.shape == (3, OBSERVATION_LAYOUT.size)
    assert finished >= 1
    envs.close()
    async_envs = gym.make_vec("ClashOfDecks/Duel-v0", num_envs=2, vectorization_mode="async")
    obs, infos = async_envs.reset(seed=4)
    for _ in range(20):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        obs, _, _, _, infos = async_envs.step(np.array(actions))
    assert obs.shape == (2, OBSERVATION_LAYOUT.size)
    async_envs.close()


def test_bad_options_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="observation"):
        gym.make("ClashOfDecks/Solo-v0", observation="pixels")
    with pytest.raises(ValueError, match="illegal_action"):
        gym.make("ClashOfDecks/Duel-v0", illegal_action="remap")
    with pytest.raises(ValueError, match="unknown agent"):
        gym.make("ClashOfDecks/Duel-v0", opponent="nobody")
    with pytest.raises(ValueError, match="custom"):
        gym.make("ClashOfDecks/Solo-v0", format="custom")


# ---------------------------------------------------------------------------- PettingZoo


_PZ_KNOWN_WARNINGS = (
    "Observation space for each agent probably should be",  # every classic game's dict observation
    "Observation is not a NumPy array",
)


def _without_known_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if not str(w.message).startswith(_PZ_KNOWN_WARNINGS)]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"format": "precon"}, {"format": "custom", "observation": "infostate"}, {"format": "random"}],
)
def test_pettingzoo_api_test_and_seed_test(kwargs: dict[str, Any]) -> None:
    from pettingzoo.test import api_test, seed_test

    from clashofdecks.envs.pettingzoo import env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**kwargs), num_cycles=300)
        seed_test(lambda: env(**kwargs), num_cycles=300)
    assert _without_known_warnings(caught) == []


def test_pettingzoo_full_game_follows_the_engine() -> None:
    from clashofdecks.envs.pettingzoo import env

    e = env(format="draft")
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    raw = e.unwrapped
    rewards = dict.fromkeys(raw.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _info = e.last()
        rewards[agent] += reward
        if termination or truncation:
            e.step(None)
            continue
        assert agent == f"player_{raw.match.game.current_player}"
        assert obs["action_mask"].dtype == np.int8
        other = raw.observe(raw.possible_agents[1 - int(agent[-1])])
        assert not other["action_mask"].any()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_pettingzoo_illegal_action() -> None:
    from clashofdecks.envs.pettingzoo import raw_env

    e = raw_env(format="random")
    e.reset(seed=1)
    with pytest.raises(IllegalActionError):
        e.step(A.BAN_BASE)
    e = raw_env(format="random", illegal_action="penalty")
    e.reset(seed=1)
    agent = e.agent_selection
    e.step(A.BAN_BASE)
    assert e.rewards[agent] == -1.0 and e.infos[agent]["illegal_action"] and e.agent_selection == agent
    assert e.match.game.history == []


# ---------------------------------------------------------------------------- benchmark


def test_envs_benchmark_measures_ours_and_says_why_a_classic_game_is_missing() -> None:
    from clashofdecks.envs.bench import aec_steps_per_second, format_envs_bench, ours, run_envs_bench

    assert aec_steps_per_second(ours("random"), seconds=0.05, rounds=1) > 0
    results = run_envs_bench(seconds=0.05, rounds=1, classic=False)
    figures = results["steps_per_second"]
    assert set(figures) == {
        "clash_of_decks duel (random deal)",
        "clash_of_decks duel (draft)",
        "clash_of_decks duel raw_env (random deal)",
    }
    assert all(isinstance(v, float) and v > 0 for v in figures.values())
    assert "20,000" in format_envs_bench(results)


def test_a_classic_game_is_measured_or_its_missing_package_named() -> None:
    from clashofdecks.envs.bench import CLASSIC_ENVS, aec_steps_per_second, classic_maker

    _label, registry_id, module, kwargs = next(e for e in CLASSIC_ENVS if "tictactoe" in e[0])
    try:
        make = classic_maker(registry_id, module, kwargs)
    except ImportError as exc:  # without the envbench extra: PettingZoo's classic games need pygame
        assert "pygame" in str(exc)
        return
    assert aec_steps_per_second(make, seconds=0.05, rounds=1) > 0


def test_clash_bench_envs_flag() -> None:
    import json

    from click.testing import CliRunner

    from clashofdecks.cli import main

    result = CliRunner().invoke(
        main,
        [
            "bench",
            "--games",
            "3",
            "--rounds",
            "1",
            "--ismcts-iterations",
            "0",
            "--envs",
            "--env-seconds",
            "0.05",
            "--vec-envs",
            "4",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{") :])
    assert data["envs"]["steps_per_second"]["clash_of_decks duel (random deal)"] > 0
    batched = data["envs"]["batched"]
    assert batched["num_envs"] == 4 and all(v > 0 for v in batched["steps_per_second"].values())


def test_observations_updated_in_place_equal_fresh_ones() -> None:
    """The encoder starts a duel observation from the seat's previous one and rewrites what changed;
    along interleaved games (two environments, new games, both seats, a caller scribbling on the arrays
    it got) every observation equals one written from scratch (the information state's first part)."""
    matches = [
        Match(mode="duel", format=fmt, seed=s, ruleset=Ruleset(max_turns=100))
        for fmt, s in [("random", 1), ("draft", 2)]
    ]
    rng = random.Random(3)
    checked = 0
    while not all(m.over for m in matches) and checked < 1500:
        match = rng.choice([m for m in matches if not m.over])
        for seat in rng.sample((0, 1), 2):
            obs = encode_observation(match.game, seat)
            fresh = encode_infostate(match.game, seat, None, [])[: OBSERVATION_LAYOUT.size]
            np.testing.assert_array_equal(obs, fresh)
            obs[:] = 7.0  # the caller's own array: the encoder's next vector must not see this
            checked += 1
        match.apply(rng.choice(list(match.game.legal_actions())))
    assert checked > 200
