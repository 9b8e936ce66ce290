"""``clash bot``: an agent plays games on a Clash of Decks server as an ordinary client (issue 39).

The bot is a WebSocket client of the documented protocol (docs/web.md, "Protocol"), with a guest
identity of its own (or a session given to it).  It learns only what its seat's ``state`` frames say:
in the play phase it rebuilds a game from the frame's R9 ``view``
(:func:`clashofdecks.view_game.game_from_view`: hidden cards drawn at random from what the view
allows), asks the agent for an action and sends its notation back; it never reads a record, which
would tell hidden cards.  The agent is any registered spec (``strongest``, ``ismcts:400``) or a
Python object given as ``module:attribute`` (an :class:`~clashofdecks.agents.Agent`, or a callable
returning one).

The setup stage's frames carry no position to rebuild (docs/web.md: ``setup`` instead of ``view``):
there the bot chooses among the frame's ``legal`` actions with its own seeded generator, and builds a
custom deck of ten cards drawn the same way.  Every action it sends is one of the frame's ``legal``
actions (or a build of ten distinct cards); an answer ``stale`` makes it wait for the next frame.
"""

from __future__ import annotations

import importlib
import json
import random
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from ..agents.base import Agent
from ..agents.registry import known_agents, make_agent
from ..cards import CARD_IDS, N_CARDS
from ..errors import ClashError
from ..view_game import game_from_view

#: Seconds the bot waits for a frame before it says the server went quiet (a game may wait long for
#: the other player: the bot then simply waits again).
RECV_SECONDS = 60.0


class BotError(ClashError):
    """The bot cannot play: a bad invite or agent, a server that refuses it, a frame it cannot read."""


@dataclass(frozen=True)
class Invite:
    """What an invite link (``https://host/g/<game>#t=<token>``) tells a bot."""

    base: str
    game: str
    token: str
    rated: bool

    @property
    def ws_url(self) -> str:
        scheme = "wss" if self.base.startswith("https:") else "ws"
        return f"{scheme}://{self.base.split('://', 1)[1]}/ws"


def parse_invite(url: str) -> Invite:
    """The server, game and seat token of an invite link; :class:`BotError` for anything else."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/").split("/")
    fragment = dict(p.split("=", 1) for p in parts.fragment.split("&") if "=" in p)
    if parts.scheme not in ("http", "https") or not parts.netloc or len(path) < 2 or path[-2] != "g":
        raise BotError(f"not an invite link (https://host/g/<game>#t=<token>): {url!r}")
    if not fragment.get("t"):
        raise BotError(f"the invite link has no seat token (#t=...): {url!r}")
    return Invite(f"{parts.scheme}://{parts.netloc}", path[-1], fragment["t"], fragment.get("rated") == "1")


def load_agent(spec: str, seed: int) -> Agent:
    """A registered agent spec (``strongest``, ``ismcts:400``), or ``module:attribute`` naming an Agent or a
    callable returning one (a researcher's own policy)."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or module_name in known_agents():
        return make_agent(spec, seed)
    try:
        target: Any = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise BotError(f"cannot load {spec!r}: {exc}") from None
    agent = target if isinstance(target, Agent) or not callable(target) else target()
    if not callable(getattr(agent, "act", None)):
        raise BotError(f"{spec!r} is not an agent (it has no act(game) method)")
    return cast(Agent, agent)  # any object with act(game) plays as an Agent


def new_guest(base: str, name: str | None) -> str:
    """A guest identity's bearer session on the server at ``base``."""
    body: dict[str, Any] = {"bearer": True}
    if name:
        body["display_name"] = name
    request = urllib.request.Request(
        f"{base}/api/identities",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return str(json.load(answer)["session"])
    except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
        raise BotError(f"cannot get an identity from {base}: {exc}") from None


class Bot:
    """One agent at one seat of one game at a time (see the module docstring)."""

    def __init__(
        self,
        agent: Agent,
        session: str,
        *,
        name: str | None = None,
        seed: int = 0,
        say: Callable[[str], None] = print,
    ) -> None:
        self.agent = agent
        self.name = name
        self.session = session
        self.rng = random.Random(seed)
        self.say = say

    def choose(self, frame: dict[str, Any]) -> dict[str, Any]:
        """The message answering a ``state`` frame in which the bot's seat is to move."""
        legal: list[str] = list(frame.get("legal") or [])
        if frame.get("build"):
            cards = sorted(self.rng.sample(CARD_IDS[:N_CARDS], 10))
            return {"type": "act", "action": "build " + " ".join(cards), "index": frame["index"]}
        if frame.get("phase") != "setup" and isinstance(frame.get("view"), dict):
            game = game_from_view(frame["view"], int(frame["seat"]), self.rng)
            text = game.action_text(self.agent.act(game))
            if text not in legal:
                raise BotError(f"the agent chose {text!r}, which the server does not offer ({legal})")
        elif legal:
            text = self.rng.choice(legal)
        else:
            raise BotError(f"a frame asks for a decision but offers none: {frame.get('prompt')!r}")
        return {"type": "act", "action": text, "index": frame["index"]}

    def play(self, invite: Invite) -> dict[str, Any]:
        """Take the invite's seat and play the game to its end; its ``result``."""
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect

        headers = {"Authorization": f"Bearer {self.session}"}
        try:
            with connect(invite.ws_url, additional_headers=headers, open_timeout=30) as ws:
                hello: dict[str, Any] = {"type": "hello", "game": invite.game, "tokens": [invite.token]}
                if invite.rated:
                    hello["rated"] = True
                if self.name:
                    hello["name"] = self.name
                ws.send(json.dumps(hello))
                return self._play_on(ws)
        except (OSError, WebSocketException) as exc:
            raise BotError(f"the connection to {invite.ws_url} failed: {exc}") from None

    def _play_on(self, ws: Any) -> dict[str, Any]:
        answered = -1
        while True:
            try:
                frame = json.loads(ws.recv(timeout=RECV_SECONDS))
            except TimeoutError:
                continue  # the other player thinks: a bot waits as long as the game does
            kind = frame.get("type")
            if kind == "error":
                if frame.get("code") == "stale":
                    answered = -1  # the state frame before it is the game as it stands
                    continue
                raise BotError(f"the server refused: {frame.get('code')}: {frame.get('message')}")
            if kind != "state":
                continue
            if frame.get("result") is not None:
                return dict(frame["result"])
            seat = frame.get("seat")
            if seat is None:
                raise BotError("the invite's seat is taken: the bot only watches this game")
            if frame.get("to_move") == seat and frame["index"] != answered:
                answered = frame["index"]
                ws.send(json.dumps(self.choose(frame)))


__all__ = ["Bot", "BotError", "Invite", "load_agent", "new_guest", "parse_invite"]
