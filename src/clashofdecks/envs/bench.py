"""The environments' benchmark: PettingZoo AEC steps per second, ours beside PettingZoo's classic games.

Definition: the caller steps both seats of an AEC environment through ``agent_iter``/``last``: every
step builds the observation and the mask of the agent to move (``last()``), picks a uniformly random
legal action from the mask with a seeded NumPy generator, and steps; finished games are reset.  The
random integers are drawn in blocks of 1,024 and the legal actions are the mask's ``nonzero()`` (one
``rng.integers`` and one ``np.flatnonzero`` call per step cost more than twice as much CPU time).
Steps/s are steps over CPU time of this process (``time.process_time``), best of ``rounds`` rounds,
each of at least ``seconds`` of CPU time after a short warm-up, on one core.  PettingZoo's classic
games (Leduc hold'em, chess, tic-tac-toe and connect four) are measured the same way in the same run
when their packages are installed (the ``envbench`` extra); a game that cannot be made is
reported with the reason instead of a figure.

The batched environments (``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``,
:mod:`.vector`) are measured as learner steps per second: N times the ``step()`` calls over the CPU
time spent inside ``step()`` (observations, masks, rewards, the opponent's moves and autoresets
included; the caller's choice of a uniformly random legal action per game, from the masks with NumPy,
is outside), best of ``rounds`` rounds.

The self-play batch (:class:`~.selfplay.SelfPlayBatch`: the caller decides for both seats) is
measured the same way: decisions per second, N times the ``step()`` calls over the CPU time inside
``step()`` (the check of the actions against the masks, the observations and masks of the seats to
decide, and the same-step autoresets included; the random legal actions chosen from the masks with
NumPy outside).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

#: Our goal for the duel environment (issue 11).
GOAL_STEPS_PER_SECOND: Final = 20_000
#: Issue 27's goal for a batched environment at N = 1,024 against ``random`` (time inside ``step``).
GOAL_BATCHED_STEPS_PER_SECOND: Final = 500_000
#: The batched environments measured: (label, Gymnasium id, options).
BATCHED_ENVS: Final[tuple[tuple[str, str, dict[str, Any]], ...]] = (
    ("Duel-v1 batch vs random (draft: the default)", "ClashOfDecks/Duel-v1", {}),
    ("Duel-v1 batch vs random (draft, uint8)", "ClashOfDecks/Duel-v1", {"observation_dtype": "uint8"}),
    (
        "Duel-v1 batch vs random (draft, uint8, copy=False)",
        "ClashOfDecks/Duel-v1",
        {"observation_dtype": "uint8", "copy": False},
    ),
    ("Duel-v1 batch vs random (random deal)", "ClashOfDecks/Duel-v1", {"format": "random"}),
    (
        "Duel-v1 batch vs random (random deal, copy=False)",
        "ClashOfDecks/Duel-v1",
        {"format": "random", "copy": False},
    ),
    (
        "Duel-v1 batch vs random (random deal, uint8)",
        "ClashOfDecks/Duel-v1",
        {"format": "random", "observation_dtype": "uint8"},
    ),
    (
        "Duel-v1 batch vs random (random deal, uint8, copy=False)",
        "ClashOfDecks/Duel-v1",
        {"format": "random", "observation_dtype": "uint8", "copy": False},
    ),
    (
        "Duel-v1 batch vs greedy (random deal)",
        "ClashOfDecks/Duel-v1",
        {"format": "random", "opponent": "greedy"},
    ),
    ("Duel-v1 batch vs greedy (draft)", "ClashOfDecks/Duel-v1", {"opponent": "greedy"}),
    ("Solo-v1 batch vs the automaton (level 0, draft: the default)", "ClashOfDecks/Solo-v1", {}),
    (
        "Solo-v1 batch vs the automaton (level 0, uint8)",
        "ClashOfDecks/Solo-v1",
        {"observation_dtype": "uint8"},
    ),
    (
        "Solo-v1 batch vs the automaton (level 0, uint8, copy=False)",
        "ClashOfDecks/Solo-v1",
        {"observation_dtype": "uint8", "copy": False},
    ),
)
#: The self-play batches measured: (label, mode, options).
SELF_PLAY_BATCHES: Final[tuple[tuple[str, str, dict[str, Any]], ...]] = (
    ("SelfPlayBatch duel (draft: the default)", "duel", {}),
    ("SelfPlayBatch duel (draft, uint8)", "duel", {"observation_dtype": "uint8"}),
    ("SelfPlayBatch duel (random deal)", "duel", {"format": "random"}),
    ("SelfPlayBatch duel (random deal, uint8)", "duel", {"format": "random", "observation_dtype": "uint8"}),
    ("SelfPlayBatch solo (level 0, draft)", "solo", {}),
)
#: Environments measured beside ours: (label, PettingZoo registry id, module of older PettingZoo
#: releases, constructor keyword arguments).
CLASSIC_ENVS: Final[tuple[tuple[str, str, str, dict[str, Any]], ...]] = (
    ("pettingzoo leduc_holdem_v4", "classic/leduc_holdem-v4", "pettingzoo.classic.leduc_holdem_v4", {}),
    ("pettingzoo chess_v6", "classic/chess-v6", "pettingzoo.classic.chess_v6", {}),
    ("pettingzoo tictactoe_v3", "classic/tictactoe-v3", "pettingzoo.classic.tictactoe_v3", {}),
    ("pettingzoo connect_four_v3", "classic/connect_four-v3", "pettingzoo.classic.connect_four_v3", {}),
)


def classic_maker(registry_id: str, module: str, kwargs: dict[str, Any]) -> Callable[[], Any]:
    """A maker of one of PettingZoo's classic games: through its registry (``pettingzoo.make``, from
    PettingZoo 1.27; importing the old per-game modules there warns that they are deprecated), else
    the game's module.  Raises ImportError (naming the missing package) if the game cannot be made."""
    import pettingzoo

    make_registered = getattr(pettingzoo, "make", None)
    try:
        if make_registered is not None and registry_id in getattr(pettingzoo, "aec_registry", {}):
            make_registered("aec", registry_id, **kwargs).close()  # fail now, not inside the timing

            def make() -> Any:
                return make_registered("aec", registry_id, **kwargs)

            return make
        mod = importlib.import_module(module)
    except Exception as exc:  # PettingZoo's FailedToImport is no ImportError: name the missing package
        cause = exc.__cause__ or exc
        raise ImportError(f"{type(cause).__name__}: {cause}") from exc

    def make_old() -> Any:
        return mod.env(**kwargs)

    return make_old


def aec_steps_per_second(
    make: Callable[[], Any], *, seconds: float = 2.0, rounds: int = 3, seed: int = 0
) -> float:
    """Steps/s of the AEC environment ``make()`` under the definition of this module's docstring:
    each round steps in chunks of 200 until ``seconds`` of CPU time have passed."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    game_seed = seed
    draws: list[int] = []

    def run(n: int) -> None:
        nonlocal game_seed, draws
        done = 0
        while done < n:
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                if not env.agents or all(
                    env.terminations.get(a) or env.truncations.get(a) for a in env.agents
                ):
                    game_seed += 1
                    env.reset(seed=game_seed)
                    continue
                env.step(None)
            else:
                if not draws:
                    draws = rng.integers(0, 2**62, size=1024).tolist()
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[draws.pop() % len(legal)]))  # uniform: 2**62 is far above len
            done += 1

    run(200)  # warm-up
    best = 0.0
    for _ in range(rounds):
        steps = 0
        start = time.process_time()
        while True:
            run(200)
            steps += 200
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                break
        best = max(best, steps / elapsed)
    env.close()
    return best


def ours(format: str = "random", *, raw: bool = False) -> Callable[[], Any]:
    """A maker of the duel environment (the benchmark's random deal by default: play from step one);
    ``raw``: without PettingZoo's order-enforcing wrapper."""

    def make() -> Any:
        from .pettingzoo import env, raw_env

        return raw_env(format=format) if raw else env(format=format)

    return make


def batched_steps_per_second(
    env_id: str,
    num_envs: int,
    *,
    seconds: float = 2.0,
    rounds: int = 3,
    seed: int = 0,
    **kwargs: Any,
) -> tuple[float, str]:
    """Learner steps/s of ``num_envs`` games of ``env_id`` stepped by the batched environment, under
    the definition of this module's docstring (each round: ``step()`` calls until ``seconds`` of CPU
    time were spent inside them), and the backend that stepped them."""
    import gymnasium

    from . import DUEL_V1_ID  # noqa: F401 - registers the ids

    envs = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    rng = np.random.default_rng(seed)
    _obs, info = envs.reset(seed=seed)

    def actions(masks: npt.NDArray[np.int8]) -> npt.NDArray[np.intp]:
        # The largest of uniform keys over the legal actions is a uniform legal action (0 if none).
        chosen: npt.NDArray[np.intp] = np.argmax(rng.random(masks.shape) * masks, axis=1)
        return chosen

    _obs, _r, _t, _u, info = envs.step(actions(info["action_mask"]))  # warm-up
    best = 0.0
    for _ in range(rounds):
        inside, calls = 0.0, 0
        while inside < seconds:
            chosen = actions(info["action_mask"])
            start = time.process_time()
            _obs, _r, _t, _u, info = envs.step(chosen)
            inside += time.process_time() - start
            calls += 1
        best = max(best, calls * num_envs / inside)
    backend = str(getattr(envs.unwrapped, "backend", "?"))
    envs.close()
    return best, backend


def selfplay_steps_per_second(
    mode: str,
    num_games: int,
    *,
    seconds: float = 2.0,
    rounds: int = 3,
    seed: int = 0,
    **options: Any,
) -> tuple[float, str]:
    """Decisions/s of ``num_games`` games stepped by a :class:`~.selfplay.SelfPlayBatch` (the
    module docstring's definition), and the backend that stepped them."""
    from .selfplay import SelfPlayBatch

    batch = SelfPlayBatch(num_games, mode, copy=False, **options)
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)

    def actions(masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
        # The largest of uniform keys over the legal actions is a uniform legal action.
        chosen: npt.NDArray[np.intp] = np.argmax(rng.random(masks.shape) * masks, axis=1)
        return chosen

    batch.step(actions(batch.mask))  # warm-up
    best = 0.0
    for _ in range(rounds):
        inside, calls = 0.0, 0
        while inside < seconds:
            chosen = actions(batch.mask)
            start = time.process_time()
            batch.step(chosen)
            inside += time.process_time() - start
            calls += 1
        best = max(best, calls * num_games / inside)
    return best, batch.backend


def run_batched_bench(*, num_envs: int = 1024, seconds: float = 2.0, rounds: int = 3) -> dict[str, Any]:
    """The batched environments' figures: ``{"definition", "num_envs", "goal", "steps_per_second",
    "backends"}`` (the backend that stepped each: ``compiled`` or ``python``)."""
    figures: dict[str, float] = {}
    backends: dict[str, str] = {}
    for label, env_id, kwargs in BATCHED_ENVS:
        figures[label], backends[label] = batched_steps_per_second(
            env_id, num_envs, seconds=seconds, rounds=rounds, **kwargs
        )
    self_play: dict[str, float] = {}
    for label, mode, options in SELF_PLAY_BATCHES:
        self_play[label], backends[label] = selfplay_steps_per_second(
            mode, num_envs, seconds=seconds, rounds=rounds, **options
        )
    return {
        "definition": "learner steps/s of the batched -v1 environments: N x step() calls over CPU time "
        "inside step() (observation and mask included), one core, best of rounds",
        "num_envs": num_envs,
        "goal_steps_per_second": GOAL_BATCHED_STEPS_PER_SECOND,
        "steps_per_second": figures,
        "self_play_definition": "decisions/s of SelfPlayBatch (both seats the caller's): N x step() calls "
        "over CPU time inside step() (observation and mask of the seat to decide included), one core",
        "self_play_steps_per_second": self_play,
        "backends": backends,
    }


def run_envs_bench(
    *, seconds: float = 2.0, rounds: int = 3, classic: bool = True, batched_envs: int = 0
) -> dict[str, Any]:
    """The benchmark's figures: ``{"clash_of_decks duel (random deal)": steps/s, ...}`` plus the goal;
    a classic game that cannot be made maps to the reason (a string).  With ``batched_envs`` N > 0,
    also the batched environments at N games (``"batched"``)."""
    results: dict[str, Any] = {
        "definition": "AEC steps/s, both seats stepped by the caller: last() (observation + mask), "
        "a random legal action from the mask, step(); CPU time, one core, best of rounds",
        "goal_steps_per_second": GOAL_STEPS_PER_SECOND,
        "seconds_per_round": seconds,
        "rounds": rounds,
    }
    figures: dict[str, float | str] = {
        "clash_of_decks duel (random deal)": aec_steps_per_second(
            ours("random"), seconds=seconds, rounds=rounds
        ),
        "clash_of_decks duel (draft)": aec_steps_per_second(ours("draft"), seconds=seconds, rounds=rounds),
        "clash_of_decks duel raw_env (random deal)": aec_steps_per_second(
            ours("random", raw=True), seconds=seconds, rounds=rounds
        ),
    }
    if classic:
        for label, registry_id, module, kwargs in CLASSIC_ENVS:
            try:
                make = classic_maker(registry_id, module, kwargs)
            except ImportError as exc:  # a missing optional package: say so instead of a figure
                figures[label] = f"not measured: {exc}"
                continue
            figures[label] = aec_steps_per_second(make, seconds=seconds, rounds=rounds)
    results["steps_per_second"] = figures
    if batched_envs > 0:
        results["batched"] = run_batched_bench(num_envs=batched_envs, seconds=seconds, rounds=rounds)
    return results


def format_envs_bench(results: dict[str, Any]) -> str:
    """The figures as a small text table."""
    lines = [f"environments: {results['definition']}"]
    for label, value in results["steps_per_second"].items():
        shown = f"{value:>12,.0f} steps/s" if isinstance(value, float) else value
        lines.append(f"  {label:<44} {shown}")
    lines.append(f"  goal for the duel environment: >= {results['goal_steps_per_second']:,} steps/s")
    batched = results.get("batched")
    if batched is not None:
        lines.append(f"batched environments, N = {batched['num_envs']:,}: {batched['definition']}")
        for label, value in batched["steps_per_second"].items():
            backend = batched.get("backends", {}).get(label, "?")
            lines.append(f"  {label:<62} {value:>12,.0f} steps/s  ({backend})")
        lines.append(f"  goal (N = 1,024, vs random): >= {batched['goal_steps_per_second']:,} steps/s")
        if batched.get("self_play_steps_per_second"):
            lines.append(f"self-play batch, N = {batched['num_envs']:,}: {batched['self_play_definition']}")
            for label, value in batched["self_play_steps_per_second"].items():
                backend = batched.get("backends", {}).get(label, "?")
                lines.append(f"  {label:<62} {value:>12,.0f} steps/s  ({backend})")
    return "\n".join(lines)


if __name__ == "__main__":
    print(format_envs_bench(run_envs_bench(seconds=1.0, rounds=2)))
