"""``clash bot``: an agent plays games on a Clash of Decks server as an ordinary client (issue 39).

The bot is a WebSocket client of the documented protocol (docs/web.md, "Protocol"), with a guest
identity of its own (or a session given to it).  It learns only what its seat's ``state`` frames say:
in the play phase it rebuilds a game from the frame's R9 ``view``
(:func:`clashofdecks.view_game.game_from_view`: hidden cards drawn at random from what the view
allows), asks the agent for an action and sends its notation back; it never reads a record, which
would tell hidden cards.  The agent is any registered spec (``strongest``, ``ismcts:400``) or a
Python object given as ``module:attribute`` (an :class:`~clashofdecks.agents.Agent`, or a callable
returning one).

Two ways to find games: an invite link's seat (any identity, a new guest by default), or the rated
queue (:meth:`Bot.play_queue`, ``clash bot --server URL``) as a bot account (web/bots.py), game after
game until stopped; a dropped socket is opened again, in the queue or in the game.

The setup stage's frames carry no position to rebuild (docs/web.md: ``setup`` instead of ``view``):
there the bot chooses among the frame's ``legal`` actions with its own seeded generator, and builds a
custom deck of ten cards drawn the same way.  Every action it sends is one of the frame's ``legal``
actions (or a build of ten distinct cards); an answer ``stale`` makes it wait for the next frame.
"""

from __future__ import annotations

import importlib
import json
import random
import threading
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
#: How often the bot looks whether it was asked to stop while it waits for a frame.
POLL_SECONDS = 0.5
#: Times in a row the bot opens a dropped socket again before it gives up.
RECONNECTS = 5


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
        return ws_url_of(self.base)


def ws_url_of(base: str) -> str:
    scheme = "wss" if base.startswith("https:") else "ws"
    return f"{scheme}://{base.split('://', 1)[1]}/ws"


def server_base(url: str) -> str:
    """``http(s)://host[:port]`` of a server address; :class:`BotError` for anything else."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BotError(f"not a server address (https://host): {url!r}")
    return f"{parts.scheme}://{parts.netloc}"


class Stop:
    """The bot was asked to stop (Ctrl-C, SIGTERM): once, it leaves the queue or finishes the game in
    play and stops; twice, it leaves the game in play at once."""

    def __init__(self) -> None:
        self.asked = 0
        self.event = threading.Event()

    def ask(self) -> None:
        self.asked += 1
        self.event.set()


def bot_identity(base: str, session: str) -> dict[str, Any]:
    """``GET /api/me`` with the bot's session: :class:`BotError` unless it is a bot account's."""
    request = urllib.request.Request(f"{base}/api/me", headers={"Authorization": f"Bearer {session}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            me: dict[str, Any] = json.load(answer)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise BotError(f"cannot reach {base}: {exc}") from None
    if me.get("identity") is None:
        raise BotError(
            "the token signs in nobody on this server (a bot account's session from POST /api/bots)"
        )
    if not me.get("bot"):
        raise BotError(f"{me['identity']} is not a bot account: its owner marks it with POST /api/bots first")
    return me


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
                result = self._play_on(ws)
                assert result is not None  # only a stop ends a game unfinished
                return result
        except (OSError, WebSocketException) as exc:
            raise BotError(f"the connection to {invite.ws_url} failed: {exc}") from None

    def _connect(self, base: str) -> Any:
        from websockets.sync.client import connect

        headers = {"Authorization": f"Bearer {self.session}"}
        return connect(ws_url_of(base), additional_headers=headers, open_timeout=30)

    def play_queue(self, base: str, fmt: str, stop: Stop, games: int | None = None) -> int:
        """As a bot account: join the rated queue, play each game it makes to its end and queue again,
        until ``stop`` is asked (or ``games`` are played); the number of games finished."""
        played = 0
        while games is None or played < games:
            game = self._wait_for_match(base, fmt, stop)  # None: asked to stop, it left the queue
            if game is None:
                break
            self.say(f"matched: game {game}")
            result = self._play_matched(base, game, stop)
            if result is None:
                self.say(f"stopped: left game {game} unfinished")
                break
            played += 1
            self.say(f"game {game}: {result.get('reason') or result}")
            if stop.asked:
                self.say("stopped after the game in play, as asked")
                break
        return played

    def _reconnect(self, failures: int, exc: Exception, stop: Stop) -> None:
        if failures > RECONNECTS:
            raise BotError(f"the connection failed {failures} times in a row: {exc}")
        self.say(f"the connection dropped ({exc}); connecting again")
        stop.event.wait(min(30.0, 0.5 * 2**failures))

    def _wait_for_match(self, base: str, fmt: str, stop: Stop) -> str | None:
        """Wait in the queue until matched (the game's id), or None when asked to stop (it leaves)."""
        from websockets.exceptions import WebSocketException

        failures = 0
        while not stop.asked:
            try:
                with self._connect(base) as ws:
                    ws.send(json.dumps({"type": "queue", "format": fmt}))
                    failures = 0
                    while not stop.asked:
                        try:
                            frame = json.loads(ws.recv(timeout=POLL_SECONDS))
                        except TimeoutError:
                            continue
                        if frame.get("type") == "matched":
                            return str(frame["game"])
                        if frame.get("type") == "error":
                            raise BotError(f"the queue refused: {frame.get('code')}: {frame.get('message')}")
                    ws.send(json.dumps({"type": "leave_queue"}))
            except (OSError, WebSocketException) as exc:
                failures += 1
                self._reconnect(failures, exc, stop)
        self.say("stopped: left the queue")
        return None

    def _play_matched(self, base: str, game: str, stop: Stop) -> dict[str, Any] | None:
        """Open the queue's game at the seat it gave this bot and play it to its end (its result), or
        None when asked twice to stop."""
        from websockets.exceptions import WebSocketException

        failures = 0
        while True:
            try:
                with self._connect(base) as ws:
                    ws.send(json.dumps({"type": "hello", "game": game, "tokens": []}))
                    failures = 0
                    return self._play_on(ws, stop)
            except (OSError, WebSocketException) as exc:
                failures += 1
                self._reconnect(failures, exc, stop)

    def _play_on(self, ws: Any, stop: Stop | None = None) -> dict[str, Any] | None:
        answered = -1
        told = False
        while True:
            if stop is not None and stop.asked:
                if stop.asked > 1:
                    return None
                if not told:
                    told = True
                    self.say("stopping after this game (Ctrl-C again to leave it now)")
            try:
                frame = json.loads(ws.recv(timeout=RECV_SECONDS if stop is None else POLL_SECONDS))
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


__all__ = [
    "Bot",
    "BotError",
    "Invite",
    "Stop",
    "bot_identity",
    "load_agent",
    "new_guest",
    "parse_invite",
    "server_base",
]
