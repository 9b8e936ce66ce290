"""One page's WebSocket as the game server sees it: who opened it, the game it follows and the seats
it holds, and the sending of frames to it."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from .games import dumps
from .live_game import LiveGame
from .protocol import RateLimiter


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
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(dumps(frame))

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            if self.ws.application_state != WebSocketState.CONNECTED:
                return
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await self.ws.send_text(text)
