"""Many games between agents: ``clash simulate`` (a batch) and ``clash arena`` (tournaments).

One of each part, used by both commands:

* :mod:`.game` — a game's :class:`~.game.GameSpec`, the one game loop :func:`~.game.play_game`
  and its :class:`~.game.GameResult`;
* :mod:`.seeds` — where every game's and agent's seed comes from (:func:`~.seeds.derive_seed`);
* :mod:`.runner` — specs in chunks → results in spec order, on a :class:`~.runner.Backend`
  (:class:`~.runner.LocalBackend`: this process or a process pool); identical for any number of
  workers;
* :mod:`.stats` — Wilson intervals, Bradley–Terry Elo with bootstrap intervals;
* :mod:`.batch` — ``clash simulate``'s :class:`~.batch.SimConfig`, :class:`~.batch.Summary` and
  its running :class:`~.batch.Totals` (flat memory for any number of games);
* :mod:`.arena` — ``clash arena``'s round robin (:func:`~.arena.run_arena`) and solo rows
  (:func:`~.arena.run_solo`).

Agents are made from their specs by :func:`clashofdecks.agents.registry.make_agent`.
"""

from __future__ import annotations

from .arena import ArenaResult, SoloResult, run_arena, run_solo
from .batch import SimConfig, Summary, Totals, run_games, simulate, summarize
from .game import AUTOMATON, GameResult, GameSpec, SimulationError, play_game
from .runner import MAX_GAMES, MAX_WORKERS, Backend, LocalBackend, run_specs
from .seeds import derive_seed
from .stats import wilson_interval

__all__ = [
    "AUTOMATON",
    "MAX_GAMES",
    "MAX_WORKERS",
    "ArenaResult",
    "Backend",
    "GameResult",
    "GameSpec",
    "LocalBackend",
    "SimConfig",
    "SimulationError",
    "SoloResult",
    "Summary",
    "Totals",
    "derive_seed",
    "play_game",
    "run_arena",
    "run_games",
    "run_solo",
    "run_specs",
    "simulate",
    "summarize",
    "wilson_interval",
]
