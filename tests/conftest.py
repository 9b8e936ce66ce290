"""Shared test helpers: random solo positions and random play (fixtures, so any test module can use them).

Kept small on purpose: every module that needs more builds it locally.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
from collections.abc import Callable
from typing import Any

import pytest

import process_tools
from clashofdecks import CARDS, Game
from random_play import play_randomly

CARD_IDS = [c.id for c in CARDS]
_SUBREAPER = pytest.StashKey[bool]()


def solo_position(rng: random.Random, **extra: Any) -> dict[str, Any]:
    """A solo quick-game start (R7.1) with a random split of the 32 cards: the player holds 8 cards
    behind the Bastion, the automaton deck holds the other 24 above its Bastion; turn 1, the player
    to act with 6 mana.  ``extra`` adds or overrides top-level keys (``threat``, ``ruleset``...)."""
    cards = CARD_IDS[:]
    rng.shuffle(cards)
    position: dict[str, Any] = {
        "mode": "solo",
        "turn": 1,
        "active": 0,
        "phase": "summon",
        "mana": 6,
        "players": [
            {"hand": ["BASTION", *cards[:8]], "lanes": {"top": [], "bottom": []}},
            {
                "automaton": True,
                "deck": [*cards[8:], "BASTION"],
                "discard": [],
                "lanes": {"top": [], "bottom": []},
            },
        ],
    }
    position.update(extra)
    return position


@pytest.fixture(scope="session")
def make_solo_position() -> Callable[..., dict[str, Any]]:
    return solo_position


@pytest.fixture(scope="session")
def random_play() -> Callable[..., Game]:
    return play_randomly


# ---------------------------------------------------------------------------- slow tests, the fast target

#: Modules whose tests are all ``slow`` (real servers and browsers, both engines in lockstep over
#: hundreds of games, simulations, searches, the research environments, optional extras): ``make
#: test-fast`` (``pytest --fast``) does not even import them.  A slow test elsewhere is marked
#: ``@pytest.mark.slow`` where it is defined.
SLOW_MODULES = frozenset(
    {
        "web",  # the folder: a real server per test module, Chromium
        "test_arena.py",
        "test_bench.py",
        "test_cli_play.py",
        "test_cluster.py",
        "test_deck_evaluation.py",
        "test_envs.py",
        "test_envs_encoding_pins.py",
        "test_envs_openspiel.py",
        "test_envs_training.py",
        "test_evaluation.py",
        "test_native.py",
        "test_native_evaluation.py",
        "test_native_greedy.py",
        "test_native_search.py",
        "test_properties.py",
        "test_readme.py",
        "test_report.py",
        "test_search.py",
        "test_simulate.py",
        "test_simulate_core.py",
        "test_solo_properties.py",
        "test_store.py",
        "test_worker_processes.py",
    }
)
_TESTS = os.path.dirname(os.path.abspath(__file__))


def _slow_module(path: str) -> bool:
    rel = os.path.relpath(path, _TESTS)
    return not rel.startswith("..") and rel.split(os.sep)[0] in SLOW_MODULES


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the everyday subset: skip every slow test (make test-fast); slow modules are not imported",
    )


def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    if config.getoption("--fast") and _slow_module(str(collection_path)):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _slow_module(str(item.path)):
            item.add_marker(pytest.mark.slow)
    if config.getoption("--fast"):
        kept = [item for item in items if item.get_closest_marker("slow") is None]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[i for i in items if i not in kept])
            items[:] = kept


# ---------------------------------------------------------------------------- no process left behind


def pytest_configure(config: pytest.Config) -> None:
    # Adopt orphans (Linux): a process a test leaves behind, even one whose parent was killed, stays
    # this run's child, so the check at the end of the run sees it.
    config.stash[_SUBREAPER] = process_tools.become_subreaper()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run leaves no process behind: every process a test started (or its process started) has
    ended by the end of the run.  The run fails otherwise, naming them, and they are stopped."""
    if not session.config.stash.get(_SUBREAPER, False):
        return
    import multiprocessing.resource_tracker as tracker

    process_tools.reap_zombies()
    own_tracker = getattr(tracker._resource_tracker, "_pid", None)  # ends with this process, by design
    left = process_tools.wait_gone(process_tools.children(os.getpid()) - {own_tracker}, hang_guard_s=10.0)
    process_tools.reap_zombies()
    if not left:
        return
    names = [f"{pid}: {process_tools.command_line(pid)}" for pid in sorted(left)]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    process_tools.reap_zombies()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "processes left behind by the tests (now stopped)", red=True)
        for name in names:
            reporter.write_line(f"  {name}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
