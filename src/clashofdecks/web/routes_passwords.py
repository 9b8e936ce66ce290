"""HTTP route of a password change (docs/web.md, "Identities and accounts"): the old password
(throttled like a login), a new one that is not common; every other session of the account ends
and every socket of it closes, this browser gets a new session."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from . import identity as ident
from . import logins
from .bodies import me_body
from .http_checks import client_address, cross_site_refusal
from .identity import InputError
from .routes_common import RouteGroup
from .store import Store


class PasswordRoutes(RouteGroup):
    """A signed-in account changes its password."""

    async def change_password(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None or not row.is_account or row.username is None:
            return self.bad("sign in to an account first", 401, "no_identity")
        try:
            data = self.fields(await self.json_body(request), {"password", "new_password"})
            new = ident.new_password(data.get("new_password"))
        except InputError as exc:
            return self.bad(str(exc))
        waiting = await self.take_login_attempt(row.username, client_address(request))
        if waiting is not None:
            return waiting
        old = data.get("password")
        ok, _rehash = await asyncio.to_thread(
            ident.verify_password, row.password_hash, old if isinstance(old, str) else ""
        )
        if not ok:
            return self.bad("wrong password", 401, "login_failed")
        new_hash = await asyncio.to_thread(ident.hash_password, new)
        keys = logins.account_key(row.username), logins.address_key(client_address(request))
        identity_id = row.id

        def change(store: Store) -> None:
            store.set_password_hash(identity_id, new_hash)
            logins.succeeded(store.engine, *keys)
            logins.end_sessions(store.engine, identity_id)

        await self.server.run_db(change)
        await self.server.close_signed_out([identity_id])
        response = JSONResponse(me_body(row))
        await self.new_session(response, request, identity_id, None)
        return response

    def routes(self) -> list[BaseRoute]:
        return [Route("/api/account/password", self.change_password, methods=["POST"])]
