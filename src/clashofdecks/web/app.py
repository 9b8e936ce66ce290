"""The ASGI app of ``clash serve``: the route groups (``routes_*.py``) around one :class:`GameServer`,
with the operator's access log and metrics listener (``routes_ops.py``, ``access_log.py``).

``docs/web.md`` documents the routes; ``docs/deploy.md`` how to run several processes."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .access_log import AccessLogMiddleware
from .http_guard import SecurityHeaders
from .routes_accounts import AccountRoutes
from .routes_bots import BotRoutes
from .routes_common import Limits
from .routes_games import GameRoutes
from .routes_ops import MetricsPortGate, OpsConfig, OpsRoutes
from .routes_pages import PageRoutes
from .routes_passwords import PasswordRoutes
from .routes_puzzles import PuzzleRoutes
from .routes_socket import SocketRoute
from .routes_tournaments import TournamentRoutes
from .server import GameServer, ServerConfig


def create_app(config: ServerConfig | None = None, ops: OpsConfig | None = None) -> Starlette:
    """The ASGI app (``app.state.server`` is the :class:`GameServer`).  ``ops``: the access log and
    the metrics (default: neither)."""
    server = GameServer(config or ServerConfig())
    ops = ops or OpsConfig()
    limits = Limits.of(server.config)
    limits.sockets = server.socket_counts  # the server closes the sockets of ended sessions

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    routes = [
        *OpsRoutes(server, limits, ops).routes(),
        *PageRoutes(server, limits).routes(),
        *AccountRoutes(server, limits).routes(),
        *BotRoutes(server, limits).routes(),
        *PasswordRoutes(server, limits).routes(),
        *GameRoutes(server, limits).routes(),
        *TournamentRoutes(server, limits).routes(),
        *PuzzleRoutes(server, limits).routes(),
        *SocketRoute(server, limits).routes(),
    ]
    middleware: list[Middleware] = []
    if ops.access_log is not None:  # outermost: a request the gate refuses is logged too
        middleware.append(Middleware(AccessLogMiddleware, log=ops.access_log))
    if ops.metrics_port is not None:
        middleware.append(Middleware(MetricsPortGate, metrics_port=ops.metrics_port))
    middleware.append(Middleware(SecurityHeaders))
    if "*" not in server.config.allowed_hosts:  # another host name: a DNS rebinding page (403/400)
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(server.config.allowed_hosts)))
    pages = PageRoutes(server, limits)
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={404: pages.not_found},
    )
    app.state.server = server
    return app
