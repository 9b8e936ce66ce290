"""Training the network on ``neural-search``'s own targets (``clash train-neural --method search``):
docs/ai.md, "Training on the search's targets"."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

np = pytest.importorskip("numpy")

from clashofdecks.agents.neural import VALUE_TENSORS, load_model  # noqa: E402
from clashofdecks.agents.neural_search import NeuralSearchAgent  # noqa: E402
from clashofdecks.agents.registry import make_agent  # noqa: E402
from clashofdecks.cli import main  # noqa: E402
from clashofdecks.formats import new_game  # noqa: E402
from clashofdecks.simulation.neural_search_training import (  # noqa: E402
    SearchTrainSettings,
    search_selfplay_chunk,
    search_selfplay_game,
)
from clashofdecks.simulation.neural_training import local_selfplay  # noqa: E402

#: A cheap run: few iterations per decision and in the setup stage.
TINY = SearchTrainSettings(search_iterations=12, setup_iterations=4, games_per_iteration=2, chunk=1, seed=5)


def _samples_equal(a: object, b: object) -> bool:
    return all(getattr(a, k) == getattr(b, k) for k in ("obs", "policy", "value", "seed"))


def test_every_sample_is_a_visit_distribution_over_legal_actions_and_the_mover_result() -> None:
    samples = search_selfplay_game(TINY, None, 9)
    assert len(samples) > 10
    for (actions, shares), value in zip(samples.policy, samples.value, strict=True):
        assert len(actions) == len(set(actions)) and all(s > 0 for s in shares)
        assert abs(sum(shares) - 1.0) < 1e-9
        assert value in (0.0, 0.5, 1.0)
    # both seats' decisions are kept, each with its own result: a decided game has both 0 and 1
    assert set(samples.value) in ({0.0, 1.0}, {0.5})


def test_the_samples_depend_on_the_deal_not_on_the_process() -> None:
    a = search_selfplay_chunk(TINY, None, [3, 4])
    inline, _ = local_selfplay(1, search_selfplay_chunk)
    b = [part for part in inline(TINY, None, [[3], [4]])]
    joined = b[0]
    joined.extend(b[1])
    assert _samples_equal(a, joined)
    assert not _samples_equal(a, search_selfplay_chunk(TINY, None, [6, 7]))


def test_without_temperature_the_game_plays_the_most_visited_actions() -> None:
    """temperature_moves 0: the game is two plain neural-search agents (the agent's own choices)."""
    cold = replace(TINY, temperature_moves=0)
    warm = replace(TINY, temperature_moves=1000)
    assert search_selfplay_game(cold, None, 8).obs != search_selfplay_game(warm, None, 8).obs


def test_a_tiny_run_trains_the_heads_and_keeps_the_calibrated_value_head(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    command = ["train-neural", "--method", "search", "--out-dir", str(tmp_path), "--games", "2"]
    command += ["--iterations", "2", "--search-iterations", "12", "--setup-iterations", "4", "--seed", "5"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    start, trained = load_model(), load_model(tmp_path / "latest.bin")
    assert trained.card["method"] == "search-targets" and trained.card["samples"] > 0
    assert not np.array_equal(start.tensors["wp"], trained.tensors["wp"])
    for name in ("w1", "b1", "w2", "b2", *VALUE_TENSORS):
        assert np.array_equal(start.tensors[name], trained.tensors[name]), name
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["iteration"] for e in log] == [0, 1] and log[-1]["games"] == 4
    game = new_game(mode="duel", format="draft", seed=2, record_events=False)
    assert game.is_legal(make_agent(f"neural-search:iterations=20,model={tmp_path / 'latest.bin'}").act(game))


def test_training_the_trunk_drops_the_calibrated_value_head(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    command = ["train-neural", "--method", "search", "--out-dir", str(tmp_path), "--games", "1"]
    command += ["--iterations", "1", "--search-iterations", "8", "--setup-iterations", "4", "--train-trunk"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    trained = load_model(tmp_path / "latest.bin")
    assert not trained.has_value_head and trained.card["freeze_trunk"] is False
    assert not np.array_equal(load_model().tensors["w1"], trained.tensors["w1"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "selfplay", "--window", "2"], "--window apply to --method search only"),
        (["--train-trunk"], "--train-trunk apply to --method search only"),
        (["--root-noise", "0.25"], "--root-noise apply to --method search only"),
        (["--method", "search", "--steps", "3"], "--steps do not apply to --method search"),
    ],
)
def test_options_of_another_method_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["train-neural", "--out-dir", str(tmp_path / "run"), *args])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "run").exists()


def test_root_noise_reaches_the_self_play_searches_only() -> None:
    """--root-noise: every self-play search mixes noise into its root prior (other visit shares);
    the agent at play has none."""
    noisy = replace(TINY, root_noise=0.5, temperature_moves=0)
    cold = replace(TINY, temperature_moves=0)
    assert search_selfplay_game(noisy, None, 8).policy != search_selfplay_game(cold, None, 8).policy
    assert NeuralSearchAgent(1).noise == 0.0


def test_the_setup_stage_iterations_are_a_setting_of_the_agent() -> None:
    game = new_game(mode="duel", format="draft", seed=2, record_events=False)
    agent = NeuralSearchAgent(1, iterations=10, setup_iterations=7)
    agent.act(game)
    assert agent.tally.iterations == 7
    assert NeuralSearchAgent(1).setup_iterations == 1500  # strongest's, unchanged by default


@pytest.mark.slow
def test_ray_tasks_give_the_games_of_the_local_backend() -> None:
    ray = pytest.importorskip("ray", reason="the cluster extra (pip install '.[cluster]') is not installed")
    from clashofdecks.simulation.neural_training import ray_selfplay

    on_ray, close = ray_selfplay(2, None, search_selfplay_chunk)
    try:
        parts = list(on_ray(TINY, None, [[3], [4]]))
    finally:
        close()
    joined = parts[0]
    joined.extend(parts[1])
    assert _samples_equal(search_selfplay_chunk(TINY, None, [3, 4]), joined)
    assert not ray.is_initialized()


def test_the_curve_measures_a_checkpoint_as_neural_search(tmp_path: Path) -> None:
    from clashofdecks.agents.neural import SHIPPED_MODEL

    log = tmp_path / "measures.jsonl"
    command = ["neural-curve", "measure", "--log", str(log), "--checkpoint", str(SHIPPED_MODEL)]
    command += ["--agent", "neural-search", "--search", "10", "--opponent", "random", "--games", "2"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    (entry,) = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert (entry["agent"], entry["opponent"], entry["games"]) == ("neural-search:10", "random", 2)
    refused = CliRunner().invoke(main, [*command[:6], "--agent", "neural-search"])
    assert refused.exit_code == 2 and "needs --search N" in refused.output
