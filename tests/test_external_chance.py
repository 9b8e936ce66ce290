"""External chance (OpenSpiel style): the setup's chance as actions from outside (R2.3a, R2.4, R2.6)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from clashofdecks import dump_position, load_position, view
from clashofdecks.actions import BUILD_BASE, CHANCE_CARD, build_rank
from clashofdecks.errors import FormatError, IllegalActionError
from clashofdecks.formats import new_game, seat_of
from clashofdecks.record import record_game, replay
from clashofdecks.rules import CHANCE, Game


def _play(game: Game, rng: random.Random, limit: int = 5000) -> list[str]:
    texts: list[str] = []
    while not game.is_over() and len(texts) < limit:
        st = game.setup_state
        if st is not None and st.decision == "build":
            action = BUILD_BASE + build_rank(sorted(rng.sample(range(32), 10)))
        else:
            legal = game.legal_actions()
            action = legal[rng.randrange(len(legal))]
        texts.append(game.action_text(action))
        game.apply(action)
    return texts


@pytest.mark.parametrize("fmt", ["precon", "draft", "custom"])
def test_every_setup_chance_is_a_node_and_the_game_plays_out(fmt: str) -> None:
    for seed in range(15):
        game = new_game(mode="duel", format=fmt, seed=seed, external_chance=True)
        assert game.current_player == CHANCE and game.is_chance_node()
        outcomes = game.chance_outcomes()
        assert [game.action_text(a) for a, _ in outcomes] == ["chance coin 0", "chance coin 1"]
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        texts = _play(game, random.Random(seed))
        assert game.is_over()
        draws = sum(t.startswith("chance ") and not t.startswith("chance coin") for t in texts)
        assert draws == 16 + (16 if fmt == "draft" else 0)  # the deal (R2.6), the draft's reveals (R2.4)
        # A record lists the chance outcomes and replays the game exactly.
        record = record_game(game)
        assert record.external_chance and record.actions == texts
        assert dump_position(replay(record)) == dump_position(game)


def test_chance_outcomes_decide_the_deal_and_the_draft() -> None:
    game = new_game(mode="duel", format="draft", seed=1, external_chance=True)
    game.apply(game.parse_action("chance coin 1"))
    assert seat_of(game, 1) == 0  # participant 1 won the toss and is player A, seat 0 (R2.3a)
    for card in ("OGRE", "GNOME", "TROLL", "BOOM"):
        game.apply(game.parse_action(f"chance {card}"))
    assert {game.action_text(a) for a in game.legal_actions()} == {
        "pick OGRE",
        "pick GNOME",
        "pick TROLL",
        "pick BOOM",
    }
    with pytest.raises(IllegalActionError):
        game.apply(game.parse_action("chance OGRE"))  # a decision of a player now, not chance's


def test_deal_places_cards_where_chance_says() -> None:
    game = new_game(mode="duel", format="precon", seed=2, external_chance=True)
    for text in ("chance coin 0", "deck 1", "deck 2"):
        game.apply(game.parse_action(text))
    order = [game.action_text(a).split()[1] for a in game.legal_actions()]
    rng = random.Random(3)
    rng.shuffle(order)
    for card in order:
        assert game.current_player == CHANCE
        game.apply(game.parse_action(f"chance {card}"))
    while game.is_chance_node():  # seat 1's places, in the order listed
        game.apply(game.legal_actions()[0])
    assert game.hand(0) == ["BASTION", *order]
    assert game.hand(1)[1:] == sorted(game.hand(1)[1:], key=lambda c: game.parse_action(f"chance {c}"))
    assert game.phase == "summon" and game.current_player == 0


def test_positions_and_views_at_chance_nodes() -> None:
    rng = random.Random(5)
    game = new_game(mode="duel", format="draft", seed=5, external_chance=True)
    seen = Counter()
    while game.phase == "setup":
        pos = dump_position(game)
        assert dump_position(load_position(pos)) == pos
        for seat in (0, 1, None):
            v = view(game, seat)
            assert all(c == "?" for c in v["setup"]["pool"])
            if "placed" in v["setup"]:
                for other in (0, 1):
                    if other != seat:
                        assert set(v["setup"]["placed"][other]) <= {"?"}
        seen[game.current_player] += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert seen[CHANCE] == 33


def test_external_chance_is_for_duels() -> None:
    with pytest.raises(FormatError, match="duel"):
        new_game(mode="solo", format="draft", seed=1, external_chance=True)


def test_chance_action_text_round_trips() -> None:
    game = Game.random_duel(seed=1)
    for text in ("chance coin 0", "chance coin 1", "chance OGRE"):
        assert game.action_text(game.parse_action(text)) == text
    assert game.parse_action("chance OGRE") >= CHANCE_CARD


@pytest.mark.slow
def test_the_schema_accepts_positions_at_chance_nodes() -> None:
    import json
    from pathlib import Path

    import jsonschema

    import clashofdecks

    schema_path = Path(clashofdecks.__file__).parent / "schemas" / "position.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    rng = random.Random(7)
    for fmt in ("precon", "draft", "custom"):
        game = new_game(mode="duel", format=fmt, seed=7, external_chance=True)
        while game.phase == "setup":
            jsonschema.validate(dump_position(game), schema)
            st = game.setup_state
            if st is not None and st.decision == "build":
                game.apply(BUILD_BASE + build_rank(sorted(rng.sample(range(32), 10))))
            else:
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
