"""The game socket (``/ws``): one WebSocket per page, its messages handed to :meth:`GameServer.handle`."""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import ClashError
from . import identity as ident
from . import metrics
from .http_checks import origin_allowed, session_id_of
from .limits import FloodGuard
from .protocol import Message, ProtocolError, RateLimiter, error_frame, parse_message
from .routes_common import RouteGroup, live_identity
from .server import Connection
from .store import IdentityRow

log = logging.getLogger("clashofdecks.web")


class SocketRoute(RouteGroup):
    """The game socket."""

    async def socket(self, ws: WebSocket) -> None:
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), self.config):
            await ws.close(code=4403)
            return
        sid = session_id_of(ws.headers, ws.cookies)
        row = None
        hashed = None
        if sid is not None:
            hashed = ident.session_hash(sid)
            row = await self.server.run_db(lambda s: live_identity(s, hashed, self.config))
        address = ws.client.host if ws.client is not None else "unknown"
        identity = row.id if row else None
        opens = self.limits.socket_opens
        if opens is not None and not opens.allow(address):  # before any work: the handshake is refused
            log.warning("refused socket from %s: too many new sockets from this address", address)
            await ws.close(code=1008)
            return
        refused = self.limits.sockets.admit(address, identity)
        if refused is not None:  # before accepting: the handshake is answered 403 (web/limits.py)
            log.warning("refused socket from %s: %s", address, refused)
            await ws.close(code=1008)
            return
        self.limits.sockets.opened(identity, ws, hashed)
        try:
            await ws.accept()
            metrics.socket_opened()
            try:
                await self._serve(ws, row, address)
            finally:
                metrics.socket_closed()
        finally:
            self.limits.sockets.release(address, identity, ws)

    async def _serve(self, ws: WebSocket, row: IdentityRow | None, address: str) -> None:
        conn = Connection(
            ws,
            RateLimiter(self.config.rate, self.config.burst),
            identity=row.id if row else None,
            display_name=row.display_name if row else "",
            queue_limit=self.config.send_queue_frames,
            address=address,
            lineage=row.lineage if row else None,
        )
        guard = FloodGuard(self.config.caps.flood_drops)
        deadline = self.config.caps.first_message_seconds or None
        try:
            while True:
                try:
                    message = await asyncio.wait_for(ws.receive(), deadline)
                except TimeoutError:  # a socket that says nothing holds a file and a slot for nothing
                    await ws.close(code=1008)
                    break
                deadline = None
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                if not conn.limiter.allow():
                    verdict = guard.excess()
                    if verdict == "answer":
                        await conn.send(error_frame("rate_limited", "too many messages; slow down"))
                    elif verdict == "close":
                        await ws.close(code=1008)
                        break
                    continue  # dropped: an excess message costs one comparison
                guard.within_rate()
                received = time.perf_counter()
                msg = await self._parsed(conn, text)
                if msg is None:
                    continue
                if msg.type == "hint":  # thought in a worker while the page goes on; dropped if it leaves
                    conn.start_job(self._handle(conn, msg, received))
                else:
                    await self._handle(conn, msg, received)
        except WebSocketDisconnect:
            pass
        finally:
            conn.stop()
            self.server.sockets.disconnect(conn)

    async def _message(self, conn: Connection, text: str | bytes) -> None:
        """One message: handled, or answered with an error frame (nothing changed)."""
        received = time.perf_counter()
        msg = await self._parsed(conn, text)
        if msg is not None:
            await self._handle(conn, msg, received)

    async def _parsed(self, conn: Connection, text: str | bytes) -> Message | None:
        """The message, or None when it is not one (the page is told why)."""
        try:
            return parse_message(text)
        except ProtocolError as exc:
            await conn.send(error_frame(exc.code, exc.message))
            return None

    async def _handle(self, conn: Connection, msg: Message, received: float) -> None:
        """A message handled, or answered with an error frame (nothing changed)."""
        try:
            await self.server.sockets.handle(conn, msg)
            if msg.type == "act":
                # handle() returns once the state frame acknowledging the action is queued for this socket.
                metrics.observe_action(time.perf_counter() - received)
        except ProtocolError as exc:
            await conn.send(error_frame(exc.code, exc.message))
        except ClashError as exc:
            await conn.send(error_frame("illegal", str(exc)))
        except Exception:
            log.exception("message failed")
            await conn.send(error_frame("server_error", "the server could not do that; nothing changed"))
            self.server.sockets.failed(conn)  # its game alone reloads from the store

    def routes(self) -> list[BaseRoute]:
        return [WebSocketRoute("/ws", self.socket)]
