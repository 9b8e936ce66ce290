"""Write tests/data/envs-encoding-pins.json: the environments' encoder outputs on a fixed set of positions.

Usage: ``PYTHONPATH=src .venv/bin/python tests/tools/pin_encodings.py`` (rewrites the file).

``tests/test_envs_encoding_pins.py`` loads every position (the public position format, so the pins do
not depend on how the engine plays) and checks that the observation, the information state and the
legal-action mask of both seats still hash to what was written here.  The pins were first written by
the encoder before its speed-up (issue 11), so that speed-up provably changes nothing.  Rewrite them
only for a deliberate, documented change of the encoding (docs/envs.md).

Positions: every few decisions of seeded random games of each format (duel and solo, setup stage,
pending return orders, finished games), and one lane longer than ``LANE_CAP``.
"""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from clashofdecks.cards import CARDS
from clashofdecks.envs.encoding import (
    LANE_CAP,
    OBSERVATION_LAYOUT,
    encode_infostate,
    encode_observation,
    legal_mask,
)
from clashofdecks.envs.match import Match, ruleset_with_cap
from clashofdecks.options import Ruleset, Threat
from clashofdecks.position import dump_position, load_position
from clashofdecks.rules import Game

OUT = Path(__file__).resolve().parent.parent / "data" / "envs-encoding-pins.json"

#: (mode, format, threat, max_turns, seeds, every how many decisions a position is kept; 0: only
#: pending return orders and the end)
GAMES: list[tuple[str, str, Threat | None, int | None, tuple[int, ...], int]] = [
    ("duel", "random", None, None, (1, 2), 5),
    ("duel", "draft", None, None, (1, 2), 3),
    ("duel", "precon", None, None, (2, 3), 4),
    ("duel", "custom", None, None, (3,), 5),
    ("duel", "random", None, 6, (4,), 4),  # the turn cap reached: the "last turn" feature
    ("solo", "draft", Threat.level(0), None, (5,), 3),
    ("solo", "precon", Threat.level(5), None, (6, 8), 2),
    ("duel", "random", None, None, tuple(range(10, 30)), 0),
    ("solo", "draft", Threat.level(3), None, tuple(range(10, 20)), 0),
    (
        "solo",
        "draft",
        Threat(extra_mana_per_creature=2, abilities=("splash", "rage", "berserk")),
        None,
        (7,),
        3,
    ),
]


def digest(array: Any) -> str:
    """A short, exact fingerprint of an array (dtype and every byte)."""
    a = np.ascontiguousarray(array)
    return hashlib.sha256(a.dtype.str.encode() + a.tobytes()).hexdigest()[:20]


def slice_digests(obs: Any) -> dict[str, str]:
    """Per non-zero slice of an observation, a CRC (to say which slice changed when a pin breaks)."""
    return {
        name: f"{zlib.crc32(part.tobytes()):08x}"
        for name, part in OBSERVATION_LAYOUT.split(obs).items()
        if part.any()
    }


def pins(game: Game, dealt: list[list[int] | None], history: list[tuple[int, int]]) -> dict[str, Any]:
    """What the encoder makes of ``game`` for each seat."""
    out: dict[str, Any] = {}
    for seat in (0, 1):
        obs = encode_observation(game, seat)
        out[f"seat{seat}"] = {
            "observation": digest(obs),
            "slices": slice_digests(obs),
            "infostate": digest(encode_infostate(game, seat, dealt[seat], history)),
            "mask": digest(legal_mask(game, seat)),
        }
    out["mask_any"] = digest(legal_mask(game))
    return out


def entry(
    game: Game, dealt: list[list[int] | None], history: list[tuple[int, int]], tag: str
) -> dict[str, Any]:
    position = dump_position(game)
    loaded = load_position(position, record_events=False)
    result = pins(game, dealt, history)
    if pins(loaded, dealt, history) != result:
        raise SystemExit(f"{tag}: the loaded position encodes differently from the game itself")
    return {
        "tag": tag,
        "position": position,
        "dealt": dealt,
        "history": [list(h) for h in history],
        **result,
    }


def lane_cap_entry() -> dict[str, Any]:
    """A lane longer than LANE_CAP (the rules set no limit, R3.3) and a short one facing it."""
    pos = dump_position(
        Game.from_hands([["OGRE", "GNOME"], ["GNOME", "OGRE"]], ruleset=Ruleset(max_turns=100))
    )
    creatures = [c.id for c in CARDS if c.is_creature and c.id not in ("OGRE", "GNOME")][: LANE_CAP + 2]
    pos["players"][1]["lanes"]["top"] = creatures
    pos["players"][0]["lanes"]["bottom"] = creatures[:3]
    game = load_position(pos, record_events=False)
    return entry(game, [None, None], [(0, 0), (1, 5), (0, 700)], "lane beyond the cap")


def long_history_entry() -> dict[str, Any]:
    """An information state whose history is longer than HISTORY_CAP (the oldest dropped)."""
    game = Game.random_duel(seed=9, ruleset=Ruleset(max_turns=100), record_events=False)
    history = [(i % 2, (i * 37) % 900) for i in range(600)]
    dealt: list[list[int] | None] = [list(game.state().hands[0]), list(game.state().hands[1])]
    return entry(game, dealt, history, "history beyond the cap")


def main() -> None:
    entries: list[dict[str, Any]] = []
    for mode, fmt, threat, max_turns, seeds, every in GAMES:
        ruleset = ruleset_with_cap(None, max_turns)
        for seed in seeds:
            match = Match(mode=mode, format=fmt, seed=seed, ruleset=ruleset, threat=threat, build_seed=seed)
            rng = random.Random(seed)
            step = 0
            while True:
                game = match.game
                pending = game.pending is not None
                if (every and step % every == 0) or pending or game.is_over():
                    tag = f"{mode} {fmt} seed {seed} decision {step}" + (" (pending)" if pending else "")
                    entries.append(entry(game, [*match.dealt], list(match.history), tag))
                if game.is_over():
                    break
                match.apply(rng.choice(list(game.legal_actions())))
                step += 1
    entries.append(lane_cap_entry())
    entries.append(long_history_entry())
    text = json.dumps({"positions": entries}, separators=(",", ":"))
    OUT.write_text(text.replace('{"tag"', '\n{"tag"') + "\n", encoding="utf-8")
    print(f"{len(entries)} positions, {len(text) // 1024} KiB -> {OUT}")


if __name__ == "__main__":
    main()
