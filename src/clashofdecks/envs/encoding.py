"""The observation encoder's old home, kept for existing imports: it now lives in
:mod:`clashofdecks.encoding`, a layer that both the agents (the ``neural`` agent) and the
environments may import (docs/envs.md)."""

from __future__ import annotations

from ..encoding import (
    CARD_KINDS,
    CREATURE_FEATURES,
    DEFAULT_MAX_TURNS,
    HAND_CAP,
    HISTORY_CAP,
    HISTORY_SCALE,
    INFOSTATE_LAYOUT,
    LANE_CAP,
    OBS_HIGH,
    OBSERVATION_LAYOUT,
    OBSERVATION_LAYOUT_ID,
    SETUP_VERBS,
    STAT_SCALE,
    Layout,
    Slice,
    encode_infostate,
    encode_observation,
    layout_id,
    legal_mask,
    public_action,
)

__all__ = [
    "CARD_KINDS",
    "CREATURE_FEATURES",
    "DEFAULT_MAX_TURNS",
    "HAND_CAP",
    "HISTORY_CAP",
    "HISTORY_SCALE",
    "INFOSTATE_LAYOUT",
    "LANE_CAP",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_LAYOUT_ID",
    "OBS_HIGH",
    "SETUP_VERBS",
    "STAT_SCALE",
    "Layout",
    "Slice",
    "encode_infostate",
    "encode_observation",
    "layout_id",
    "legal_mask",
    "public_action",
]
