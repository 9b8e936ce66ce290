"""The Locust scenario of the web app (docs/performance.md, "Capacity with Locust"): human-paced friend
duels over WebSockets against one or several ``clash serve`` processes.

One Locust user plays one duel at a time, to its end, then the next: it creates the game over HTTP
and plays both seats, each on its own WebSocket connection.  Each connection's address is chosen for
that connection alone (``split``, the default: no sticky sessions, so the other seat's view of a move
usually comes through another process) or is the game's home address (``same``: for servers that do
not share moves between processes).  A seat waits 2–8 s before each of its decisions, then sends a
random legal action.  A seat whose connection drops reconnects to another address and goes on from
the state frame that answers its ``hello`` (its session and seat token again).

Measured with Locust's own request events (type ``WS``):

- ``act→ack``: from sending an action to the acting connection's state frame for it;
- ``act→other seat``: from sending it to the other seat's state frame for it (the delivery across
  processes when the two seats sit on different ones);
- ``ack after reconnect``: an action acknowledged only by the state after a reconnection;
- ``reconnect``: a connection lost because its server was killed, timed to the new ``hello`` answer;
- ``stale, decided again``: an action refused as ``stale`` (the state that moved on arrives first,
  and the seat decides again: the protocol's answer to a race, not a failure);
- failures: ``error frame`` (any other error the server sends), ``connection lost`` (a drop no kill
  explains), ``reconnect failed``, ``stalled`` (no frame for 60 s while the game waits for the other
  seat), and the HTTP calls.

Settings, from the environment (the driver ``python -m clashofdecks.web.loadtest`` sets them):
``CLASH_LOADTEST_ADDRESSES`` (comma-separated ``http://host:port``; default: Locust's ``--host``),
``CLASH_LOADTEST_ASSIGN`` (``split`` or ``same``), ``CLASH_LOADTEST_PACE`` (``2,8``: seconds before a
decision), ``CLASH_LOADTEST_ACKS`` (a file that gets one JSON line per acknowledged action, for the
lost-actions check) and ``CLASH_LOADTEST_KILLED`` (a file of the addresses the driver killed).
"""

from __future__ import annotations

import contextlib
import json
import random
import time
import urllib.request
from dataclasses import dataclass, field
from typing import IO, Any

import gevent
import websocket
from locust import User, constant, task

# Absolute: Locust loads this file by its path, as a top-level module.
from clashofdecks.web.loadtest.settings import RECONNECT_SECONDS, STALL_SECONDS, Settings

_ack_file: IO[str] | None = None


def log_ack(path: str, game: str, index: int, seat: int, action: str) -> None:
    """Append one acknowledged action to the acks file (one short line, one write: whole lines even
    with several Locust processes appending)."""
    global _ack_file
    if _ack_file is None:
        _ack_file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run
    _write_ack_line({"game": game, "index": index, "seat": seat, "action": action})


def void_ack(path: str, game: str, index: int) -> None:
    """Take back the acknowledgement of action ``index``: the state that seemed to acknowledge it
    was the catch-up sent before a ``stale`` refusal of it (the store kept another action there)."""
    _write_ack_line({"game": game, "index": index, "void": True})


def _write_ack_line(row: dict[str, Any]) -> None:
    assert _ack_file is not None or not row.get("void")
    if _ack_file is None:
        return
    _ack_file.write(json.dumps(row) + "\n")
    _ack_file.flush()


@dataclass
class Sent:
    """An action a seat sent, until both seats have seen it."""

    at: float
    seat: int
    action: str
    acked: bool = False
    delivered: bool = False


@dataclass
class Duel:
    """One game, shared by its two seats' greenlets."""

    game: str
    home: int
    sent: dict[int, Sent] = field(default_factory=dict)


class DuelPlayers(User):
    """One duel at a time, both seats (see the module docstring)."""

    wait_time = constant(0)

    def on_start(self) -> None:
        self.settings = Settings.from_env(self.host)
        self.rng = random.Random()
        self.sessions = (self._new_session(), self._new_session())

    # -- reports

    def report(self, name: str, seconds: float, error: str | None = None, kind: str = "WS") -> None:
        self.environment.events.request.fire(
            request_type=kind,
            name=name,
            response_time=seconds * 1000,
            response_length=0,
            exception=None if error is None else RuntimeError(error),
            context={},
        )

    def fail(self, name: str, error: str) -> None:
        self.report(name, 0.0, error)

    # -- addresses and HTTP

    def alive_addresses(self) -> list[str]:
        killed = self.settings.killed()
        return [a for a in self.settings.addresses if a not in killed] or list(self.settings.addresses)

    def home_address(self, home: int) -> str:
        """The first live address from ``home`` on (``same``: where both seats of a game go)."""
        addresses, alive = self.settings.addresses, self.alive_addresses()
        ring = [addresses[(home + i) % len(addresses)] for i in range(len(addresses))]
        return next(a for a in ring if a in alive)

    def address_for(self, duel: Duel | None, avoid: str | None = None) -> str:
        """``same``: the game's home address; ``split``: any live one, another than ``avoid`` when
        there is one."""
        if self.settings.same_process and duel is not None:
            return self.home_address(duel.home)
        alive = self.alive_addresses()
        others = [a for a in alive if a != avoid]
        return self.rng.choice(others or alive)

    def post(self, address: str, path: str, body: dict[str, Any], session: str | None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if session is not None:
            headers["Authorization"] = f"Bearer {session}"
        req = urllib.request.Request(
            address + path, data=json.dumps(body).encode(), method="POST", headers=headers
        )
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                data: dict[str, Any] = json.loads(r.read())
        except (OSError, ValueError) as exc:
            self.report(f"POST {path}", time.perf_counter() - start, repr(exc), kind="HTTP")
            raise
        self.report(f"POST {path}", time.perf_counter() - start, kind="HTTP")
        return data

    def _new_session(self) -> str:
        return str(self.post(self.address_for(None), "/api/identities", {"bearer": True}, None)["session"])

    # -- the duel

    @task
    def play_duel(self) -> None:
        home = self.rng.randrange(len(self.settings.addresses))
        address = self.home_address(home) if self.settings.same_process else self.address_for(None)
        try:
            game = self.post(address, "/api/games", {"kind": "friend", "format": "draft"}, self.sessions[0])
        except (OSError, ValueError):
            gevent.sleep(1.0)
            return
        duel = Duel(str(game["id"]), home)
        tokens = (str(game["tokens"][0]), str(game["invite"]).split("#t=")[1])
        seats = [SeatPlayer(self, duel, tokens[i], self.sessions[i]) for i in (0, 1)]
        greenlets = [gevent.spawn(seat.run) for seat in seats]
        try:
            gevent.joinall(greenlets)
        finally:  # Locust stopping this user kills this greenlet: the seats stop with it
            gevent.killall(greenlets)
            for seat in seats:
                seat.close()


class SeatPlayer:
    """One seat of a duel over one WebSocket connection (reconnecting when it drops)."""

    def __init__(self, user: DuelPlayers, duel: Duel, token: str, session: str) -> None:
        self.user, self.duel, self.token, self.session = user, duel, token, session
        self.ws: websocket.WebSocket | None = None
        self.address = ""
        self.seat = -1
        self.fresh = True  # the next state frame answers a hello
        self.over = False
        self.last_frame_at = time.monotonic()
        self.legal_index = -1  # the index of the decision a choice is scheduled for
        self.choice = ""
        self.legal: list[str] = []
        self.due: float | None = None
        self.last_acked: int | None = None  # the index of this seat's action last acknowledged
        self.reconnect_started: float | None = None  # set while a seat of a killed server reconnects

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(websocket.WebSocketException, OSError):
                self.ws.close(timeout=1)
            self.ws = None

    def connect(self, address: str) -> None:
        self.close()
        url = "ws" + address.removeprefix("http") + "/ws"
        self.ws = websocket.create_connection(
            url, header=[f"Authorization: Bearer {self.session}"], timeout=30, enable_multithread=False
        )
        self.address = address
        self.fresh = True
        self.ws.send(json.dumps({"type": "hello", "game": self.duel.game, "tokens": [self.token]}))

    def run(self) -> None:
        try:
            self.connect(self.user.address_for(self.duel))
        except (websocket.WebSocketException, OSError) as exc:
            self.user.fail("connect", repr(exc))
            return
        while not self.over:
            now = time.monotonic()
            if self.due is not None and now >= self.due:
                self.act()
                continue
            if self.due is None and now - self.last_frame_at > STALL_SECONDS:
                # The message names no game, so that Locust counts the stalls as one kind of error.
                self.user.fail("stalled", f"no frame for {STALL_SECONDS:g} s")
                return
            assert self.ws is not None
            self.ws.settimeout(max(0.01, self.due - now) if self.due is not None else 5.0)
            try:
                raw = self.ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except (websocket.WebSocketException, OSError) as exc:
                if not self.reconnect(repr(exc)):
                    return
                continue
            if not raw:  # a close frame
                if not self.reconnect("closed by the server"):
                    return
                continue
            self.on_frame(json.loads(raw))

    def reconnect(self, why: str) -> bool:
        """After a drop: report it (a failure unless its server was killed), then try the live
        addresses (another one first) until a ``hello`` is sent or :data:`RECONNECT_SECONDS` pass."""
        started = time.monotonic()
        killed = self.address in self.user.settings.killed()
        if not killed:
            self.user.fail("connection lost", f"{self.address}: {why}")
        self.close()
        while time.monotonic() - started < RECONNECT_SECONDS:
            try:
                self.connect(self.user.address_for(self.duel, avoid=self.address))
            except (websocket.WebSocketException, OSError):
                gevent.sleep(0.5)
                continue
            self.reconnect_started = started if killed else None
            return True
        self.user.fail("reconnect failed", "no address took the seat back")
        return False

    def on_frame(self, frame: dict[str, Any]) -> None:
        now = time.perf_counter()
        self.last_frame_at = time.monotonic()
        if frame.get("type") == "error":
            if frame.get("code") == "stale":
                # Not a failure: the documented answer to an action decided on a state another
                # process had moved on from (a reconnection racing a catch-up); the new state came
                # first and the seat decides again.  Counted apart; that state did not acknowledge
                # this seat's refused action, so its acknowledgement is taken back.
                self.user.report("stale, decided again", 0.0)
                if self.last_acked is not None and self.user.settings.acks_path is not None:
                    void_ack(self.user.settings.acks_path, self.duel.game, self.last_acked)
                self.last_acked = None
            else:
                self.user.fail("error frame", f"{frame.get('code')}: {frame.get('message')}")
            sent = self.duel.sent.get(self.legal_index)
            if sent is not None and sent.seat == self.seat and not sent.acked:
                # Refused: decide again on the last state (a newer one resets this when it comes).
                del self.duel.sent[self.legal_index]
                self.schedule(self.legal_index, self.legal)
            return
        if frame.get("type") != "state":
            return
        answers_hello, self.fresh = self.fresh, False
        if answers_hello and self.reconnect_started is not None:
            self.user.report("reconnect", time.monotonic() - self.reconnect_started)
            self.reconnect_started = None
        self.seat = int(frame["seat"])
        index = int(frame["index"])
        self.seen(index, now, answers_hello)
        if answers_hello:
            # An action of this seat that the new state does not include never reached the store
            # (never acknowledged, so not lost): forget it and decide again.
            for idx, sent in list(self.duel.sent.items()):
                if sent.seat == self.seat and not sent.acked and idx >= index:
                    del self.duel.sent[idx]
        if frame.get("result") is not None:
            self.over = True
            return
        legal = [str(a) for a in frame.get("legal") or []]
        if not legal:
            self.due = None
        elif index != self.legal_index or (self.due is None and index not in self.duel.sent):
            self.schedule(index, legal)

    def schedule(self, index: int, legal: list[str]) -> None:
        """Decide at ``index`` after a human's pause."""
        low, high = self.user.settings.pace
        self.legal_index, self.legal = index, legal
        self.choice = self.user.rng.choice(legal)
        self.due = time.monotonic() + self.user.rng.uniform(low, high)

    def seen(self, index: int, now: float, answers_hello: bool) -> None:
        """The state at ``index`` reached this seat: it acknowledges this seat's actions before
        ``index`` and delivers the other seat's."""
        duel = self.duel
        for idx in [i for i in duel.sent if i < index]:
            sent = duel.sent[idx]
            if sent.seat == self.seat and not sent.acked:
                sent.acked = True
                self.last_acked = idx
                name = "ack after reconnect" if answers_hello else "act→ack"
                self.user.report(name, now - sent.at)
                if self.user.settings.acks_path is not None:
                    log_ack(self.user.settings.acks_path, duel.game, idx, sent.seat, sent.action)
            elif sent.seat != self.seat and not sent.delivered:
                sent.delivered = True
                if not answers_hello:
                    self.user.report("act→other seat", now - sent.at)
            if sent.acked and sent.delivered:
                del duel.sent[idx]

    def act(self) -> None:
        self.due = None
        assert self.ws is not None
        self.duel.sent[self.legal_index] = Sent(time.perf_counter(), self.seat, self.choice)
        message = {"type": "act", "action": self.choice, "index": self.legal_index}
        try:
            self.ws.send(json.dumps(message))
        except (websocket.WebSocketException, OSError) as exc:
            # The state answering the next hello says whether the action arrived.
            if not self.reconnect(repr(exc)):
                self.over = True
