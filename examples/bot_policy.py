"""A researcher's own policy on the site: ``clash bot --agent bot_policy:LongestAction LINK`` (run from this
folder, or with it on PYTHONPATH).  docs/web.md, "Bots"."""

from clashofdecks.agents.base import Agent
from clashofdecks.engine import GameEngine


class LongestAction(Agent):
    """Plays the legal action whose text is longest (a stand-in for your network): any object with
    ``act(game) -> action`` will do; ``game`` is rebuilt from the seat's view, never the true state."""

    name = "longest-action"

    def act(self, game: GameEngine) -> int:
        return max(game.legal_actions(), key=lambda a: (len(game.action_text(a)), -a))
