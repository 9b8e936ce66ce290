"""No constant kept twice: the constants compiled into the core (card count, action layout, stages,
terminations, ability bits, the greedy weights and the learned features' layout) are checked at import
against the Python definitions; a difference is an ImportError naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clashofdecks import native
from clashofdecks.agents import evaluation, greedy
from clashofdecks.native import PYTHON_LAYOUT, check_layout, layout_differences

built = pytest.mark.skipif(not native.AVAILABLE, reason="the compiled core is not built")


@built
def test_the_compiled_constants_are_the_python_ones() -> None:
    from clashofdecks._native import LAYOUT

    assert layout_differences(LAYOUT, PYTHON_LAYOUT) == []
    assert LAYOUT["L_FEATURES"] == evaluation.N_FEATURES
    assert LAYOUT["L_THREAT_FIRST"] == evaluation.THREAT_FIRST
    assert LAYOUT["G_WEIGHTS"] == len(greedy.weight_values(greedy.DEFAULT_WEIGHTS))


def test_a_difference_is_named() -> None:
    compiled = dict(PYTHON_LAYOUT)
    compiled["CAST_BASE"] += 1
    del compiled["SPRINT"]
    assert layout_differences(compiled, PYTHON_LAYOUT) == [
        f"CAST_BASE: C {PYTHON_LAYOUT['CAST_BASE'] + 1}, Python {PYTHON_LAYOUT['CAST_BASE']}",
        f"SPRINT: C missing, Python {PYTHON_LAYOUT['SPRINT']}",
    ]


@built
def test_check_layout_raises_import_error_on_a_difference() -> None:
    with pytest.raises(ImportError, match=r"other constants than the test: N_CARDS: C 32, Python 33"):
        check_layout({**PYTHON_LAYOUT, "N_CARDS": 33}, "the test")
    check_layout(PYTHON_LAYOUT, "the test")


@built
def test_importing_with_a_changed_python_constant_fails_clearly() -> None:
    """A Python definition changed without the C core (simulated: ``PLAY_BASE`` moved before the core
    is imported): the import of the core's face fails and names the constant."""
    code = (
        "import clashofdecks.actions as A\n"
        "import sys\n"
        "A.PLAY_BASE = 3\n"
        "sys.modules.pop('clashofdecks.native', None)\n"
        "import importlib\n"
        "try:\n"
        "    importlib.import_module('clashofdecks.native')\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "PLAY_BASE: C 2, Python 3" in out, out


@built
def test_the_batch_encoder_s_constants_are_the_encoding_s() -> None:
    """The compiled batch's observation encoder (envs/vector.py) and action space: checked when
    ``clashofdecks.encoding`` is imported."""
    pytest.importorskip("numpy")  # the encoding is numpy's (the rl extra): skipped without it
    from clashofdecks import actions, encoding
    from clashofdecks._native import BATCH_ACTION_SPACE, LAYOUT

    assert LAYOUT["ACTION_SPACE"] == BATCH_ACTION_SPACE == actions.ACTION_SPACE
    assert (LAYOUT["E_HAND_CAP"], LAYOUT["E_LANE_CAP"], LAYOUT["E_FEATURES"]) == (
        encoding.HAND_CAP,
        encoding.LANE_CAP,
        encoding.CREATURE_FEATURES,
    )
    assert (LAYOUT["E_CARD_KINDS"], LAYOUT["E_DEFAULT_TURNS"]) == (
        encoding.CARD_KINDS,
        encoding.DEFAULT_MAX_TURNS,
    )


@built
def test_an_encoder_compiled_with_other_constants_fails_the_encoding_s_import() -> None:
    """A core compiled with another encoder constant (simulated: the core's ``LAYOUT`` changed before
    the encoding is imported): the import fails and names the constant."""
    pytest.importorskip("numpy")  # without numpy the import fails for that reason, not the constant
    code = (
        "import clashofdecks.native as native\n"
        "native.LAYOUT['E_HAND_CAP'] = 10\n"
        "try:\n"
        "    import clashofdecks.encoding\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "other constants than encoding.py: E_HAND_CAP: C 10, Python 9" in out, out
