"""A WebSocket's frames handed straight to the ASGI server's own send (uvicorn's), below every
layer of the app: Starlette's ``WebSocket.send`` and its two exception-handling wrappers and the
access log's watcher are each a coroutine a frame, for a frame that is only text.  The access log
still counts the frames' bytes (from :attr:`DirectSend.sent`); the socket's opening and closing go
through the app's layers as before."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send

#: The scope's key of a WebSocket's :class:`DirectSend`.
DIRECT_SEND = "clashofdecks.direct_send"


class DirectSend:
    """The server's send of one WebSocket, and the bytes of the frames sent through it."""

    __slots__ = ("send", "sent")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.sent = 0

    def text(self, text: str) -> Coroutine[Any, Any, None]:
        # An ASCII str (most frames) knows it is one: its length is its byte count.
        self.sent += len(text) if text.isascii() else len(text.encode())
        # The server's send is an ``async def`` (uvicorn's every implementation): a coroutine.
        return cast("Coroutine[Any, Any, None]", self.send({"type": "websocket.send", "text": text}))


class DirectSendMiddleware:
    """The outermost layer of the app: gives each WebSocket's scope the server's send, unwrapped."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[DIRECT_SEND] = DirectSend(send)
        await self.app(scope, receive, send)
