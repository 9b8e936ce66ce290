"""HTTP routes of a password change, of a reset with a recovery code and of new recovery codes
(docs/web.md, "Identities and accounts"): the old password or a code (throttled like a login), a
new one that is not common; at a change or a reset every session of the account ends and its
sockets close on every server process, this browser gets a new session."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from . import identity as ident
from . import logins, recovery
from .bodies import me_body
from .http_checks import client_address, cross_site_refusal
from .identity import InputError
from .routes_common import RouteGroup
from .store import Store
from .store_rows import IdentityRow


class PasswordRoutes(RouteGroup):
    """A signed-in account changes its password; a forgotten one is reset with a recovery code."""

    async def _signed_in_account(self, request: Request) -> IdentityRow | Response:
        """The signed-in account of a same-site request, or the answer that refuses it."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None or not row.is_account or row.username is None:
            return self.bad("sign in to an account first", 401, "no_identity")
        return row

    async def _password_refusal(self, request: Request, row: IdentityRow, typed: object) -> Response | None:
        """None when ``typed`` is the account's password; the attempt is taken (throttled like a
        login) before the password is verified."""
        assert row.username is not None
        waiting = await self.take_login_attempt(row.username, client_address(request))
        if waiting is not None:
            return waiting
        ok, _rehash = await asyncio.to_thread(
            ident.verify_password, row.password_hash, typed if isinstance(typed, str) else ""
        )
        return None if ok else self.bad("wrong password", 401, "login_failed")

    async def change_password(self, request: Request) -> Response:
        row = await self._signed_in_account(request)
        if isinstance(row, Response):
            return row
        try:
            data = self.fields(await self.json_body(request), {"password", "new_password"})
            new = ident.new_password(data.get("new_password"))
        except InputError as exc:
            return self.bad(str(exc))
        refused = await self._password_refusal(request, row, data.get("password"))
        if refused is not None:
            return refused
        assert row.username is not None
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

    async def new_recovery_codes(self, request: Request) -> Response:
        """A signed-in account's new recovery codes, its password required (throttled like a
        login): the old codes stop working, the new ones are in this answer only."""
        row = await self._signed_in_account(request)
        if isinstance(row, Response):
            return row
        try:
            data = self.fields(await self.json_body(request), {"password"})
        except InputError as exc:
            return self.bad(str(exc))
        refused = await self._password_refusal(request, row, data.get("password"))
        if refused is not None:
            return refused
        assert row.username is not None
        codes = recovery.new_codes()  # shown this once; only their hashes are kept
        keys = logins.account_key(row.username), logins.address_key(client_address(request))
        identity_id = row.id

        def replace(store: Store) -> None:
            with store.engine.begin() as conn:
                recovery.replace_codes(conn, identity_id, codes)
            logins.succeeded(store.engine, *keys)

        await self.server.run_db(replace)
        return JSONResponse({**me_body(row), "recovery_codes": codes})

    async def recover(self, request: Request) -> Response:
        """A forgotten password: the username, one of its recovery codes (used up) and a new
        password.  Throttled like a login; one answer for an unknown username and a wrong code."""
        refused = cross_site_refusal(request, self.config) or self.too_many(
            self.limits.logins_by_address,
            client_address(request),
            "too many login attempts from this address",
        )
        if refused is not None:
            return refused
        try:
            data = self.fields(await self.json_body(request), {"username", "code", "new_password"})
            name = ident.username(data.get("username"))
            code = data.get("code")
            if not isinstance(code, str) or len(code) > 64:
                raise InputError("wrong username or recovery code")
        except InputError:
            return self.bad("wrong username or recovery code", 401, "login_failed")
        try:
            new = ident.new_password(data.get("new_password"))
        except InputError as exc:
            return self.bad(str(exc))
        waiting = await self.take_login_attempt(name, client_address(request))
        if waiting is not None:
            return waiting
        account = await self.server.run_db(lambda s: s.identity_by_username(name))
        if account is None:
            return self.bad("wrong username or recovery code", 401, "login_failed")
        new_hash = await asyncio.to_thread(ident.hash_password, new)
        identity_id = account.id
        left = await self.server.run_db(
            lambda s: recovery.reset_with_code(s.engine, identity_id, code, new_hash)
        )
        if left is None:
            return self.bad("wrong username or recovery code", 401, "login_failed")
        keys = logins.account_key(name), logins.address_key(client_address(request))
        await self.server.run_db(lambda s: logins.succeeded(s.engine, *keys))
        await self.server.close_signed_out([identity_id])
        response = JSONResponse({**me_body(account), "recovery_codes_left": left})
        current, hashed = await self.who(request)
        if current is not None and current.id != identity_id and not current.is_account:
            guest_id = current.id  # as at a login: the guest's games become the account's
            await self.server.run_db(lambda s: s.merge_guest(guest_id, identity_id))
        await self.new_session(response, request, identity_id, hashed)
        return response

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/account/password", self.change_password, methods=["POST"]),
            Route("/api/account/recover", self.recover, methods=["POST"]),
            Route("/api/account/recovery-codes", self.new_recovery_codes, methods=["POST"]),
        ]
