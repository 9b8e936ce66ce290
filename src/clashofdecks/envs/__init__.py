"""Research environments: Gymnasium, PettingZoo and OpenSpiel (``pip install 'clashofdecks[rl]'``).

Importing this package registers the Gymnasium environments ``ClashOfDecks/Solo-v0`` and
``ClashOfDecks/Duel-v0``; :mod:`clashofdecks.envs.pettingzoo` has the duel as a PettingZoo AEC
environment and :mod:`clashofdecks.envs.openspiel` registers the OpenSpiel game
``python_clash_of_decks`` on import.  See ``docs/envs.md``.
"""

from __future__ import annotations

import importlib.util

_MISSING = [name for name in ("numpy", "gymnasium") if importlib.util.find_spec(name) is None]
if _MISSING:
    raise ImportError(
        f"clashofdecks.envs needs {', '.join(_MISSING)}: "
        "install the rl extra (pip install 'clashofdecks[rl]')"
    )

from gymnasium.envs.registration import register, registry  # noqa: E402

from .encoding import (  # noqa: E402
    DEFAULT_MAX_TURNS,
    HISTORY_CAP,
    INFOSTATE_LAYOUT,
    LANE_CAP,
    OBSERVATION_LAYOUT,
    encode_infostate,
    encode_observation,
    legal_mask,
)

SOLO_ID = "ClashOfDecks/Solo-v0"
DUEL_ID = "ClashOfDecks/Duel-v0"

if SOLO_ID not in registry:
    register(id=SOLO_ID, entry_point="clashofdecks.envs.gym_env:SoloEnv")
if DUEL_ID not in registry:
    register(id=DUEL_ID, entry_point="clashofdecks.envs.gym_env:DuelEnv")

__all__ = [
    "DEFAULT_MAX_TURNS",
    "DUEL_ID",
    "HISTORY_CAP",
    "INFOSTATE_LAYOUT",
    "LANE_CAP",
    "OBSERVATION_LAYOUT",
    "SOLO_ID",
    "encode_infostate",
    "encode_observation",
    "legal_mask",
]
