"""Agents by name: the one :func:`make_agent`, for every command and record that names an agent.

``random``, ``greedy``, ``mcts``, ``ismcts``, ``neural`` (the self-play network; numpy) and
``neural-search`` (the network inside the search; numpy) are built in, and the four named strengths
of :data:`STRENGTHS` (``beginner``, ``casual``, ``strong``, ``strongest``). Other agents register a
factory with :func:`register_agent`. A registration made at run time exists only in the process that
made it: simulation workers are started fresh, so an agent used by ``clash simulate`` or ``clash
arena`` must register when its module is imported. ``human`` is not an agent here: the CLI's play
command handles it.

Dependencies point one way: this module imports the agents and :mod:`.spec`; no agent imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from .base import Agent
from .greedy import GreedyAgent
from .mcts import ISMCTSAgent, MCTSAgent
from .neural import make_neural_agent
from .neural_search import make_neural_search_agent
from .random_agent import RandomAgent
from .spec import SETTING_TYPES, AgentSpecError, parse_spec

#: Builds a fresh agent from a seed and the spec's settings (keyword arguments).
AgentFactory = Callable[..., Agent]

_FACTORIES: dict[str, AgentFactory] = {}
_SETTINGS: dict[str, frozenset[str]] = {}


class UnknownAgentError(AgentSpecError):
    """An agent name that no factory answers to; the message lists the known names."""


def register_agent(
    name: str, factory: AgentFactory, *, settings: Collection[str] = (), replace: bool = False
) -> None:
    """Make ``name`` available to :func:`make_agent` (e.g. ``register_agent("mine", MyAgent)``).

    ``factory(seed, **settings)`` builds the agent; ``settings`` are the spec settings it accepts
    (names from :data:`~clashofdecks.agents.spec.SETTING_TYPES`).  Registering a name twice is an
    error unless ``replace`` is set, so two modules cannot silently shadow each other.
    """
    if not name or not name.replace("-", "").replace("_", "").isalnum() or name != name.lower():
        raise ValueError(f"agent names are lower-case words, not {name!r}")
    if name == "human":
        raise ValueError("'human' is reserved for the command line's interactive player")
    if name in _FACTORIES and not replace and _FACTORIES[name] is not factory:
        raise ValueError(f"agent {name!r} is already registered")
    unknown = set(settings) - set(SETTING_TYPES)
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)} for agent {name!r}")
    _FACTORIES[name] = factory
    _SETTINGS[name] = frozenset(settings)


def known_agents() -> list[str]:
    """Every name :func:`make_agent` answers to."""
    return sorted(_FACTORIES)


def make_agent(spec: str, seed: int = 0) -> Agent:
    """A new agent for ``spec``, seeded with ``seed``.

    ``spec`` is a name, optionally with search settings (``ismcts:200,cutoff=2``; see
    :mod:`clashofdecks.agents.spec`).  Raises :class:`UnknownAgentError` (listing the known names)
    for a name nobody provides and :class:`AgentSpecError` for settings the agent does not take.
    """
    name, settings = parse_spec(spec)
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join(known_agents())
        hint = " ('human' is only for clash play)" if name == "human" else ""
        raise UnknownAgentError(f"unknown agent {name!r}{hint}; known agents: {known}")
    accepted = _SETTINGS[name]
    if not settings.keys() <= accepted:
        takers = ", ".join(sorted(n for n, s in _SETTINGS.items() if s))
        raise AgentSpecError(f"agent {name!r} takes no settings (only {takers} do): {spec!r}")
    if not settings:
        return factory(seed)
    kwargs: dict[str, Any] = settings
    try:
        return factory(seed, **kwargs)
    except ValueError as exc:
        raise AgentSpecError(f"{spec}: {exc}") from None


_SEARCH_SETTINGS = ("iterations", "seconds", "c", "rollout", "cutoff", "eval", "mix", "setup")
register_agent("random", RandomAgent)
register_agent("greedy", GreedyAgent)
register_agent("ismcts", ISMCTSAgent, settings=_SEARCH_SETTINGS)
register_agent("mcts", MCTSAgent, settings=_SEARCH_SETTINGS)
# numpy is imported when a neural agent is made, not here: the other agents stay standard-library only.
register_agent("neural", make_neural_agent, settings=("iterations", "c", "model"))
register_agent(
    "neural-search",
    make_neural_search_agent,
    settings=("iterations", "c", "value", "fpu", "cutoff", "floor", "model"),
)

#: The named strengths offered to players (docs/agents.md, docs/ai.md): each is a fixed agent spec,
#: from weakest to strongest.  All are fair (ISMCTS from the player's view) and score cut-off
#: rollouts with the learned evaluation; they differ in search budget, and the two strongest also
#: value their draft picks with the deck evaluation (``setup=learned``, docs/ai.md).
STRENGTHS: dict[str, str] = {
    "beginner": "ismcts:iterations=12,cutoff=0,eval=learned",
    "casual": "ismcts:iterations=60,cutoff=1,eval=learned",
    "strong": "ismcts:iterations=300,cutoff=2,eval=learned,setup=learned",
    "strongest": "ismcts:iterations=1500,cutoff=2,eval=learned,setup=learned",
}


def _strength(name: str) -> AgentFactory:
    def factory(seed: int = 0) -> Agent:
        agent = make_agent(STRENGTHS[name], seed)
        agent.name = name
        return agent

    return factory


for _name in STRENGTHS:
    register_agent(_name, _strength(_name))

__all__ = ["STRENGTHS", "AgentFactory", "UnknownAgentError", "known_agents", "make_agent", "register_agent"]
