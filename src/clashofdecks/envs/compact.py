"""The compact observation of the batched environments: ``observation_dtype="uint8"``.

Every feature of the observation vector (:data:`~.encoding.OBSERVATION_LAYOUT`) is a count ``k``
written as ``k * float32(1 / scale)`` (a one-hot is the count 1 of scale 1; damage, attack, mana are
tenths; hand places ninths; lane sizes twelfths; ...), and every count the encoder writes is at most
255.  The ``uint8`` observation is the counts themselves: a quarter of the bytes, so a quarter of
the memory written and copied at every step.  :func:`unit_vector` gives the per-feature
``float32(1 / scale)``; ``counts * units`` (in float32) is the float observation again, bit for bit,
for every feature but ``turn / max_turns``, which is computed in double and then rounded (there the
product may differ in the last bit).  The turn itself is the count of the ``turn`` feature (scale
``max_turns``), capped at 255 like the other counts.

Only the observation vector has a compact form (the information state's history entries are action
integers up to 780).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from ..cards import N_CARDS
from .encoding import CREATURE_FEATURES, HAND_CAP, LANE_CAP, OBSERVATION_LAYOUT, STAT_SCALE

#: The observation dtypes of the batched environments.
OBSERVATION_DTYPES: Final = ("float32", "uint8")
#: The largest count of a uint8 feature (the encoder caps its counts there too).
COUNT_CAP: Final = 255


def _creature_scales() -> list[float]:
    """A creature's features: present, one-hot card, 5 stats (tenths), new, protected, activated,
    sprint bonus (tenths), the 7 abilities."""
    scales = [1.0] * (1 + N_CARDS) + [STAT_SCALE] * 5 + [1.0, 1.0, 1.0, STAT_SCALE]
    scales += [1.0] * (CREATURE_FEATURES - len(scales))
    return scales


def count_scales(max_turns: int) -> npt.NDArray[np.float64]:
    """Per feature of the observation vector, the scale of its count (feature = count / scale)."""
    scales = np.ones(OBSERVATION_LAYOUT.size, dtype=np.float64)
    parts: dict[str, list[float]] = {
        "turn": [float(max_turns), 1.0],
        "mana": [STAT_SCALE],
        "fortress": [1.0, HAND_CAP, HAND_CAP] * 2,
        "lanes": _creature_scales() * (2 * 2 * LANE_CAP),
        "lane_sizes": [float(LANE_CAP)] * 4,
        "automaton_flags": [1.0, 1.0, 24.0],
        "threat": [1.0, STAT_SCALE] + [1.0] * 8,
        "setup_counts": [float(N_CARDS), 32.0, 4.0, 1.0],
    }
    for name, values in parts.items():
        part = OBSERVATION_LAYOUT.slices[name]
        assert part.size == len(values), name  # the layout and this table agree
        scales[part.start : part.stop] = values
    return scales


def unit_vector(max_turns: int) -> npt.NDArray[np.float32]:
    """Per feature, ``float32(1 / scale)``: ``counts.astype(float32) * units`` is the float
    observation (see the module docstring for the turn feature)."""
    return (1.0 / count_scales(max_turns)).astype(np.float32)


def to_counts(
    observation: npt.NDArray[np.float32], scales: npt.NDArray[np.float64], out: npt.NDArray[np.uint8]
) -> None:
    """The uint8 counts of a float observation (``scales``: :func:`count_scales`) written into ``out``."""
    np.clip(np.rint(observation.astype(np.float64) * scales), 0, COUNT_CAP, out=out, casting="unsafe")
