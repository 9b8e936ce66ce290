"""HTTP hardening of ``clash serve`` (docs/web.md, "Threats"): the ``Host`` allow-list against DNS
rebinding, headers every answer carries, and a deadline for a request's headers (uvicorn has none:
a client that sends its headers a byte a minute would hold a connection forever)."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Sent with every HTTP answer: no MIME sniffing of a record into a page; no address of a game (its
#: id) to another site through the Referer.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)


def allowed_hosts(bound: str, public_url: str | None, extra: Iterable[str] = ()) -> list[str]:
    """The ``Host`` names the server answers to: this machine's names, the address it is bound to
    (every local address when bound to all of them is not known here, so ``0.0.0.0`` and ``::``
    allow any host: name it with ``--public-url`` or ``--allowed-host`` to check it), and the
    host of ``--public-url``."""
    if bound in ("0.0.0.0", "::", ""):
        hosts = ["*"]
    else:
        hosts = ["localhost", "127.0.0.1", "::1", "[::1]", _host_form(bound)]
    if public_url:
        name = urlsplit(public_url).hostname
        if name:
            hosts.append(_host_form(name))
    hosts.extend(extra)
    if "*" in hosts and (public_url or list(extra)):
        hosts.remove("*")  # named hosts given: only those (and this machine's)
        hosts.extend(["localhost", "127.0.0.1", "::1", "[::1]"])
    return sorted(set(hosts))


def _host_form(name: str) -> str:
    try:
        return f"[{name}]" if ipaddress.ip_address(name).version == 6 else name
    except ValueError:
        return name.lower()


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def header_deadline_protocol(seconds: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol with a deadline for each request's headers: from the connection
    (or the end of the previous answer) until the headers are complete, else the connection is
    closed."""

    class HeaderDeadline(HttpToolsProtocol):
        header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            if seconds > 0:
                self.header_timer = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def _expired(self) -> None:
            self.header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderDeadline
