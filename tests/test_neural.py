"""The ``neural`` agent (issue 27): its weights file and its checks, every decision kind played
legally, the spec, the missing-dependency error, and one tiny training iteration end to end."""

from __future__ import annotations

import hashlib
import importlib
import json
import struct
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from clashofdecks.actions import ACTION_SPACE, BUILD_BASE  # noqa: E402
from clashofdecks.agents import neural  # noqa: E402
from clashofdecks.agents.base import Agent  # noqa: E402
from clashofdecks.agents.neural import (  # noqa: E402
    MAGIC,
    SHIPPED_MODEL,
    NeuralAgent,
    NeuralModel,
    NeuralModelError,
    load_model,
)
from clashofdecks.agents.random_agent import RandomAgent  # noqa: E402
from clashofdecks.agents.registry import make_agent  # noqa: E402
from clashofdecks.agents.spec import AgentSpecError  # noqa: E402
from clashofdecks.encoding import OBSERVATION_LAYOUT, encode_observation  # noqa: E402
from clashofdecks.formats import new_game  # noqa: E402
from clashofdecks.options import LEVELS  # noqa: E402
from clashofdecks.rules import DecisionKind, Game  # noqa: E402


def tiny_model(seed: int = 0, hidden: int = 8) -> NeuralModel:
    rng = np.random.default_rng(seed)
    n = OBSERVATION_LAYOUT.size

    def w(*shape: int) -> Any:
        return rng.normal(0.0, 0.1, size=shape).astype(np.float32)

    return NeuralModel(
        {
            "w1": w(n, hidden),
            "b1": w(hidden),
            "w2": w(hidden, hidden),
            "b2": w(hidden),
            "wp": w(hidden, ACTION_SPACE),
            "bp": w(ACTION_SPACE),
            "wv": w(hidden, 1),
            "bv": w(1),
        },
        {"note": "test"},
    )


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("neural") / "tiny.bin"
    tiny_model().save(path)
    return path


def test_a_saved_model_loads_with_the_same_weights(model_file: Path) -> None:
    original = tiny_model()
    loaded = load_model(model_file)
    for name, tensor in original.tensors.items():
        assert np.array_equal(loaded.tensors[name], tensor), name
    assert loaded.card == {"note": "test"}
    game = new_game(mode="duel", format="draft", seed=3, record_events=False)
    logits, value = loaded.forward(encode_observation(game, game.current_player)[None, :])
    assert logits.shape == (1, ACTION_SPACE) and 0.0 < float(value[0]) < 1.0


def test_the_shipped_model_loads_small_and_plays() -> None:
    assert SHIPPED_MODEL.stat().st_size <= 5 * 1024 * 1024
    model = load_model()
    assert model.card.get("samples", 0) > 0
    agent = make_agent("neural", 1)
    game = new_game(mode="duel", format="draft", seed=1, record_events=False)
    assert game.is_legal(agent.act(game))


def _rewrite(path: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of the model file with its header (a dict) or its bytes changed by ``change``."""
    data = path.read_bytes()
    (size,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    header = json.loads(data[start : start + size])
    payload = data[start + size :]
    header, payload = change(header, payload)
    head = json.dumps(header).encode()
    out = tmp_path / "changed.bin"
    out.write_bytes(MAGIC + struct.pack("<I", len(head)) + head + payload)
    return out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h, p: ({**h, "version": 99}, p), "version 99"),
        (lambda h, p: ({**h, "layout": "obs-1-000"}, p), "observation layout 'obs-1-000'"),
        (lambda h, p: (h, p[:-1] + bytes([p[-1] ^ 1])), "checksum"),
        (lambda h, p: (h, p[: len(p) // 2]), "truncated"),
        (lambda h, p: ({**h, "format": "other"}, p), "not a clashofdecks-neural model"),
        (lambda h, p: ({**h, "actions": 12}, p), "12 actions"),
    ],
    ids=["version", "layout", "checksum", "truncated-weights", "format", "actions"],
)
def test_a_bad_model_file_is_refused_clearly(
    model_file: Path, tmp_path: Path, change: Any, message: str
) -> None:
    bad = _rewrite(model_file, tmp_path, change)
    with pytest.raises(NeuralModelError, match=message):
        load_model(bad)
    # The same error reaches whoever names the file in a spec, without a traceback's worth of noise.
    with pytest.raises(AgentSpecError, match=message):
        make_agent(f"neural:model={bad}")


def test_a_truncated_or_foreign_file_is_refused(model_file: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.bin"
    cut.write_bytes(model_file.read_bytes()[:20])
    with pytest.raises(NeuralModelError, match="truncated"):
        load_model(cut)
    other = tmp_path / "other.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(NeuralModelError, match="not a neural model file"):
        load_model(other)
    with pytest.raises(NeuralModelError, match="cannot read"):
        load_model(tmp_path / "missing.bin")


def test_the_checksum_covers_the_weights(model_file: Path) -> None:
    data = model_file.read_bytes()
    (size,) = struct.unpack_from("<I", data, len(MAGIC))
    header = json.loads(data[len(MAGIC) + 4 : len(MAGIC) + 4 + size])
    assert header["sha256"] == hashlib.sha256(data[len(MAGIC) + 4 + size :]).hexdigest()


def test_without_numpy_the_agent_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_numpy(name: str, package: str | None = None) -> Any:
        if name == "numpy":
            raise ImportError("No module named 'numpy'")
        return real(name, package)

    monkeypatch.setattr(neural.importlib, "import_module", no_numpy)
    with pytest.raises(AgentSpecError, match=r"pip install 'clashofdecks\[neural\]'"):
        make_agent("neural")


def test_the_spec_sets_the_search_and_the_model(model_file: Path) -> None:
    agent = make_agent(f"neural:5,model={model_file}", 0)
    assert isinstance(agent, NeuralAgent) and agent.iterations == 5 and agent.search is not None
    agent = make_agent(f"neural:iterations=0,model={model_file}", 0)
    assert isinstance(agent, NeuralAgent) and agent.iterations == 0 and agent.search is None
    with pytest.raises(AgentSpecError, match="iterations must be 0"):
        make_agent(f"neural:iterations=-1,model={model_file}")
    with pytest.raises(AgentSpecError, match="takes no settings"):
        make_agent("neural:cutoff=2")
    with pytest.raises(AgentSpecError, match="bad value"):
        make_agent("neural:iterations=many")


ALL_KINDS = {"play", "cast", "next", "end", "order", "pick", "deck", "build", "ban"}


def _kind(game: Game, action: int) -> str:
    if game.pending is not None:
        return "order"
    if game.phase == "setup" and action >= BUILD_BASE:
        return "build"
    return game.action_text(action).split()[0]


@pytest.mark.parametrize("iterations", [0, 3])
def test_the_agent_plays_every_decision_kind_legally(model_file: Path, iterations: int) -> None:
    """Setup (deck, pick, ban), the custom build, play, cast, next, end and return orders (R3.9), in
    duel and solo, every choice legal; ``faced`` counts the kinds it could choose, ``chosen`` the
    kinds it chose."""
    faced: set[str] = set()
    chosen: Counter[str] = Counter()
    deals = (("duel", "draft"), ("duel", "precon"), ("duel", "custom"), ("solo", "draft"))
    for seed in range(8 if iterations == 0 else 1):
        for mode, fmt in deals:
            game = new_game(mode=mode, format=fmt, seed=seed, record_events=False)
            me = make_agent(f"neural:iterations={iterations},model={model_file}", seed)
            me.reset(seed)
            agents: list[Agent] = [me, RandomAgent(seed + 1)]
            if seed % 2:
                agents.reverse()
            while not game.is_over():
                agent = agents[game.current_player]
                action = agent.act(game)
                assert game.is_legal(action), f"{agent.name} chose illegal {action}"
                if agent is me:
                    chosen[_kind(game, action)] += 1
                    # (a build stage's legal actions are never listed: C(32, 10) decks)
                    building = game.decision_kind is DecisionKind.BUILD
                    faced |= {"build"} if building else {_kind(game, a) for a in game.legal_actions()}
                game.apply(action)
    # The search is slow in Python's setup stage: one deal per format is enough to check its choices.
    if iterations == 0:
        assert faced == ALL_KINDS, f"neural never faced: {ALL_KINDS - faced}"
    assert {"pick", "deck", "ban", "build", "play", "end"} <= set(chosen)


def test_the_policy_alone_is_deterministic(model_file: Path) -> None:
    def line(seed: int) -> list[int]:
        game = new_game(mode="duel", format="draft", seed=4, record_events=False)
        agents = [
            make_agent(f"neural:model={model_file}", seed),
            make_agent(f"neural:model={model_file}", seed + 1),
        ]
        out = []
        while not game.is_over():
            action = agents[game.current_player].act(game)
            out.append(action)
            game.apply(action)
        return out

    assert line(1) == line(2)


def test_one_tiny_training_iteration_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from clashofdecks.simulation.neural_training import TrainSettings, local_selfplay, train

    settings = TrainSettings(
        teacher="ismcts:iterations=4,cutoff=0,eval=learned",
        search_iterations=4,
        games_per_iteration=2,
        iterations=1,
        hidden=8,
        epochs=1,
        seed=8,  # seeds 8 and 9: game 9 is held out
    )
    selfplay, close = local_selfplay(1)
    try:
        last = train(settings, tmp_path, selfplay)
    finally:
        close()
    model = load_model(last)
    assert model.card["samples"] > 0 and model.card["heldout_positions"] > 0
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(log) == 1 and log[0]["iteration"] == 0
    game = new_game(mode="duel", format="draft", seed=2, record_events=False)
    assert game.is_legal(make_agent(f"neural:model={last}").act(game))


# --- the calibrated value head (version 2 files) -------------------------------------------------


def with_value_head(
    model: NeuralModel, seed: int = 1, value_hidden: int = 4, zero: bool = False
) -> NeuralModel:
    """``model`` with a value head of random weights (``zero``: the head's own hidden part at 0 and
    ``va`` 0, ``vk`` 1, i.e. the logistic evaluation itself)."""
    from clashofdecks.agents.evaluation import N_FEATURES
    from clashofdecks.agents.neural import N_CONTEXTS

    rng = np.random.default_rng(seed)
    width = model.tensors["b2"].shape[0] + N_FEATURES + 1 + N_CONTEXTS

    def w(*shape: int) -> Any:
        return (np.zeros(shape) if zero else rng.normal(0.0, 0.1, size=shape)).astype(np.float32)

    head = {
        "vmean": w(N_FEATURES),
        "vstd": np.ones(N_FEATURES, dtype=np.float32),
        "vw1": w(width, value_hidden),
        "vb1": w(value_hidden),
        "vw2": w(value_hidden, 1),
        "vb2": w(1),
        "va": w(N_CONTEXTS),
        "vk": np.ones(N_CONTEXTS, dtype=np.float32) + w(N_CONTEXTS),
    }
    return NeuralModel({**model.tensors, **head}, {"note": "value"})


def test_a_model_with_a_value_head_round_trips_and_judges_duel_and_solo(tmp_path: Path) -> None:
    original = with_value_head(tiny_model())
    path = tmp_path / "value.bin"
    original.save(path)
    loaded = load_model(path)
    assert loaded.has_value_head and not tiny_model().has_value_head
    for name, tensor in original.tensors.items():
        assert np.array_equal(loaded.tensors[name], tensor), name
    chances = set()
    for mode, level in (("duel", None), ("solo", 0), ("solo", 5)):
        threat = None if level is None else LEVELS[level]
        game = new_game(mode=mode, format="draft", seed=5, threat=threat, record_events=False)
        p = neural.win_chance(game, game.current_player, loaded)
        assert 0.0 < p < 1.0
        chances.add(round(p, 6))
    assert len(chances) == 3  # the context one-hot and the solo threat change the answer


def test_a_zero_value_head_is_the_logistic_evaluation() -> None:
    """At zero hidden weights, va 0 and vk 1 the head returns the learned evaluation's chance: the
    head is a correction on top of it (docs/ai.md), and the side inputs are read right."""
    from clashofdecks.agents.evaluation import win_chance as logistic_chance

    model = with_value_head(tiny_model(), zero=True)
    for mode, level in (("duel", None), ("solo", 2), ("solo", 4)):
        threat = None if level is None else LEVELS[level]
        game = new_game(mode=mode, format="draft", seed=11, threat=threat, record_events=False)
        rng = RandomAgent(3)
        for _ in range(40):  # into the play phase
            if game.is_over():
                break
            game.apply(rng.act(game))
        if game.is_over():
            continue
        seat = game.current_player
        assert neural.win_chance(game, seat, model) == pytest.approx(logistic_chance(game, seat), abs=1e-4)


def test_the_context_is_the_mode_and_the_solo_level() -> None:
    from clashofdecks.agents.neural import CONTEXTS, context_of
    from clashofdecks.options import Threat

    assert context_of(new_game(mode="duel", format="draft", seed=1, record_events=False)) == 0
    for level, threat in LEVELS.items():
        game = new_game(mode="solo", format="draft", seed=1, threat=threat, record_events=False)
        assert CONTEXTS[context_of(game)] == f"solo {level}"
    other = new_game(
        mode="solo",
        format="draft",
        seed=1,
        threat=Threat(base_mana=9, defence="minus_one"),
        record_events=False,
    )
    assert CONTEXTS[context_of(other)] == "solo 3"  # another allocation: the level of its base mana


def test_a_version_1_file_loads_without_a_value_head_and_may_not_carry_one(tmp_path: Path) -> None:
    plain = tmp_path / "plain.bin"
    tiny_model().save(plain)
    old = _rewrite(plain, tmp_path, lambda h, p: ({**h, "version": 1}, p))
    assert not load_model(old).has_value_head
    full = tmp_path / "full.bin"
    with_value_head(tiny_model()).save(full)
    old_full = _rewrite(full, tmp_path, lambda h, p: ({**h, "version": 1}, p))
    with pytest.raises(NeuralModelError, match="optionally"):
        load_model(old_full)


def test_a_value_head_of_the_wrong_width_is_refused(tmp_path: Path) -> None:
    bad = with_value_head(tiny_model())
    bad.tensors["vw1"] = bad.tensors["vw1"][1:]
    path = tmp_path / "bad.bin"
    bad.save(path)
    with pytest.raises(NeuralModelError, match="tensor vw1 has shape"):
        load_model(path)


def test_the_value_commands_generate_fit_and_print_the_calibration_table(
    model_file: Path, tmp_path: Path
) -> None:
    """On a tiny set (10 greedy games per context: every split of the seeds present), end to end:
    the data, the fit, the held-out table of every context; and a second generation is the same."""
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from clashofdecks.cli import main
    from clashofdecks.simulation.neural_value import CONTEXTS

    runner = CliRunner()
    data = tmp_path / "data"
    args = ["neural-value", "generate", "--data", str(data), "--games", "10", "--agent", "greedy"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    first = {f.name: np.load(f)["won"].tolist() for f in data.glob("block-*.npz")}
    again = tmp_path / "again"
    assert runner.invoke(main, [*args[:3], str(again), *args[4:]]).exit_code == 0
    assert {f.name: np.load(f)["won"].tolist() for f in again.glob("block-*.npz")} == first
    out = tmp_path / "fitted.bin"
    result = runner.invoke(
        main,
        [
            "neural-value",
            "fit",
            "--data",
            str(data),
            "--model",
            str(model_file),
            "--out",
            str(out),
            "--epochs",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert load_model(out).has_value_head
    result = runner.invoke(main, ["neural-value", "calibration", "--data", str(data), "--model", str(out)])
    assert result.exit_code == 0, result.output
    for context in CONTEXTS:
        assert f"{context}: " in result.output
    assert result.output.count("network:") == len(CONTEXTS)
    assert result.output.count("logistic:") == len(CONTEXTS)
    # The whole run in one command: self-play, then the value head on the same data, then shipped.
    run, shipped = tmp_path / "run", tmp_path / "shipped.bin"
    result = runner.invoke(
        main,
        [
            *("train-neural", "--out-dir", str(run), "--iterations", "1", "--games", "2", "--hidden", "8"),
            *("--teacher", "ismcts:iterations=4,cutoff=0,eval=learned", "--search-iterations", "4"),
            *("--epochs", "1", "--seed", "8", "--value-data", str(data), "--ship", str(shipped)),
        ],
    )
    assert result.exit_code == 0, result.output
    assert load_model(shipped).has_value_head and "solo 5: " in result.output


def test_the_value_commands_refuse_bad_input_clearly(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from clashofdecks.cli import main

    runner = CliRunner()
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"CLASHNN1")
    result = runner.invoke(
        main, ["neural-value", "calibration", "--data", str(tmp_path), "--model", str(bad)]
    )
    assert (
        result.exit_code == 1
        and "not a neural model file" in result.output
        and "Traceback" not in result.output
    )
    result = runner.invoke(main, ["neural-value", "calibration", "--data", str(tmp_path)])
    assert result.exit_code == 1 and "no value data files" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    result = runner.invoke(
        main, ["neural-value", "generate", "--data", str(tmp_path), "--games", "1", "--agent", "nobody"]
    )
    assert result.exit_code == 2 and "--agent" in result.output
    assert not list(tmp_path.glob("block-*.npz"))
