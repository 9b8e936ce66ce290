"""TEMPORARY stand-in for envs.selfplay.SelfPlayBatch (selfbatch's branch): delete on merge."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ..encoding import OBSERVATION_LAYOUT, encode_observation
from ..formats import start_game


class SelfPlayBatch:
    def __init__(
        self,
        num_games: int,
        mode: str = "duel",
        observation_dtype: str = "float32",
        backend: str = "auto",
        ruleset: Any = None,
        format: str = "draft",
    ) -> None:
        self.n, self.ruleset, self.format = num_games, ruleset, format
        self.obs = np.zeros((num_games, OBSERVATION_LAYOUT.size), np.float32)
        self.mask = np.zeros((num_games, 780), bool)
        self.mover = np.zeros(num_games, np.int64)
        self.turn = np.zeros(num_games, np.int64)
        self.games: list[Any] = [None] * num_games
        self.next_seed = 0

    def _start(self, i: int) -> None:
        self.games[i] = start_game(
            mode="duel",
            format=self.format,
            seed=self.next_seed_of(i),
            ruleset=self.ruleset,
            record_events=False,
        )
        self._write(i)

    def next_seed_of(self, i: int) -> int:
        s = self.seeds[i]
        self.seeds[i] += 1_000_000
        return s

    def _write(self, i: int) -> None:
        g = self.games[i]
        self.obs[i] = encode_observation(g, g.current_player)
        self.mask[i] = False
        self.mask[i, list(g.legal_actions())] = True
        self.mover[i] = g.current_player
        self.turn[i] = g.turn

    def reset(self, seed: int = 0) -> None:
        self.seeds = [seed + i for i in range(self.n)]
        for i in range(self.n):
            self._start(i)

    def step(self, actions: Any) -> Any:
        done = np.zeros(self.n, bool)
        winner = np.full(self.n, -2, np.int64)
        for i in range(self.n):
            g = self.games[i]
            g.apply(int(actions[i]))
            if g.current_player < 0:
                done[i] = True
                winner[i] = -1 if g.winner is None else g.winner
                self._start(i)
            else:
                self._write(i)
        return SimpleNamespace(done=done, winner=winner)
