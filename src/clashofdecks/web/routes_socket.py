"""The game socket (``/ws``): one WebSocket per page, its messages handed to :meth:`GameServer.handle`."""

from __future__ import annotations

import logging
import time

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import ClashError
from . import identity as ident
from . import metrics
from .http_checks import origin_allowed, session_id_of
from .protocol import ProtocolError, RateLimiter, error_frame, parse_message
from .routes_common import RouteGroup
from .server import Connection

log = logging.getLogger("clashofdecks.web")


class SocketRoute(RouteGroup):
    """The game socket."""

    async def socket(self, ws: WebSocket) -> None:
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), self.config):
            await ws.close(code=4403)
            return
        sid = session_id_of(ws.headers, ws.cookies)
        row = None
        if sid is not None:
            hashed = ident.session_hash(sid)
            row = await self.server.run_db(lambda s: s.identity_of_session(hashed))
        await ws.accept()
        metrics.socket_opened()
        conn = Connection(
            ws,
            RateLimiter(self.config.rate, self.config.burst),
            identity=row.id if row else None,
            display_name=row.display_name if row else "",
            queue_limit=self.config.send_queue_frames,
        )
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                if not conn.limiter.allow():
                    await conn.send(error_frame("rate_limited", "too many messages; slow down"))
                    continue
                await self._message(conn, text)
        except WebSocketDisconnect:
            pass
        finally:
            metrics.socket_closed()
            conn.stop()
            self.server.sockets.disconnect(conn)

    async def _message(self, conn: Connection, text: str | bytes) -> None:
        """One message: handled, or answered with an error frame (nothing changed)."""
        received = time.perf_counter()
        try:
            msg = parse_message(text)
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
