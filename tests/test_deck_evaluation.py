"""The deck evaluation (agents/deck_evaluation.py), its training (clash train-decks) and the search
setting setup=learned|random that uses it (docs/ai.md, "The deck evaluation")."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.actions import PICK_BASE
from clashofdecks.agents import mcts
from clashofdecks.agents.deck_evaluation import (
    DECK_FEATURES,
    DeckGame,
    DeckModel,
    deck_features,
    decks_at_first_turn,
    fit_deck_model,
    load_deck_model,
    shipped_deck_model,
)
from clashofdecks.agents.mcts import ISMCTSAgent, Search
from clashofdecks.agents.registry import make_agent
from clashofdecks.agents.spec import AgentSpecError
from clashofdecks.cards import CARD_INDEX, N_CARDS
from clashofdecks.cli import main
from clashofdecks.errors import ClashError
from clashofdecks.formats import start_game
from clashofdecks.native import NativeGame
from clashofdecks.options import Ruleset, Threat
from clashofdecks.record import record_game
from clashofdecks.rules import Game
from clashofdecks.session import GameSession, Seat
from clashofdecks.simulation.deck_training import deck_game_of
from random_play import play_randomly


def _new(fmt: str = "draft", seed: int = 3, mode: str = "duel") -> Game:
    threat = Threat.level(1) if mode == "solo" else None
    return start_game(mode=mode, format=fmt, seed=seed, ruleset=Ruleset(), threat=threat, record_events=False)


def _through_setup(game: Game, seed: int = 0) -> Game:
    """``game`` with its setup played at random."""
    rng = random.Random(seed)
    while game.phase == "setup":
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def _random_decks(rng: random.Random) -> tuple[list[int], list[int]]:
    cards = rng.sample(range(N_CARDS), 16)
    return cards[:8], cards[8:]


def _model_favouring(card: str, weight: float) -> DeckModel:
    """A model in which only ``card`` matters: ``weight`` log-odds for the seat holding it."""
    w = [0.0] * len(DECK_FEATURES)
    w[DECK_FEATURES.index(card)] = weight
    return DeckModel(tuple(w), {})


# ---------------------------------------------------------------------------- the model


def test_the_model_is_antisymmetric_in_the_seats() -> None:
    model = shipped_deck_model()
    rng = random.Random(1)
    for _ in range(200):
        decks = _random_decks(rng)
        starter = rng.randrange(2)
        p0 = model.win_chance(decks, starter, 0)
        assert model.win_chance(decks, starter, 1) == pytest.approx(1.0 - p0, abs=1e-12)
        swapped = (decks[1], decks[0])
        assert model.win_chance(swapped, 1 - starter, 1) == pytest.approx(p0, abs=1e-12)


def test_features_count_each_seats_cards_with_opposite_signs() -> None:
    x = deck_features(([0, 5, CARD_INDEX["BASTION"]], [7]), starter=1)
    assert len(x) == len(DECK_FEATURES) == N_CARDS + 1
    assert x[0] == -1.0  # seat 1 starts
    assert x[1 + 0] == 1.0 and x[1 + 5] == 1.0 and x[1 + 7] == -1.0
    assert sum(abs(v) for v in x) == 4.0  # the fortress is no card of the deck
    with pytest.raises(ValueError, match="starting seat"):
        deck_features(([], []), starter=2)
    with pytest.raises(ValueError, match="not a card index"):
        deck_features(([99], []), starter=0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="something else"), "not a deck evaluation model"),
        (lambda d: d.update(features=d["features"][:-1]), "features do not match"),
        (lambda d: d.update(weights=d["weights"][:-1]), "weights"),
        (lambda d: d["weights"].__setitem__(3, float("nan")), "finite"),
        (lambda d: d["weights"].__setitem__(3, True), "finite"),
        (lambda d: d["weights"].__setitem__(3, "1.0"), "finite"),
    ],
)
def test_a_malformed_model_file_is_refused_clearly(tmp_path: Path, change: object, message: str) -> None:
    data = shipped_deck_model().to_dict()
    change(data)  # type: ignore[operator]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        load_deck_model(path)


def test_a_saved_model_loads_back_identically(tmp_path: Path) -> None:
    model = shipped_deck_model()
    model.save(tmp_path / "m.json")
    assert load_deck_model(tmp_path / "m.json") == model


def test_the_shipped_model_beats_who_starts_alone_on_its_held_out_games() -> None:
    card = shipped_deck_model().card
    held = card["held_out"]
    assert held["games"] >= 1000
    assert held["log_loss"] < held["starts_only_log_loss"]
    assert held["brier"] < held["starts_only_brier"]
    assert card["training_data"]["games"] >= 4 * held["games"] - 1000


def test_fitting_recovers_a_planted_card_value() -> None:
    """Games drawn from a known model (BRUTE +1.5 log-odds, who starts +0.3): the fit finds them."""
    rng = random.Random(7)
    truth = _model_favouring("BRUTE", 1.5)
    truth = DeckModel((0.3, *truth.weights[1:]), {})
    games = []
    for _ in range(4000):
        decks = _random_decks(rng)
        starter = rng.randrange(2)
        won = rng.random() < truth.win_chance(decks, starter, 0)
        games.append(DeckGame((tuple(decks[0]), tuple(decks[1])), starter, 0 if won else 1))
    fitted = fit_deck_model(games, ridge=1e-3).card_values()
    assert fitted["BRUTE"] == pytest.approx(1.5, abs=0.3)
    assert max(abs(v) for c, v in fitted.items() if c != "BRUTE") < 0.3
    assert fit_deck_model(games, ridge=1e-3).weights[0] == pytest.approx(0.3, abs=0.15)
    with pytest.raises(ValueError, match="no games"):
        fit_deck_model([], ridge=1e-3)


@pytest.mark.parametrize("fmt", ["draft", "precon", "custom"])
def test_the_decks_are_read_when_the_setup_ends(fmt: str) -> None:
    game = _through_setup(_new(fmt))
    decks = decks_at_first_turn(game)
    assert all(len(d) == 8 and len(set(d)) == 8 for d in decks)
    assert set(decks[0]) | set(decks[1]) <= set(range(N_CARDS))
    assert [sorted(d) for d in decks] == [sorted(CARD_INDEX[c] for c in game.hand(p)[1:]) for p in (0, 1)]
    if fmt == "draft":  # R2.4: 16 cards drafted, each by one seat
        assert not set(decks[0]) & set(decks[1])


def test_the_decks_are_not_read_at_other_moments() -> None:
    with pytest.raises(ValueError, match="first turn"):
        decks_at_first_turn(_new())  # still in the setup
    game = _through_setup(_new())
    game.apply(next(a for a in game.legal_actions() if game.action_text(a).startswith("play")))
    with pytest.raises(ValueError, match="first turn"):
        decks_at_first_turn(game)  # a card has left a hand
    with pytest.raises(ValueError, match="duels"):
        decks_at_first_turn(_through_setup(_new(mode="solo")))


# ---------------------------------------------------------------------------- the search


def _first_pick(seed: int = 3) -> tuple[Game, list[str]]:
    game = _new(seed=seed)
    legal = game.legal_actions()
    assert all(PICK_BASE <= a < PICK_BASE + N_CARDS for a in legal)
    return game, [game.action_text(a).split()[-1] for a in legal]


def test_a_learned_setup_search_picks_what_the_deck_evaluation_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game, revealed = _first_pick()
    for card in revealed[:2]:
        monkeypatch.setattr(mcts, "shipped_deck_model", lambda card=card: _model_favouring(card, 3.0))
        result = Search(setup="learned").run(game, random.Random(1), iterations=300)
        assert game.action_text(result.action).split()[-1] == card
        assert result.win_chance > 0.8
    # ... and avoids the card it says loses games.
    monkeypatch.setattr(mcts, "shipped_deck_model", lambda: _model_favouring(revealed[0], -3.0))
    result = Search(setup="learned").run(game, random.Random(1), iterations=300)
    assert game.action_text(result.action).split()[-1] != revealed[0]


def test_a_learned_setup_search_plays_no_rollout_past_the_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_rollout(*args: object, **kwargs: object) -> int:
        raise AssertionError("a rollout past the setup")

    monkeypatch.setattr(NativeGame, "rollout", no_rollout)
    game, _ = _first_pick()
    result = Search(setup="learned").run(game, random.Random(2), iterations=200)
    assert result.iterations == 200 and 0.0 < result.win_chance < 1.0
    with pytest.raises(AssertionError, match="past the setup"):
        Search(native=True).run(game, random.Random(2), iterations=5)


def test_hints_in_a_duels_draft_follow_the_deck_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    session = GameSession.new(mode="duel", format="draft", seed=3, participants=[Seat.human(), Seat.human()])
    _, revealed = _first_pick()  # the same deal: seed 3
    for card in revealed[:2]:
        monkeypatch.setattr(mcts, "shipped_deck_model", lambda card=card: _model_favouring(card, 3.0))
        assert session.hint(session.game.current_player, iterations=300).action == f"pick {card}"
        assert mcts.hint(session.game, seconds=0.3)[0] == session.game.parse_action(f"pick {card}")


def test_setup_learned_changes_nothing_in_solo_or_after_the_setup() -> None:
    for game in (_new(mode="solo"), _through_setup(_new())):
        a = Search(setup="learned").run(game, random.Random(4), iterations=150)
        b = Search().run(game, random.Random(4), iterations=150)
        assert a.stats == b.stats


def test_setup_random_chooses_without_a_search_and_reproducibly() -> None:
    for fmt in ("draft", "precon", "custom"):
        choices = []
        for _ in range(2):
            game = _new(fmt, seed=5)
            agent = make_agent("ismcts:50,setup=random", seed=9)
            assert isinstance(agent, ISMCTSAgent)
            picked = []
            while game.phase == "setup":
                action = agent.act(game)
                assert agent.last is None  # no search
                picked.append(action)
                game.apply(action)
            choices.append(picked)
        assert choices[0] == choices[1]
    game = _through_setup(_new())
    agent = make_agent("ismcts:50,setup=random", seed=9)
    assert isinstance(agent, ISMCTSAgent)
    agent.act(game)
    assert agent.last is not None  # the play phase is searched


def test_clash_play_takes_an_agent_spec_as_the_opponent() -> None:
    args = ["play", "--vs", "ismcts:20,setup=learned", "--seed", "3", "--no-color"]
    result = CliRunner().invoke(main, args, input="1\nquit\n")
    assert result.exit_code == 0, result.output
    assert "picks" in result.output and "Traceback" not in result.output


def test_bad_setup_settings_are_refused() -> None:
    with pytest.raises(AgentSpecError, match="rollout, learned, random"):
        make_agent("ismcts:100,setup=clever")
    with pytest.raises(AgentSpecError, match="takes no settings"):
        make_agent("greedy:setup=random")
    with pytest.raises(ValueError, match="setup scoring"):
        Search(setup="random")


# ---------------------------------------------------------------------------- training


def _recorded(fmt: str, seed: int, mode: str = "duel") -> dict[str, object]:
    game = _through_setup(_new(fmt, seed=seed, mode=mode), seed)
    decks = decks_at_first_turn(game) if mode == "duel" else None
    starter = game.active
    rng = random.Random(seed)
    play_randomly(game, rng)
    return {"record": record_game(game).to_dict(), "decks": decks, "starter": starter, "winner": game.winner}


def test_a_record_gives_its_decks_starter_and_result(tmp_path: Path) -> None:
    for fmt, seed in (("draft", 1), ("custom", 2), ("precon", 3)):
        played = _recorded(fmt, seed)
        path = tmp_path / f"{fmt}.json"
        path.write_text(json.dumps(played["record"]))
        got = deck_game_of(path)
        assert got is not None
        assert got.decks == played["decks"] and got.starter == played["starter"]
        assert got.winner == played["winner"]
    solo = tmp_path / "solo.json"
    solo.write_text(json.dumps(_recorded("draft", 4, mode="solo")["record"]))
    assert deck_game_of(solo) is None
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ClashError, match=r"broken\.json"):
        deck_game_of(broken)


def test_train_decks_generates_fits_and_writes_a_loadable_model(tmp_path: Path) -> None:
    out, report, kept = tmp_path / "decks.json", tmp_path / "report.json", tmp_path / "records"
    args = ["train-decks", "--generate", "30", "--agent", "ismcts:10", "--seed", "3", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--report", str(report), "--keep-records", str(kept)])
    assert result.exit_code == 0, result.output
    assert "cross-validation" in result.output and "who starts alone" in result.output
    model = load_deck_model(out)
    assert model.card["training_data"]["generated"] == {"games": 30, "agent": "ismcts:10,setup=random"}
    assert model.card["training_data"]["games"] + model.card["held_out"]["games"] == 30
    assert all(math.isfinite(w) for w in model.weights)
    assert json.loads(report.read_text())["reliability"]["n"] == model.card["held_out"]["games"]
    # The kept records train the same model again.
    again = CliRunner().invoke(
        main, ["train-decks", "--records", str(kept), "--out", str(tmp_path / "b.json")]
    )
    assert again.exit_code == 0, again.output
    assert load_deck_model(tmp_path / "b.json").weights == model.weights


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ([], 2, "nothing to train on"),
        (["--records", "no/such/folder"], 1, "no such records folder"),
        (["--generate", "4", "--agent", "greedy"], 1, "takes no settings"),
        (["--generate", "4", "--agent", "nobody"], 1, "unknown agent"),
        (["--generate", "3", "--agent", "ismcts:5", "--holdout-fraction", "0"], 1, "cross-validation needs"),
    ],
)
def test_train_decks_refuses_bad_input_clearly(args: list[str], code: int, message: str) -> None:
    result = CliRunner().invoke(main, ["train-decks", *args])
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output
