"""Agents by name: the words ``clash simulate --agents A B``, ``clash arena`` and records use.

``random`` and ``greedy`` are built in.  Other agents register a factory with
:func:`register_agent`; the search agents (``mcts``, ``ismcts``) live in a module that is imported
lazily the first time one of their names is asked for, and registers them on import.  A
registration made at run time exists only in the process that made it: simulation workers are
started fresh, so agents used by ``clash simulate`` must register from their module's import.
``human`` is not an agent here: the CLI's play command handles it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from typing import Final

from ..errors import ClashError
from .base import Agent

#: Builds a fresh agent from a seed.
AgentFactory = Callable[[int], Agent]

_FACTORIES: dict[str, AgentFactory] = {}

#: Names provided by modules imported on first use (module path relative to this package).
_LAZY: Final[dict[str, tuple[str, ...]]] = {
    "mcts": ("mcts",),
    "ismcts": ("ismcts", "mcts"),
}


class UnknownAgentError(ClashError):
    """An agent name that no factory answers to; the message lists the known names."""


def register_agent(name: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make ``name`` available to :func:`make_agent` (e.g. ``register_agent("mcts", MctsAgent)``).

    Registering a name twice is an error unless ``replace`` is set, so two modules cannot silently
    shadow each other.
    """
    if not name or not name.replace("-", "").replace("_", "").isalnum() or name != name.lower():
        raise ValueError(f"agent names are lower-case words, not {name!r}")
    if name == "human":
        raise ValueError("'human' is reserved for the command line's interactive player")
    if name in _FACTORIES and not replace and _FACTORIES[name] is not factory:
        raise ValueError(f"agent {name!r} is already registered")
    _FACTORIES[name] = factory


def _load_lazy(name: str) -> None:
    for module in _LAZY.get(name, ()):
        full = f"{__package__}.{module}"
        if importlib.util.find_spec(full) is None:
            continue
        mod = importlib.import_module(full)
        if name in _FACTORIES:
            return
        # A module that does not register: adopt its concrete Agent class of that name, whose
        # constructor takes the seed as first argument (the interface of this package's agents).
        for value in vars(mod).values():
            if (
                isinstance(value, type)
                and issubclass(value, Agent)
                and not inspect.isabstract(value)
                and value.name == name
            ):
                register_agent(name, value)
                return


def _lazy_available(name: str) -> bool:
    return any(importlib.util.find_spec(f"{__package__}.{m}") is not None for m in _LAZY.get(name, ()))


def known_agents() -> list[str]:
    """Every name :func:`make_agent` may answer to (registered, or provided by an installed module)."""
    names = set(_FACTORIES)
    names.update(n for n in _LAZY if _lazy_available(n))
    return sorted(names)


def make_agent(name: str, seed: int = 0) -> Agent:
    """A new agent called ``name``, seeded with ``seed``.

    ``name`` may carry search settings, ``NAME:key=value,…`` or ``NAME:N`` (N iterations), e.g.
    ``ismcts:200,cutoff=2`` (see :func:`clashofdecks.arena.parse_spec`).
    Raises :class:`UnknownAgentError` (listing the known names) for a name nobody provides.
    """
    if ":" in name:
        from ..arena import agent_from_spec

        return agent_from_spec(name, seed)
    if name not in _FACTORIES:
        _load_lazy(name)
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join(known_agents())
        hint = " ('human' is only for clash play)" if name == "human" else ""
        raise UnknownAgentError(f"unknown agent {name!r}{hint}; known agents: {known}")
    return factory(seed)


def _builtin() -> None:
    from .greedy import GreedyAgent
    from .random_agent import RandomAgent

    register_agent("random", RandomAgent)
    register_agent("greedy", GreedyAgent)


_builtin()

__all__ = ["AgentFactory", "UnknownAgentError", "known_agents", "make_agent", "register_agent"]
