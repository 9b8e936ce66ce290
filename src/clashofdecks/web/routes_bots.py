"""HTTP route of bot accounts (docs/web.md, "Bots"): ``POST /api/bots``, by which a signed-in account
marks another account of its own as a bot it owns, and gets the bot's bearer session once.

Why an existing account, shown with its password, rather than a bot made from nothing: accounts are
made one way (registration, with its rate limit and password rules), the bot's owner can still sign
in to the bot's account in a browser, and marking it takes both the owner's session and the bot's
password, so nobody makes someone else's account a bot, nor names someone else as a bot's owner.
"""

from __future__ import annotations

import asyncio
import functools
import logging

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from . import bots, logins
from . import identity as ident
from .bodies import me_body
from .http_checks import client_address, cross_site_refusal
from .identity import InputError
from .routes_common import RouteGroup
from .store import Store

log = logging.getLogger("clashofdecks.web")


class BotRoutes(RouteGroup):
    """Bot accounts."""

    async def mark_bot(self, request: Request) -> Response:
        """``POST /api/bots`` ``{"username", "password"}`` by the owner's session: the named account
        (never played a game) becomes the owner's bot; the answer carries its bearer ``session``,
        shown this once (``clash bot --server URL``)."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        owner, _hashed = await self.who(request)
        if owner is None or not owner.is_account or owner.is_bot:
            return self.bad("only a person's account owns bots: sign in first", 403, "not_an_account")
        try:
            data = self.fields(await self.json_body(request), {"username", "password"})
            name = ident.username(data.get("username"))
            pw = ident.password(data.get("password"))
        except InputError as exc:
            return self.bad(str(exc))
        address = client_address(request)
        waiting = await self.take_login_attempt(name, address)
        if waiting is not None:
            return waiting
        account = await self.server.run_db(lambda s: s.identity_by_username(name))
        ok, _rehash = await asyncio.to_thread(
            ident.verify_password, account.password_hash if account else None, pw
        )
        if account is None or not ok:
            return self.bad("wrong username or password for the bot's account", 401, "login_failed")
        keys = logins.account_key(name), logins.address_key(address)
        await self.server.run_db(lambda s: logins.succeeded(s.engine, *keys))
        bot_id, owner_id = account.id, owner.id
        try:
            await self.server.run_db(lambda s: bots.mark_bot(s.engine, bot_id, owner_id))
        except bots.BotRefused as exc:
            return self.bad(str(exc), 400 if exc.code == "bad_field" else 409, exc.code)
        sid = ident.new_session_id()
        await self.server.run_db(functools.partial(_bearer_session, identity_id=bot_id, sid=sid))
        log.info("%s made %s a bot", owner.handle, account.handle)
        account.is_bot, account.bot_owner = True, owner_id
        return JSONResponse({**me_body(account), "owner": owner.handle, "session": sid})

    def routes(self) -> list[BaseRoute]:
        return [Route("/api/bots", self.mark_bot, methods=["POST"])]


def _bearer_session(store: Store, *, identity_id: str, sid: str) -> None:
    # A browser lineage of its own (web/lineage.py): the bot is not one of its owner's identities,
    # though the queue keeps the two apart (web/bots.py).
    store.replace_session(identity_id, None, ident.session_hash(sid))
