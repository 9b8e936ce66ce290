"""Self-play training of the neural network on the batch (``clash train-neural --method selfplay``)
and its curve (``clash neural-curve``): docs/ai.md, "Self-play on the batch"."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

np = pytest.importorskip("numpy")

from clashofdecks.actions import ACTION_SPACE  # noqa: E402
from clashofdecks.agents.neural import load_model  # noqa: E402
from clashofdecks.agents.registry import make_agent  # noqa: E402
from clashofdecks.cli import main  # noqa: E402
from clashofdecks.cli.train_neural_cmd import selfplay_batch  # noqa: E402
from clashofdecks.formats import new_game  # noqa: E402
from clashofdecks.simulation.neural_selfplay import (  # noqa: E402
    SelfPlaySettings,
    local_collector,
    sample_actions,
    train_selfplay,
)
from clashofdecks.simulation.neural_training import TrainingError  # noqa: E402

TINY = SelfPlaySettings(
    games=8, shards=2, steps=40, iterations=3, hidden=16, epochs=1, minibatch=64, eval_games=0, seed=3
)


def test_sampled_actions_are_legal_and_follow_the_distribution() -> None:
    from clashofdecks.simulation.neural_selfplay import policy_and_value

    rng = np.random.default_rng(1)
    tensors = load_model().tensors
    mask = np.zeros((2000, ACTION_SPACE), dtype=bool)
    mask[:, [3, 40, 779]] = True
    obs = np.zeros((2000, tensors["w1"].shape[0]), dtype=np.float32)
    logp, value = policy_and_value(tensors, obs, mask)
    actions = sample_actions(logp, rng)
    assert set(actions.tolist()) <= {3, 40, 779} and value.shape == (2000,)
    share = np.mean(actions == 40)
    assert abs(share - np.exp(logp[0, 40])) < 0.05  # 2,000 draws: a few standard errors


def test_a_tiny_selfplay_run_writes_a_loadable_checkpoint_whose_policy_changed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    command = ["train-neural", "--method", "selfplay", "--out-dir", str(tmp_path), "--games", "8"]
    command += ["--shards", "2", "--steps", "40", "--iterations", "3", "--hidden", "16", "--epochs", "1"]
    result = CliRunner().invoke(main, [*command, "--eval-games", "0", "--seed", "3"])
    assert result.exit_code == 0, result.output
    last = tmp_path / "latest.bin"
    first, trained = load_model(tmp_path / "ckpt-000.bin"), load_model(last)
    assert trained.card["method"] == "selfplay-ppo" and trained.card["samples"] > 0
    assert not np.array_equal(first.tensors["wp"], trained.tensors["wp"])
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    iterations = [e for e in log if e["kind"] == "iteration"]
    assert [e["iteration"] for e in iterations] == [0, 1, 2]
    assert sum(e["games"] for e in iterations) == trained.card["games"] > 0
    game = new_game(mode="duel", format="draft", seed=2, record_events=False)
    assert game.is_legal(make_agent(f"neural:model={last}").act(game))


def test_the_samples_depend_on_the_seed_not_on_the_run(tmp_path: Path) -> None:
    tensors = load_model().tensors
    (collect, _), (again, _) = local_collector(TINY, selfplay_batch), local_collector(TINY, selfplay_batch)
    a, b = collect(tensors, 0), again(tensors, 0)
    assert len(a) == len(b) and np.array_equal(a.action, b.action) and np.array_equal(a.obs, b.obs)
    other, _ = local_collector(SelfPlaySettings(**{**_fields(TINY), "seed": 4}), selfplay_batch)
    assert not np.array_equal(other(tensors, 0).action, a.action)


def _fields(settings: SelfPlaySettings) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(settings)


def test_bad_settings_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    with pytest.raises(TrainingError, match="multiple of shards"):
        bad = SelfPlaySettings(**{**_fields(TINY), "games": 7})
        train_selfplay(bad, tmp_path / "run", (lambda tensors, iteration: None, lambda: None))  # type: ignore[arg-type,return-value]
    assert not (tmp_path / "run").exists()
    result = CliRunner().invoke(main, ["train-neural", "--out-dir", str(tmp_path), "--steps", "3"])
    assert result.exit_code == 2 and "--steps apply to --method selfplay only" in result.output
    result = CliRunner().invoke(
        main, ["train-neural", "--method", "selfplay", "--out-dir", str(tmp_path), "--teacher", "greedy"]
    )
    assert result.exit_code == 2 and "--teacher apply to --method expert only" in result.output


@pytest.mark.slow
def test_ray_actors_give_the_samples_of_the_local_backend() -> None:
    ray = pytest.importorskip("ray", reason="the cluster extra (pip install '.[cluster]') is not installed")
    from clashofdecks.simulation.neural_selfplay import ray_collector

    tensors = load_model().tensors
    local, _ = local_collector(TINY, selfplay_batch)
    on_ray, close = ray_collector(TINY, selfplay_batch, 2)
    try:
        for iteration in (0, 1):  # the second rollout continues the games of the first
            a, b = local(tensors, iteration), on_ray(tensors, iteration)
            assert len(a) == len(b) > 0 or iteration == 0
            for name in ("obs", "mask", "action", "ret"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
            # the same games and actions; a log-probability may differ in its last bits, as BLAS
            # may sum the forward pass in another order in another process (threads, batch shape)
            assert np.allclose(a.logp, b.logp, rtol=1e-5, atol=1e-6)
            assert (a.positions, a.games) == (b.positions, b.games)
    finally:
        close()
    assert not ray.is_initialized()


# --- the curve -----------------------------------------------------------------------------------


def _strength(seconds: float, agent: str, opponent: str, points: float, games: int = 40) -> dict[str, Any]:
    rate = points / games
    return {
        "kind": "strength",
        "train_seconds": seconds,
        "agent": agent,
        "opponent": opponent,
        "games": games,
        "points": points,
        "ci95": [max(0.0, rate - 0.1), min(1.0, rate + 0.1)],
    }


def test_the_plot_command_draws_one_line_per_agent_and_opponent(tmp_path: Path) -> None:
    entries = [
        {"kind": "iteration", "iteration": 0, "train_seconds": 10.0},
        _strength(0, "neural:0", "greedy", 2),
        _strength(300, "neural:0", "greedy", 9),
        _strength(600, "neural:0", "greedy", 15),
        _strength(0, "neural:1500", "strongest", 50, 100),
        _strength(600, "neural:1500", "strongest", 48, 100),
    ]
    log, kept_apart, out = tmp_path / "log.jsonl", tmp_path / "measures.jsonl", tmp_path / "img" / "curve.svg"
    log.write_text("".join(json.dumps(e) + "\n" for e in entries[:4]), encoding="utf-8")
    kept_apart.write_text("".join(json.dumps(e) + "\n" for e in entries[4:]), encoding="utf-8")
    command = ["neural-curve", "plot", "--log", str(log), "--log", str(kept_apart), "--out", str(out)]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    root = ET.parse(out).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    groups = root.findall("s:g[@class='series']", ns)
    assert [g.get("data-label") for g in groups] == ["neural:0 vs greedy", "neural:1500 vs strongest"]
    lines = [g.find("s:polyline", ns) for g in groups]
    assert [len(line.get("points", "").split()) for line in lines if line is not None] == [3, 2]
    assert len(groups[0].findall("s:circle", ns)) == 3  # a marker per point, whiskers beside
    texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "training time" in texts and "100 %" in texts


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"kind": "strength"}\nnot json\n', "line 2 is not JSON"),
        ('{"kind": "iteration"}\n', "no strength measurements"),
        ('{"kind": "strength", "train_seconds": 1}\n', "lacks agent"),
        ("[1, 2]\n", "line 1 is not a JSON object"),
    ],
)
def test_a_bad_log_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "curve.svg"
    log.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["neural-curve", "plot", "--log", str(log), "--out", str(out)])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert not out.exists()
    missing = CliRunner().invoke(
        main, ["neural-curve", "plot", "--log", str(tmp_path / "no"), "--out", str(out)]
    )
    assert missing.exit_code == 1 and "cannot read the run log" in missing.output


def test_measure_appends_a_strength_line_the_plot_reads(tmp_path: Path) -> None:
    from clashofdecks.agents.neural import SHIPPED_MODEL

    log, out = tmp_path / "measures.jsonl", tmp_path / "curve.svg"
    command = ["neural-curve", "measure", "--log", str(log), "--checkpoint", str(SHIPPED_MODEL)]
    result = CliRunner().invoke(main, [*command, "--opponent", "random", "--games", "2", "--seed", "5"])
    assert result.exit_code == 0, result.output
    (entry,) = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert (entry["agent"], entry["opponent"], entry["games"], entry["seed"]) == ("neural:0", "random", 2, 5)
    card = load_model(SHIPPED_MODEL).card  # the expert-iteration card says training_seconds
    assert entry["train_seconds"] == card.get("train_seconds", card.get("training_seconds"))
    assert (
        CliRunner().invoke(main, ["neural-curve", "plot", "--log", str(log), "--out", str(out)]).exit_code
        == 0
    )
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"not a model")
    result = CliRunner().invoke(
        main, ["neural-curve", "measure", "--log", str(log), "--checkpoint", str(bad)]
    )
    assert result.exit_code == 1 and "not a neural model file" in result.output
