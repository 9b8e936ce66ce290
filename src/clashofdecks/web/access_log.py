"""The access log of ``clash serve`` (``--access-log``): one line per HTTP request, and two per
WebSocket (when it opens, and when it closes with its duration).

A line is the Common Log Format plus the duration in seconds, as nginx's ``$request_time``::

    127.0.0.1 - - [01/Dec/2026:18:07:33 +0000] "GET /api/lobby HTTP/1.1" 200 1834 0.004
    127.0.0.1 - - [01/Dec/2026:18:07:34 +0000] "WEBSOCKET /ws HTTP/1.1" 101 - 0.001 open
    127.0.0.1 - - [01/Dec/2026:18:09:10 +0000] "WEBSOCKET /ws HTTP/1.1" 101 48211 95.870 close 1000

Only the method, the path, the status, the bytes sent, the duration and the client's address are
written: never the query string, a header, a cookie or a message, so no session id, token or invite
secret reaches the log (invite tokens travel in the URL's fragment, which no browser sends, and in
socket messages).  Paths name games and players by their public ids.  The client's address is the
one a trusted proxy forwarded (``--forwarded-allow-ips``), else the connection's peer.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any, TextIO
from urllib.parse import quote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Characters written as they are in a logged path; others are %-escaped (a path is one token).
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
#: Seconds between checks that the log file is still where it was (logrotate moves it away).
_REOPEN_CHECK_SECONDS = 1.0


class AccessLog:
    """Where the lines go: stderr, or a file appended to, one line a write.  Not the ``logging``
    module: a record costs it a stack walk and more, per request, on the event loop.  A file moved
    away (logrotate) is noticed within a second and a new one opened at the path."""

    def __init__(self, stream: TextIO, path: str | None = None) -> None:
        self.stream = stream
        self.path = path
        self._checked = time.monotonic()

    @classmethod
    def open(cls, target: str) -> AccessLog | None:
        """``--access-log``: ``-`` stderr, ``off`` None, else a file (OSError when it cannot be opened)."""
        if target == "off":
            return None
        if target == "-":
            return cls(sys.stderr)
        return cls(open(target, "a", encoding="utf-8", buffering=1), target)

    def write(self, line: str) -> None:
        if self.path is not None and time.monotonic() - self._checked > _REOPEN_CHECK_SECONDS:
            self._reopen_if_moved()
        try:
            self.stream.write(line + "\n")
            if self.path is None:
                self.stream.flush()
        except (OSError, ValueError):  # a full disk or a closed stream must not fail the request
            pass

    def _reopen_if_moved(self) -> None:
        assert self.path is not None
        self._checked = time.monotonic()
        try:
            moved = os.stat(self.path).st_ino != os.fstat(self.stream.fileno()).st_ino
        except OSError:  # gone: make it again
            moved = True
        if moved:
            with contextlib.suppress(OSError):  # not reopened: the next check tries again
                fresh = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
                self.stream.close()
                self.stream = fresh

    def close(self) -> None:
        if self.path is not None:
            self.stream.close()


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "-"


def _request_line(scope: Scope, method: str) -> str:
    path = quote(scope.get("path", ""), safe=_PATH_SAFE)
    return f'"{method} {path} HTTP/{scope.get("http_version", "1.1")}"'


_stamp_cache: tuple[int, str] = (0, "")


def _stamp() -> str:
    """The time of the Common Log Format, made once a second (strftime per line is measurable)."""
    global _stamp_cache
    now = int(time.time())
    if _stamp_cache[0] != now:
        _stamp_cache = (now, time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)))
    return _stamp_cache[1]


def _line(scope: Scope, method: str, status: int, sent: int | None, seconds: float, tail: str = "") -> str:
    size = "-" if sent is None else str(sent)
    line = f"{_client(scope)} - - [{_stamp()}] {_request_line(scope, method)} {status} {size} {seconds:.3f}"
    return f"{line} {tail}" if tail else line


class AccessLogMiddleware:
    """ASGI middleware writing the access log of every HTTP request and WebSocket."""

    def __init__(self, app: ASGIApp, log: AccessLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        status, sent = 500, 0  # an app that raised before answering: the server answers 500

        async def counting_send(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, counting_send)
        finally:
            self.log.write(_line(scope, scope.get("method", "-"), status, sent, time.perf_counter() - start))

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        state: dict[str, Any] = {"accepted": False, "sent": 0, "code": None}

        async def watching_send(message: Message) -> None:
            # Every frame of a game passes here: its size is counted without encoding it again (an
            # ASCII str, as most frames are, knows it is one: its length is its byte count).
            kind = message["type"]
            if kind == "websocket.send":
                text = message.get("text")
                if text is not None:
                    state["sent"] += len(text) if text.isascii() else len(text.encode())
                else:
                    state["sent"] += len(message.get("bytes") or b"")
            elif kind == "websocket.accept":
                state["accepted"] = True
                self.log.write(_line(scope, "WEBSOCKET", 101, None, time.perf_counter() - start, "open"))
            elif kind == "websocket.close" and state["code"] is None:
                state["code"] = message.get("code", 1000)
            await send(message)

        async def watching_receive() -> Message:
            message = await receive()
            if message["type"] == "websocket.disconnect" and state["code"] is None:
                state["code"] = message.get("code", 1005)
            return message

        try:
            await self.app(scope, watching_receive, watching_send)
        finally:
            seconds = time.perf_counter() - start
            code = state["code"] if state["code"] is not None else 1006
            if state["accepted"]:
                self.log.write(_line(scope, "WEBSOCKET", 101, state["sent"], seconds, f"close {code}"))
            else:  # refused before the handshake finished (a foreign Origin): the server answered 403
                self.log.write(_line(scope, "WEBSOCKET", 403, 0, seconds, f"refused {code}"))
