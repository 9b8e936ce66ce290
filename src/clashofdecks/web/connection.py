"""One page's WebSocket as the game server sees it: who opened it, the game it follows and the seats
it holds, and the frames on their way to it.

Frames wait in a bounded queue of their own and a writer task sends them in order, so a broadcast
never waits for one page's network: a page that reads too slowly (its queue full) is closed with
:data:`SLOW_READER_CLOSE` and its frames dropped, never buffered without end (docs/web.md,
"Protocol")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from . import metrics
from .games import dumps
from .live_game import LiveGame
from .protocol import RateLimiter

log = logging.getLogger("clashofdecks.web")

#: The close code of a socket whose page did not read the frames sent to it (its queue was full).
SLOW_READER_CLOSE = 4008
#: Frames a socket may have waiting unsent before it is closed (``ServerConfig.send_queue_frames``).
SEND_QUEUE_FRAMES = 256


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    limiter: RateLimiter
    live: LiveGame | None = None
    seats: set[int] = field(default_factory=set)
    #: The identity whose session cookie (or bearer header) opened the socket; None: watch only.
    identity: str | None = None
    #: The identity's display name when the socket opened (a queue game's seat name).
    display_name: str = ""
    lang: str = "en"
    #: The client's address and browser lineage (web/lineage.py), for the review record of a rated
    #: game (web/reviews.py), and the hints this page was refused in one.
    address: str = ""
    lineage: str | None = None
    refused_hints: int = 0
    #: The protocol version the page asked for in ``hello`` (docs/web.md, "Protocol").
    protocol: int = 1
    #: The page asked in ``hello`` for ``presence`` messages (which seats are connected).
    wants_presence: bool = False
    #: Version 2: the last full state the page was sent (its next ``delta`` applies to it).
    shown: dict[str, Any] | None = field(default=None, repr=False)
    #: Frames that may wait unsent before the socket is closed as a reader too slow.
    queue_limit: int = SEND_QUEUE_FRAMES
    outbox: deque[str] = field(default_factory=deque, repr=False)
    writer: asyncio.Task[None] | None = field(default=None, repr=False)
    wake: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    #: Set while nothing waits to be sent and no send is under way.
    idle: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    #: Closed as too slow (nothing more is queued).
    dropped: bool = False
    #: The socket has closed (its queued work is dropped: web/workers.py).
    closed: bool = False
    #: Messages handled apart from the socket's reading (hints: thought in a worker while the page
    #: goes on), cancelled when the socket closes.
    jobs: set[asyncio.Task[None]] = field(default_factory=set, repr=False)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(dumps(frame))

    async def send_text(self, text: str) -> None:
        """Queue ``text`` for the page (sent in order by the writer task)."""
        if self.dropped:
            return
        if len(self.outbox) >= self.queue_limit:
            self._drop_slow_reader()
            return
        self.outbox.append(text)
        self.idle.clear()
        self.wake.set()
        if self.writer is None or self.writer.done():  # a writer ended by an unexpected error too
            self.writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.outbox:
                text = self.outbox.popleft()
                if self.ws.application_state != WebSocketState.CONNECTED:
                    self.outbox.clear()
                    break
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                    await self.ws.send_text(text)
                    metrics.frame_sent(text)
            self.idle.set()

    def _drop_slow_reader(self) -> None:
        self.dropped = True
        self.outbox.clear()
        if self.writer is not None:
            self.writer.cancel()  # it waits on the page's network: the close takes its place
        log.warning("closing a socket that left %d frames unread", self.queue_limit)
        self.writer = asyncio.create_task(self._close(SLOW_READER_CLOSE, "too slow: frames were not read"))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await self.ws.close(code=code, reason=reason)

    async def flush(self) -> None:
        """Wait until every frame queued so far is sent (or dropped)."""
        if self.writer is not None and not self.dropped and not self.idle.is_set():
            await self.idle.wait()

    def start_job(self, job: Any) -> None:
        """Handle a message (the coroutine ``job``) while the socket reads on; cancelled if it closes."""
        task = asyncio.create_task(job)
        self.jobs.add(task)
        task.add_done_callback(self.jobs.discard)

    def stop(self) -> None:
        """The socket has closed: frames still queued are dropped, and so is its work not yet done."""
        self.closed = True
        for task in list(self.jobs):
            task.cancel()
        self.outbox.clear()
        self.idle.set()
        if self.writer is not None and not self.dropped:
            self.writer.cancel()
