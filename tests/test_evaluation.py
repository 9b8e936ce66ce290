"""The learned evaluation (agents/evaluation.py), its training helpers and the named strengths."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.agents.evaluation import (
    FEATURES,
    N_FEATURES,
    STAGE2_FEATURES,
    STAGE2_GROUPS,
    EvaluationModel,
    features,
    fit_logistic,
    gap_intervals,
    load_model,
    logistic,
    reliability_table,
    shipped_model,
)
from clashofdecks.agents.greedy import GreedyAgent
from clashofdecks.agents.mcts import Search
from clashofdecks.agents.registry import STRENGTHS, make_agent
from clashofdecks.agents.spec import AgentSpecError
from clashofdecks.cli import main
from clashofdecks.formats import start_game
from clashofdecks.options import Ruleset, Threat
from clashofdecks.position import dump_position, load_position, sample_determinization, view
from clashofdecks.rules import Game


def _played(mode: str, seed: int, turns: int, level: int = 0) -> Game:
    """A draft game (duel or solo at ``level``) played by greedy until turn ``turns``."""
    threat = Threat.level(level) if mode == "solo" else None
    game = start_game(
        mode=mode, format="draft", seed=seed, ruleset=Ruleset(), threat=threat, record_events=False
    )
    agents = [GreedyAgent(seed), GreedyAgent(seed + 1)]
    while not game.is_over() and (game.phase == "setup" or game.turn < turns):
        game.apply(agents[game.current_player].act(game))
    return game


@pytest.mark.parametrize(("mode", "seed"), [("duel", 3), ("duel", 8), ("solo", 4), ("solo", 9)])
def test_features_use_only_the_seats_view(mode: str, seed: int) -> None:
    game = _played(mode, seed, turns=5)
    assert not game.is_over()
    seat = game.current_player
    rng = random.Random(1)
    samples = [sample_determinization(game, seat, rng) for _ in range(4)]
    # The samples really differ in what the seat cannot see (else the test would prove nothing).
    other = 1 - seat
    if mode == "duel":
        assert len({tuple(s.hand(other)) for s in samples}) > 1
    else:
        assert len({tuple(dump_position(s)["players"][1]["deck"]) for s in samples}) > 1
    assert all(view(s, seat) == view(game, seat) for s in samples)
    expected = features(game, seat)
    assert len(expected) == N_FEATURES == len(FEATURES)
    for s in samples:
        assert features(s, seat) == expected


def test_features_see_the_board() -> None:
    game = _played("duel", 3, turns=5)
    seat = game.current_player
    x = dict(zip(FEATURES, features(game, seat), strict=True))
    mine = sum(1 for p, _lane, _pos, _cr in game.creatures() if p == seat)
    assert x["my_creatures"] == mine
    assert x["first"] == (1.0 if seat == 0 else 0.0)
    assert x["my_hand"] == game.fortress(seat)[2]
    assert x["bias"] == 1.0 and x["setup"] == 0.0


def test_shipped_model_loads_without_numpy() -> None:
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('numpy', 'scipy', 'sklearn', 'torch'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from clashofdecks.agents.evaluation import win_chance\n"
        "from clashofdecks.rules import Game\n"
        "p = win_chance(Game.random_duel(1), 0)\n"
        "assert 0.0 < p < 1.0, p\n"
        "from clashofdecks.formats import start_game\n"
        "from clashofdecks.options import Ruleset, Threat\n"
        "solo = start_game(mode='solo', format='draft', seed=1, ruleset=Ruleset(), threat=Threat.level(3))\n"
        "p = win_chance(solo, 0)\n"
        "assert 0.0 < p < 1.0, p\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_predictions_are_probabilities() -> None:
    model = shipped_model()
    assert set(model.coefficients) == {"duel", "solo"}
    for mode, seed in (("duel", 2), ("solo", 5)):
        game = _played(mode, seed, turns=40)
        p = model.win_chance(game, game.current_player) if not game.is_over() else model.win_chance(game, 0)
        assert 0.0 <= p <= 1.0
    finished = _played("duel", 2, turns=999)
    assert finished.is_over()
    w = finished.winner
    assert w is not None
    assert model.win_chance(finished, w) == 1.0
    assert model.win_chance(finished, 1 - w) == 0.0
    assert logistic(1000.0) == 1.0 and logistic(-1000.0) == 0.0


def test_model_file_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="format"):
        EvaluationModel.from_dict({"format": "other"})
    data = shipped_model().to_dict()
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match="features"):
        EvaluationModel.from_dict(data)
    assert EvaluationModel.from_dict(shipped_model().to_dict()).coefficients == shipped_model().coefficients


def test_reliability_table_on_a_synthetic_example() -> None:
    # 300 predictions of 0.05 (15 wins: observed 5 %), 300 of 0.54 (150 wins: 50 %), 100 of 0.95 (all won).
    predicted = [0.05] * 300 + [0.54] * 300 + [0.95] * 100
    observed = [1.0] * 15 + [0.0] * 285 + [1.0] * 150 + [0.0] * 150 + [1.0] * 100
    table = reliability_table(predicted, observed)
    rows = {round(r.lo, 1): r for r in table.rows if r.n}
    assert sorted(rows) == [0.0, 0.5, 0.9]
    assert (
        rows[0.0].n == 300
        and rows[0.0].observed == pytest.approx(0.05)
        and rows[0.0].gap == pytest.approx(0.0)
    )
    assert rows[0.5].predicted == pytest.approx(0.54) and rows[0.5].observed == pytest.approx(0.5)
    assert rows[0.9].n == 100 and rows[0.9].observed == 1.0
    brier = (15 * 0.95**2 + 285 * 0.05**2 + 150 * 0.46**2 + 150 * 0.54**2 + 100 * 0.05**2) / 700
    assert table.brier == pytest.approx(brier)
    assert table.within(0.05, 200)  # the 0.5 bin is 4 points off: within 5 points
    assert not table.within(0.03, 200)  # … but not within 3 points
    assert table.within(0.03, 301)  # no bin has 301 positions: nothing to check
    # A badly calibrated predictor fails.
    bad = reliability_table([0.9] * 300, [1.0] * 150 + [0.0] * 150)
    assert not bad.within()
    with pytest.raises(ValueError):
        reliability_table([1.5], [1.0])


def test_gap_intervals_resample_games_not_positions() -> None:
    # Bin 0.1-0.2: 10 games of 30 positions each predicted 0.15; 3 games won.  The observed rate is
    # 30 %, and its uncertainty is that of 10 games, not of 300 positions.
    predicted = [0.15] * 300 + [0.95] * 40
    observed = [1.0] * 90 + [0.0] * 210 + [1.0] * 40
    games = [f"g{i // 30}" for i in range(300)] + [f"h{i // 4}" for i in range(40)]
    intervals = gap_intervals(predicted, observed, games, resamples=300, seed=1)
    assert len(intervals) == 10 and intervals[0] is None and intervals[5] is None
    low = intervals[1]
    assert low is not None and low[0] < 0.15 < low[1]  # the point gap
    assert low[1] - low[0] > 0.3  # about ±0.28 for 10 games; positions alone would give ±0.05
    assert intervals[9] == (pytest.approx(0.05), pytest.approx(0.05))  # every game won: no spread
    assert gap_intervals(predicted, observed, games, resamples=300, seed=1) == intervals
    with pytest.raises(ValueError):
        gap_intervals([0.5], [1.0], [])


def test_fit_logistic_recovers_known_coefficients() -> None:
    rng = random.Random(5)
    xs: list[list[float]] = []
    ys: list[float] = []
    for _ in range(4000):
        x = [1.0, rng.gauss(0, 1), rng.gauss(0, 1), 0.0]
        xs.append(x)
        ys.append(1.0 if rng.random() < logistic(0.5 + 2.0 * x[1] - 1.0 * x[2]) else 0.0)
    w = fit_logistic(xs, ys, ridge=0.0)
    assert w[0] == pytest.approx(0.5, abs=0.15)
    assert w[1] == pytest.approx(2.0, abs=0.2)
    assert w[2] == pytest.approx(-1.0, abs=0.15)
    assert w[3] == 0.0  # a feature that is always 0


def test_train_eval_command_trains_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        main,
        [
            "train-eval", "--generate-duel", "6", "--generate-solo", "2", "--seed", "3",
            "--split", str(tmp_path / "none"), "--out", str(out), "--report", str(report),
        ],
    )  # fmt: skip
    assert result.exit_code == 1 and "no such records folder" in result.output
    result = CliRunner().invoke(
        main, ["train-eval", "--generate-duel", "6", "--generate-solo", "2", "--seed", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    model = EvaluationModel.from_dict(json.loads(out.read_text()))
    assert model.card["training_data"]["games"] == 6 + 6 * 2
    assert "train-eval" in model.card["command"]


def test_op_mana_left_is_the_other_seats_mana_in_a_duel() -> None:
    game = _played("duel", 3, turns=5)
    mover = game.current_player
    assert game.active == mover and game.mana > 0
    i = FEATURES.index("op_mana_left")
    assert features(game, mover)[i] == 0.0
    assert features(game, 1 - mover)[i] == game.mana / 4.0
    solo = _played("solo", 4, turns=5)
    assert features(solo, solo.current_player)[i] == 0.0


def _tiny_model(with_not_to_move: bool) -> EvaluationModel:
    coefs = {m: (0.0,) * N_FEATURES for m in ("duel", "solo")}
    base = (0.0,) * len(STAGE2_FEATURES)
    stage2 = {"duel": (0.4, *base[1:]), "solo": base}
    if with_not_to_move:
        not_to_move = [0.0] * len(STAGE2_FEATURES)
        not_to_move[0], not_to_move[1] = -0.4, 1.0
        not_to_move[STAGE2_FEATURES.index("op_mana_left")] = -2.0
        stage2["duel, seat not to move"] = tuple(not_to_move)
    return EvaluationModel(coefs, {}, stage2)


def test_the_seat_not_to_move_has_its_own_second_stage() -> None:
    game = _played("duel", 3, turns=5)
    mover = game.current_player
    x = features(game, 1 - mover)
    one_stage = _tiny_model(False)
    # Without its own stage, the other seat is judged by the duel stage (like the player to move).
    assert one_stage.win_chance(game, 1 - mover) == pytest.approx(logistic(0.4))
    two_stages = _tiny_model(True)
    assert two_stages.win_chance(game, mover) == pytest.approx(logistic(0.4))
    expected = logistic(-0.4 - 2.0 * x[FEATURES.index("op_mana_left")])
    assert two_stages.win_chance(game, 1 - mover) == pytest.approx(expected)
    assert two_stages.probability(x, "duel", to_move=False) == pytest.approx(expected)
    # Round trip, and a second stage of an unknown group is refused.
    data = two_stages.to_dict()
    assert EvaluationModel.from_dict(data).stage2 == two_stages.stage2
    data["stage2"]["solo, seat not to move"] = data["stage2"]["solo"]
    with pytest.raises(ValueError, match="second stage"):
        EvaluationModel.from_dict(data)


def test_shipped_model_judges_both_duel_seats_within_0_1() -> None:
    model = shipped_model()
    for seed in (2, 5, 11):
        game = _played("duel", seed, turns=4 + seed % 3)
        if game.is_over():
            continue
        chances = [model.win_chance(game, seat) for seat in (0, 1)]
        assert all(0.0 < c < 1.0 for c in chances)
        assert 0.5 < sum(chances) < 1.5  # the two views roughly agree that one of them wins


def test_calibration_report_and_kept_second_stage_on_a_small_fixture(tmp_path: Path) -> None:
    from clashofdecks.simulation.training import generate_records

    generate_records(tmp_path / "records", agent="greedy", duel_games=6, solo_games=1, seed=4)
    model_in = tmp_path / "in.json"
    shipped_model().save(model_in)
    out, report = tmp_path / "model.json", tmp_path / "report.json"
    args = ["train-eval", "--split", str(tmp_path / "records"), "--holdout-fraction", "0.5"]
    usage = CliRunner().invoke(main, [*args, "--keep-stage2", "duel", "--out", str(out)])
    assert usage.exit_code == 2 and "--model" in usage.output and not out.exists()
    result = CliRunner().invoke(
        main,
        [
            *args,
            "--model",
            str(model_in),
            "--keep-stage2",
            "duel",
            "--out",
            str(out),
            "--report",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    model = EvaluationModel.from_dict(json.loads(out.read_text()))
    # The kept stage is the input model's, bit for bit; the others were refitted on the kept games.
    assert model.stage2["duel"] == shipped_model().stage2["duel"]
    # Every solo stage is refitted too: the fall-back on all solo games, each level on its own games.
    assert {"duel", "duel, seat not to move", "solo"} < set(model.stage2) <= set(STAGE2_GROUPS)
    assert model.card["training_data"]["stage2_kept_from_model"] == ["duel"]
    results = json.loads(report.read_text())
    assert "duel" in results and "duel, seat not to move" in results
    for group, r in results.items():
        deciles = r["model"]["deciles"]
        assert sum(d["n"] for d in deciles) == r["positions"] > 0
        assert all(0.0 <= d["predicted"] <= 1.0 and 0.0 <= d["observed"] <= 1.0 for d in deciles)
        assert all((d["gap_95"] is None) == (d["n"] == 0) for d in deciles)
        assert all(d["gap_95"][0] <= d["gap_95"][1] for d in deciles if d["n"])
        assert r["within"] == all(
            abs(d["observed"] - d["predicted"]) <= 0.05 for d in deciles if d["n"] >= 200
        ), group
    assert model.card["calibrated"]["duel"] == all(
        results[g]["within"] and results[g]["deciles_checked"] > 0 for g in ("duel", "duel, seat not to move")
    )
    assert "duel, seat not to move:" in result.output


#: The shipped model of 2026-11-30 (card removed): the lead's duel arena measurements use its duel
#: predictions, so a refit of the solo second stage must leave them unchanged, bit for bit.
MODEL_2026_11_30 = Path(__file__).parent / "data" / "evaluation-2026-11-30.json"


def test_duel_predictions_are_those_of_the_2026_11_30_model() -> None:
    before = load_model(MODEL_2026_11_30)
    now = shipped_model()
    assert now.coefficients["duel"] == before.coefficients["duel"]
    compared = 0
    for seed in (1, 2, 3, 5, 8, 13):
        game = start_game(mode="duel", format="draft", seed=seed, ruleset=Ruleset(), record_events=False)
        agents = [GreedyAgent(seed), GreedyAgent(seed + 1)]
        while not game.is_over() and game.turn < 30:
            for seat in (0, 1):  # the player to move and the seat not to move (setup included)
                assert now.win_chance(game, seat) == before.win_chance(game, seat)
                compared += 1
            game.apply(agents[game.current_player].act(game))
    assert compared > 500
    # Not vacuous: the solo part did change (the refit of docs/ai.md, "Calibration").
    solo = _played("solo", 4, turns=5)
    assert now.win_chance(solo, 0) != before.win_chance(solo, 0)


def test_the_automatons_strength_changes_the_solo_prediction() -> None:
    """The same solo position is worth less to the player against a stronger automaton: more base
    mana (R8.2, R8.3 levels 0-4), and the automaton having started (level 5)."""
    model = shipped_model()
    data = dump_position(_played("solo", 4, turns=5))
    assert data["active"] == 0

    def chance(threat: Threat) -> float:
        game = load_position({**data, "threat": threat.to_dict()}, record_events=False)
        return model.win_chance(game, 0)

    by_level = [chance(Threat.level(level)) for level in range(5)]
    assert all(0.0 < p < 1.0 for p in by_level)
    assert by_level == sorted(by_level, reverse=True) and len(set(by_level)) == 5, by_level
    assert chance(Threat.level(5)) < chance(Threat.level(4))  # base mana 10 both; the automaton started
    # A --threat allocation is judged too (its abilities, resilience and defence are inputs, though
    # no training game had them: docs/ai.md, "Calibration").
    assert 0.0 < chance(Threat(abilities=("protection",))) < 1.0


def test_named_strengths_exist_and_act_legally() -> None:
    assert list(STRENGTHS) == ["beginner", "casual", "strong", "strongest"]
    for mode in ("duel", "solo"):
        game = _played(mode, 6, turns=3)
        for name in STRENGTHS:
            agent = make_agent(name, 1)
            assert agent.name == name
            if name == "strongest":
                agent.iterations = 50  # type: ignore[attr-defined]  # the legality, not the budget, is tested
            action = agent.act(game)
            assert game.is_legal(action)


def test_learned_cutoff_search_and_spec() -> None:
    game = _played("duel", 7, turns=4)
    result = Search(cutoff=1, evaluation="learned").run(game, random.Random(0), iterations=60)
    assert game.is_legal(result.action) and 0.0 <= result.win_chance <= 1.0
    agent = make_agent("ismcts:40,cutoff=1,eval=learned", 2)
    assert game.is_legal(agent.act(game))
    with pytest.raises(AgentSpecError, match="evaluation"):
        make_agent("ismcts:40,eval=oracle")


@pytest.mark.parametrize("name", list(STRENGTHS))
def test_clash_play_accepts_the_named_strengths(name: str) -> None:
    result = CliRunner().invoke(main, ["play", "--vs", name, "--seed", "3", "--no-color"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


def test_a_solo_level_has_its_own_second_stage_and_other_threats_the_solo_one() -> None:
    """A solo game at an R8.3 level is judged by its level's second stage when the model has one;
    another threat allocation (and a model without level stages) by the ``solo`` stage."""
    base = shipped_model().to_dict()
    base["stage2"] = {
        g: v for g, v in base["stage2"].items() if g in ("duel", "duel, seat not to move", "solo")
    }
    plain = EvaluationModel.from_dict(base)
    with_level = json.loads(json.dumps(base))
    with_level["stage2"]["solo 4"] = [v + 0.25 for v in base["stage2"]["solo"]]
    levelled = EvaluationModel.from_dict(with_level)
    level4 = _played("solo", 4, turns=5, level=4)
    level2 = _played("solo", 4, turns=5, level=2)
    assert levelled.win_chance(level4, 0) != plain.win_chance(level4, 0)
    assert levelled.win_chance(level2, 0) == plain.win_chance(level2, 0)
    custom = start_game(
        mode="solo",
        format="precon",
        seed=2,
        ruleset=Ruleset(),
        threat=Threat(base_mana=9),
        record_events=False,
    )
    while custom.phase == "setup":
        custom.apply(custom.legal_actions()[0])
    assert levelled.win_chance(custom, 0) == plain.win_chance(custom, 0)
