"""Research environments: Gymnasium, PettingZoo and OpenSpiel (``pip install 'clashofdecks[rl]'``).

Importing this package registers the Gymnasium environments ``ClashOfDecks/Solo-v1`` and
``ClashOfDecks/Duel-v1`` (with a batched form for ``gymnasium.make_vec``, :mod:`.vector`; and the
older ``-v0`` ids, unchanged); :mod:`clashofdecks.envs.selfplay` has ``SelfPlayBatch``, N games where the
caller decides for both seats (self-play trainers); :mod:`clashofdecks.envs.pettingzoo_v1`
has the duel as PettingZoo AEC and parallel environments (:mod:`clashofdecks.envs.pettingzoo` the older
``clash_of_decks_v0``) and :mod:`clashofdecks.envs.openspiel` registers the OpenSpiel game
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
SOLO_V1_ID = "ClashOfDecks/Solo-v1"
DUEL_V1_ID = "ClashOfDecks/Duel-v1"

if SOLO_ID not in registry:
    register(id=SOLO_ID, entry_point="clashofdecks.envs.gym_env:SoloEnv")
if DUEL_ID not in registry:
    register(id=DUEL_ID, entry_point="clashofdecks.envs.gym_env:DuelEnv")
if SOLO_V1_ID not in registry:
    register(
        id=SOLO_V1_ID,
        entry_point="clashofdecks.envs.gym_env:SoloEnvV1",
        vector_entry_point="clashofdecks.envs.vector:make_solo_vector",
    )
if DUEL_V1_ID not in registry:
    register(
        id=DUEL_V1_ID,
        entry_point="clashofdecks.envs.gym_env:DuelEnvV1",
        vector_entry_point="clashofdecks.envs.vector:make_duel_vector",
    )

__all__ = [
    "DEFAULT_MAX_TURNS",
    "DUEL_ID",
    "DUEL_V1_ID",
    "HISTORY_CAP",
    "INFOSTATE_LAYOUT",
    "LANE_CAP",
    "OBSERVATION_LAYOUT",
    "SOLO_ID",
    "SOLO_V1_ID",
    "encode_infostate",
    "encode_observation",
    "legal_mask",
]
