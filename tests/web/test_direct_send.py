"""A socket's frames straight to the server's send (web/direct_send.py), and the access log's count of
their bytes."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketState

from clashofdecks.web.access_log import AccessLog, AccessLogMiddleware
from clashofdecks.web.connection import Connection
from clashofdecks.web.direct_send import DIRECT_SEND, DirectSend, DirectSendMiddleware
from clashofdecks.web.protocol import RateLimiter
from conftest import run_async

FRAMES = ('{"type":"state"}', '{"type":"event","text":"Zoë attaque"}')  # ASCII, and not (2-byte ë)


def _served(app: Any) -> tuple[list[Message], str]:
    """``app`` as the server runs it: DirectSend outermost, the access log inside it."""
    sent: list[Message] = []
    incoming: list[Message] = [{"type": "websocket.connect"}, {"type": "websocket.disconnect", "code": 1000}]

    async def receive() -> Message:
        if not incoming:
            await asyncio.Event().wait()  # nothing more comes
        return incoming.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    stream = io.StringIO()
    stack = DirectSendMiddleware(AccessLogMiddleware(app, AccessLog(stream)))
    scope = {"type": "websocket", "path": "/ws", "client": ("127.0.0.1", 5000), "headers": []}
    run_async(stack(scope, receive, send), timeout=30)
    return sent, stream.getvalue()


def test_frames_reach_the_servers_send_unwrapped_and_the_access_log_counts_their_bytes() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        conn = Connection(ws, RateLimiter(1e6, 1e6), direct=scope[DIRECT_SEND])
        for frame in FRAMES:
            await conn.send_text(frame)
        await conn.flush()
        assert scope[DIRECT_SEND].sent == sum(len(f.encode()) for f in FRAMES)
        await ws.receive()  # the page goes

    sent, log = _served(app)
    assert [m for m in sent if m["type"] == "websocket.send"] == [
        {"type": "websocket.send", "text": frame} for frame in FRAMES
    ]
    size = sum(len(f.encode()) for f in FRAMES)
    assert re.search(rf'"WEBSOCKET /ws HTTP/1\.1" 101 {size} [\d.]+ close 1000$', log, re.M), log


def test_a_send_the_server_refuses_marks_the_socket_gone_and_nothing_is_counted_as_sent() -> None:
    """uvicorn's send raises ClientDisconnected (an OSError) on a connection lost: as Starlette's own
    send does, the socket is then disconnected, and no later frame is tried."""

    async def go() -> None:
        tried: list[str] = []

        async def server_send(message: Message) -> None:
            tried.append(message["text"])
            raise OSError("lost")

        ws: Any = type("Socket", (), {"application_state": WebSocketState.CONNECTED})()
        conn = Connection(ws, RateLimiter(1e6, 1e6), direct=DirectSend(server_send))
        await conn.send_text("one")
        await conn.send_text("two")
        assert tried == ["one"] and ws.application_state == WebSocketState.DISCONNECTED

    run_async(go(), timeout=30)
