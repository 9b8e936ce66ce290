"""Routes for the operator, not the players: ``/healthz`` (the process answers), ``/readyz`` (and
its database does), and ``/metrics`` (Prometheus; only on the metrics listener or for the addresses
allowed).  docs/web.md, "Operating"; docs/deploy.md."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from dataclasses import dataclass

import sqlalchemy as sa
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from . import metrics
from .access_log import AccessLog
from .routes_common import Limits, RouteGroup
from .server import GameServer
from .store import Store

log = logging.getLogger("clashofdecks.web")
#: Seconds ``/readyz`` waits for the database's answer before saying it is not ready.
READY_TIMEOUT = 2.0
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_NO_CACHE = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class OpsConfig:
    """The operator's options of ``clash serve`` that shape the app (docs/web.md, "Operating")."""

    #: Where the access log goes (None: no access log).
    access_log: AccessLog | None = None
    #: The port of the metrics listener: requests arriving there get ``/metrics`` and nothing else.
    metrics_port: int | None = None
    #: Client addresses that may read ``/metrics`` on the main port.
    metrics_allow: tuple[Network, ...] = ()

    @property
    def metrics_enabled(self) -> bool:
        return self.metrics_port is not None or bool(self.metrics_allow)


def parse_networks(text: str) -> tuple[Network, ...]:
    """``"10.0.0.5, 192.168.0.0/24"`` as networks; raises ValueError naming a bad entry."""
    out: list[Network] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network (such as 10.0.0.0/8)") from None
    return tuple(out)


def _ping(store: Store) -> None:
    with store.engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))


def _gauges_of(server: GameServer) -> metrics.ServerGauges:
    def connected_players() -> int:
        games = list(server.table.games.values())
        return len({c.identity for g in games for c in list(g.connections) if c.seats and c.identity})

    def games_in_progress() -> int:
        return sum(1 for live in list(server.table.games.values()) if not live.session.is_over)

    def queue_length() -> int:
        return len(server.matchmaker.queued)

    return metrics.ServerGauges(connected_players, games_in_progress, queue_length)


def _arrived_on(scope: Scope, port: int | None) -> bool:
    server = scope.get("server")
    return port is not None and server is not None and server[1] == port


class OpsRoutes(RouteGroup):
    """Health, readiness and metrics."""

    def __init__(self, server: GameServer, limits: Limits, ops: OpsConfig) -> None:
        super().__init__(server, limits)
        self.ops = ops
        self.registry = metrics.registry_with(_gauges_of(server)) if ops.metrics_enabled else None

    async def healthz(self, request: Request) -> Response:
        """The process answers (no database touched: a slow database must not get it restarted)."""
        return JSONResponse({"status": "alive"}, headers=_NO_CACHE)

    async def readyz(self, request: Request) -> Response:
        """The process can serve: its database answers a trivial query within READY_TIMEOUT."""
        if self.server.store is None:
            return self._unready("starting")
        try:
            await asyncio.wait_for(self.server.run_db(_ping), READY_TIMEOUT)
        except TimeoutError:
            return self._unready(f"the database did not answer within {READY_TIMEOUT:g} s")
        except Exception as exc:  # any failure of the database is "not ready", never a 500
            log.warning("readiness check failed: %s", exc)
            return self._unready(f"the database is unreachable ({type(exc).__name__})")
        return JSONResponse({"status": "ready"}, headers=_NO_CACHE)

    def _unready(self, reason: str) -> Response:
        return JSONResponse({"status": "unready", "reason": reason}, status_code=503, headers=_NO_CACHE)

    async def metrics(self, request: Request) -> Response:
        if self.registry is None or not self._may_read_metrics(request):
            return PlainTextResponse("Not Found", status_code=404)
        body = await asyncio.to_thread(metrics.exposition, self.registry)
        return Response(body, media_type=metrics.CONTENT_TYPE, headers=_NO_CACHE)

    def _may_read_metrics(self, request: Request) -> bool:
        if _arrived_on(request.scope, self.ops.metrics_port):
            return True
        host = request.client.host if request.client is not None else ""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.ops.metrics_allow)

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = [Route("/healthz", self.healthz), Route("/readyz", self.readyz)]
        if self.ops.metrics_enabled:
            routes.append(Route("/metrics", self.metrics))
        return routes


class MetricsPortGate:
    """On the metrics listener only ``/metrics`` answers: the game app is not served there."""

    def __init__(self, app: ASGIApp, metrics_port: int) -> None:
        self.app = app
        self.metrics_port = metrics_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not _arrived_on(scope, self.metrics_port):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        elif scope["path"] != "/metrics":
            await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
        else:
            await self.app(scope, receive, send)
