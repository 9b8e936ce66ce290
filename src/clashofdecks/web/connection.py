"""One page's WebSocket as the game server sees it: who opened it, the game it follows and the seats
it holds, and the frames on their way to it.

A frame is sent at once when nothing waits before it and the socket takes it without waiting (its
transport's buffer not full: the send never suspends); a send that would wait is finished by a
writer task, and the frames after it wait in a bounded queue of their own that the task sends in
order, so a broadcast never waits for one page's network: a page that reads too slowly (its queue
full) is closed with :data:`SLOW_READER_CLOSE` and its frames dropped, never buffered without end
(docs/web.md, "Protocol")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Coroutine, Generator
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
    #: The task finishing a send that had to wait and the frames queued behind it (None or done:
    #: nothing is under way, the next frame is sent at once).
    writer: asyncio.Task[None] | None = field(default=None, repr=False)
    #: Set when the writer task ends (nothing waits to be sent and no send is under way).
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
        """Send ``text`` to the page now if nothing waits before it and the socket does not make it
        wait; else queue it (sent in order by the writer task)."""
        if self.dropped:
            return
        if self.outbox or (self.writer is not None and not self.writer.done()):
            if len(self.outbox) >= self.queue_limit:
                self._drop_slow_reader()
                return
            self.outbox.append(text)
            if self.writer is None or self.writer.done():  # a writer ended by an unexpected error
                self._start_writer(None)
            return
        if self.ws.application_state != WebSocketState.CONNECTED:
            return
        sending = self.ws.send_text(text)
        try:
            waits_for = sending.send(None)  # runs the send until it would wait, if it would
        except StopIteration:
            metrics.frame_sent(text)
            return
        except (RuntimeError, WebSocketDisconnect, OSError):
            return
        self._start_writer(_Resumed(sending, waits_for, text))

    def _start_writer(self, under_way: _Resumed | None) -> None:
        self.idle.clear()
        self.writer = asyncio.create_task(self._write(under_way))

    async def _write(self, under_way: _Resumed | None) -> None:
        """Finish the send ``under_way``, then send the queued frames in order; ends when none is left."""
        try:
            if under_way is not None:
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                    await under_way
                    metrics.frame_sent(under_way.text)
            while self.outbox:
                text = self.outbox.popleft()
                if self.ws.application_state != WebSocketState.CONNECTED:
                    self.outbox.clear()
                    break
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                    await self.ws.send_text(text)
                    metrics.frame_sent(text)
        finally:
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
        if self.writer is not None and not self.dropped and not self.writer.done():
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


class _Resumed:
    """A send started in the broadcast's own task that had to wait (it yielded ``waits_for``, the
    future it waits on): awaited in the writer task, it goes on from there as ``yield from`` would."""

    def __init__(self, sending: Coroutine[Any, Any, None], waits_for: Any, text: str) -> None:
        self.sending = sending
        self.waits_for = waits_for
        self.text = text

    def __await__(self) -> Generator[Any, Any, None]:
        waits_for = self.waits_for
        while True:
            try:
                answer = yield waits_for
            except GeneratorExit:
                self.sending.close()
                raise
            except BaseException as exc:  # the task cancelled, or the future's error: into the send
                try:
                    waits_for = self.sending.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    waits_for = self.sending.send(answer)
                except StopIteration:
                    return
