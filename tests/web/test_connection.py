"""A page's frames on their way to its socket (web/connection.py): sent at once when the socket takes
them without waiting, else finished by a writer task in order, behind a bounded queue."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.websockets import WebSocketDisconnect, WebSocketState

from clashofdecks.web.connection import SLOW_READER_CLOSE, Connection
from clashofdecks.web.protocol import RateLimiter
from conftest import run_async


class Socket:
    """A page's WebSocket; a send waits while ``blocked`` is clear (the transport's buffer is full)."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.sent: list[str] = []
        self.blocked = asyncio.Event()
        self.blocked.set()
        self.waiting = 0
        self.closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        if not self.blocked.is_set():
            self.waiting += 1
            await self.blocked.wait()
            self.waiting -= 1
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")
        self.application_state = WebSocketState.DISCONNECTED


def _conn(ws: Socket, queue_limit: int = 256) -> Connection:
    return Connection(ws, RateLimiter(1000.0, 1000.0), queue_limit=queue_limit)  # type: ignore[arg-type]


def test_a_frame_the_socket_takes_at_once_is_sent_by_the_broadcast_itself() -> None:
    """No task and no wait: the frame is on the socket when ``send_text`` returns (no writer task)."""

    async def go() -> None:
        ws = Socket()
        conn = _conn(ws)
        for n in range(3):
            await conn.send_text(f"frame {n}")
            assert ws.sent == [f"frame {i}" for i in range(n + 1)] and conn.writer is None
        await conn.flush()

    run_async(go(), timeout=30)


def test_a_send_that_waits_is_finished_by_the_writer_and_later_frames_keep_their_order() -> None:
    async def go() -> None:
        ws = Socket()
        conn = _conn(ws)
        ws.blocked.clear()
        for n in range(4):  # the first waits on the network, the three after it are queued
            await conn.send_text(f"frame {n}")
        assert ws.sent == [] and ws.waiting == 1 and list(conn.outbox) == ["frame 1", "frame 2", "frame 3"]
        ws.blocked.set()
        await conn.flush()
        assert ws.sent == ["frame 0", "frame 1", "frame 2", "frame 3"] and not conn.outbox
        assert conn.writer is not None and conn.writer.done()
        await conn.send_text("frame 4")  # nothing under way again: sent at once
        assert ws.sent[-1] == "frame 4"

    run_async(go(), timeout=30)


def test_a_page_that_reads_nothing_is_closed_when_its_queue_overflows() -> None:
    async def go() -> None:
        ws = Socket()
        conn = _conn(ws, queue_limit=2)
        ws.blocked.clear()
        for n in range(3):  # one on the wire, two queued: the limit
            await conn.send_text(f"frame {n}")
        assert ws.closed is None and len(conn.outbox) == 2
        await conn.send_text("one too many")
        assert conn.dropped and not conn.outbox
        await asyncio.sleep(0)  # the close runs in the writer's place
        assert ws.closed == (SLOW_READER_CLOSE, "too slow: frames were not read")
        await conn.send_text("after")
        assert not conn.outbox and ws.sent == []
        await conn.flush()

    run_async(go(), timeout=30)


def test_a_send_that_fails_sends_nothing_and_the_next_frames_still_go() -> None:
    """The socket closing under a send (uvicorn's ClientDisconnected is an OSError) is no error of the
    broadcast, sent at once or by the writer."""

    class Failing(Socket):
        failures = 2

        async def send_text(self, text: str) -> None:
            if self.failures:
                self.failures -= 1
                if self.failures == 0:
                    await asyncio.sleep(0)  # this one fails after waiting: in the writer task
                raise OSError("the connection was lost") if self.failures else WebSocketDisconnect(1006)
            await super().send_text(text)

    async def go() -> None:
        ws = Failing()
        conn = _conn(ws)
        await conn.send_text("lost at once")
        await conn.send_text("lost in the writer")
        await conn.flush()
        await conn.send_text("sent")
        assert ws.sent == ["sent"]

    run_async(go(), timeout=30)


def test_stop_drops_a_waiting_send_and_the_frames_behind_it() -> None:
    async def go() -> None:
        ws = Socket()
        conn = _conn(ws)
        ws.blocked.clear()
        await conn.send_text("on the wire")
        await conn.send_text("queued")
        writer: Any = conn.writer
        conn.stop()
        await asyncio.sleep(0)
        assert writer.cancelled() and not conn.outbox and ws.sent == []
        await conn.flush()  # returns: nothing is under way

    run_async(go(), timeout=30)
