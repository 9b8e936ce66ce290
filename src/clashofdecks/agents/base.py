"""The one small interface every player implements: baseline agents, search, the CLI's human.

An agent sees the game through :meth:`Agent.act`, which must return one of
``game.legal_actions()`` for ``game.current_player``.  Fair agents read only what R9 allows:
:func:`clashofdecks.position.view` / :func:`clashofdecks.position.sample_determinization`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..rules import Game


class Agent(ABC):
    """A player.  ``name`` is the word used on the command line and in records."""

    name: str = "agent"

    @abstractmethod
    def act(self, game: Game) -> int:
        """Choose a legal action for ``game.current_player`` (the game must not be changed)."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each game; seeded agents reseed here."""
