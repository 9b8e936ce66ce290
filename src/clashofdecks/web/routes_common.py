"""What every route group of the web app shares: the :class:`GameServer`, the options, the
per-address rate limits, and the small helpers of request handling (who asks, JSON bodies, errors).

The app (``web/app.py``) builds one :class:`Limits` and hands it to each route group, so a limit
counts across groups (new identities and new accounts draw from one bucket)."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from . import identity as ident
from . import lineage, logins
from .http_checks import MAX_OPTIONS_BYTES, client_address, read_body, session_id_of, set_session_cookie
from .identity import InputError
from .limits import Caps, SocketCounts
from .protocol import AddressRateLimiter
from .server import GameServer, ServerConfig
from .store import IdentityRow, Store


@dataclass
class Limits:
    """The per-address (and per-account) rate limits of HTTP requests."""

    creations: AddressRateLimiter
    new_identities: AddressRateLimiter
    logins_by_address: AddressRateLimiter
    logins_by_account: AddressRateLimiter
    #: Records, replays and analyses per address (``heavy_per_minute``; web/limits.py).
    heavy: AddressRateLimiter | None = None
    #: Sockets open per identity and per address (web/limits.py).
    sockets: SocketCounts = field(default_factory=lambda: SocketCounts(Caps()))
    #: Sockets opened per address (``socket_opens_per_minute``; web/limits.py).
    socket_opens: AddressRateLimiter | None = None

    @classmethod
    def of(cls, config: ServerConfig) -> Limits:
        return cls(
            creations=AddressRateLimiter(config.create_rate / 60.0, config.create_burst),
            # Identities are limited like games (their own bucket, the same pace): a script making
            # identities by the thousand is refused like one making games.
            new_identities=AddressRateLimiter(config.create_rate / 60.0, config.create_burst),
            logins_by_address=AddressRateLimiter(config.login_rate_address / 60.0, config.login_rate_address),
            logins_by_account=AddressRateLimiter(
                config.login_rate_account / 900.0, config.login_rate_account
            ),
            heavy=(
                AddressRateLimiter(config.caps.heavy_per_minute / 60.0, config.caps.heavy_per_minute)
                if config.caps.heavy_per_minute
                else None
            ),
            sockets=SocketCounts(config.caps),
            socket_opens=(
                AddressRateLimiter(
                    config.caps.socket_opens_per_minute / 60.0, config.caps.socket_opens_per_minute
                )
                if config.caps.socket_opens_per_minute
                else None
            ),
        )


class RouteGroup:
    """A group of routes (its handlers are methods) with the helpers they share."""

    def __init__(self, server: GameServer, limits: Limits) -> None:
        self.server = server
        self.config = server.config
        self.limits = limits

    def too_many(self, limiter: AddressRateLimiter, key: str, message: str) -> Response | None:
        """429 when ``key`` has drawn from ``limiter`` faster than it allows.  Checked before the
        body is read where it can be: a refused request costs the server almost nothing."""
        if limiter.allow(key):
            return None
        wait = max(1, math.ceil(limiter.retry_after(key)))
        body = {"error": f"{message}; try again in {wait} s", "code": "rate_limited", "retry_after": wait}
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})

    def heavy_refused(self, request: Request) -> Response | None:
        """429 for an address asking records, replays and analyses faster than ``heavy_per_minute``."""
        if self.limits.heavy is None:
            return None
        per_minute = self.config.caps.heavy_per_minute
        return self.too_many(
            self.limits.heavy,
            client_address(request),
            f"too many records and replays from this address; at most {per_minute:g} a minute",
        )

    async def take_login_attempt(self, username: str, address: str) -> Response | None:
        """Take a password attempt on ``username`` from ``address`` before verifying it (web/logins.py):
        None when taken, else the 429 that says how long to wait."""
        caps = self.config.caps
        keys = {
            logins.account_key(username): caps.login_free_failures,
            logins.address_key(address): caps.login_free_failures_address,
        }
        now = self.config.clock()
        wait = await self.server.run_db(lambda s: logins.take_attempt(s.engine, keys, now, caps))
        if wait <= 0:
            return None
        seconds = max(1, math.ceil(wait))
        body = {
            "error": f"too many failed logins for this account or address; try again in {seconds} s",
            "code": "rate_limited",
            "retry_after": seconds,
        }
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(seconds)})

    def creation_refused(self, request: Request) -> Response | None:
        return self.too_many(
            self.limits.creations,
            client_address(request),
            f"too many new games from this address; at most {self.config.create_rate:g} a minute",
        )

    async def who(self, request: Request) -> tuple[IdentityRow | None, str | None]:
        """The identity of the request's session, and the session's hash."""
        sid = session_id_of(request.headers, request.cookies)
        if sid is None:
            return None, None
        hashed = ident.session_hash(sid)
        return await self.server.run_db(lambda s: live_identity(s, hashed, self.config)), hashed

    async def json_body(self, request: Request) -> Any:
        raw = await read_body(request, MAX_OPTIONS_BYTES)
        if raw is None:
            raise InputError(f"a request is at most {MAX_OPTIONS_BYTES} bytes")
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):  # ValueError: bad JSON or UTF-8, a 5,000-digit number
            raise InputError("the request body is not JSON") from None

    def fields(self, data: Any, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise InputError("the request must be a JSON object")
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise InputError(f"unknown field {unknown[0][:40]!r}")
        return data

    def bad(self, message: str, status: int = 400, code: str = "bad_input") -> Response:
        return JSONResponse({"error": message, "code": code}, status_code=status)

    async def new_session(
        self, response: Response, request: Request, identity_id: str, old: str | None
    ) -> str:
        sid = ident.new_session_id()
        new_hash = ident.session_hash(sid)
        browser = lineage.valid(request.cookies.get(lineage.LINEAGE_COOKIE))
        kept = await self.server.run_db(lambda s: s.replace_session(identity_id, old, new_hash, browser))
        set_session_cookie(response, sid, request, self.config)
        self.keep_lineage(response, request, kept)
        return sid

    def keep_lineage(self, response: Response, request: Request, kept: str) -> None:
        """The browser's lineage cookie (web/lineage.py), set when it does not hold ``kept``."""
        if request.cookies.get(lineage.LINEAGE_COOKIE) != kept:
            secure = request.url.scheme == "https" or (self.config.public_url or "").startswith("https:")
            response.set_cookie(
                lineage.LINEAGE_COOKIE,
                kept,
                max_age=lineage.LINEAGE_MAX_AGE,
                httponly=True,
                samesite="lax",
                secure=secure,
            )


def live_identity(store: Store, hashed: str, config: ServerConfig) -> IdentityRow | None:
    """The identity of a session that has not expired unused (web/logins.py)."""
    # The system clock: sessions are stamped with it (the test-only game clock may be years ahead).
    return logins.live_session_identity(store.engine, hashed, time.time(), config.caps)
