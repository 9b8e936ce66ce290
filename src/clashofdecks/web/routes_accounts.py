"""HTTP routes of identities and accounts: who this browser is, guests, accounts (register, sign in and out,
delete), the leaderboard, players' pages and campaigns (docs/web.md, "Identities")."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from . import handles, lineage, logins, recovery
from . import identity as ident
from .bodies import ANONYMOUS_NAME, HANDLE, campaign_json, create_identity, me_body, player_body
from .http_checks import client_address, cross_site_refusal, set_session_cookie
from .identity import LEGACY_COOKIE, SESSION_COOKIE, InputError
from .ratings import LEADERBOARD_GAMES, RATED_FORMATS
from .routes_common import RouteGroup
from .standing import standing
from .store import IdentityRow, Store, StoreError

log = logging.getLogger("clashofdecks.web")


class AccountRoutes(RouteGroup):
    """Identities, accounts, players."""

    async def me(self, request: Request) -> Response:
        """Who this browser is.  A browser that still has the former release's player cookie and no
        session is recognised once (migration 0002_identities) and gets a session of its own."""
        row, hashed = await self.who(request)
        if row is not None or hashed is not None:
            return JSONResponse(me_body(row))
        legacy = request.cookies.get(LEGACY_COOKIE)
        if legacy:
            legacy_hash = ident.session_hash(legacy)
            row = await self.server.run_db(lambda s: s.identity_of_session(legacy_hash, legacy=True))
            if row is not None:
                response = JSONResponse(me_body(row))
                await self.new_session(response, request, row.id, legacy_hash)
                response.delete_cookie(LEGACY_COOKIE)
                return response
        return JSONResponse(me_body(None))

    async def set_me(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        try:
            name = ident.display_name(
                self.fields(await self.json_body(request), {"display_name"}).get("display_name")
            )
        except InputError as exc:
            return self.bad(str(exc))
        await self.server.run_db(lambda s: s.set_display_name(row.id, name))
        row.display_name = name
        return JSONResponse(me_body(row))

    async def set_handle(self, request: Request) -> Response:
        """``POST /api/me/handle`` ``{"handle": "..."}``: an account chooses its public handle, once
        (web/handles.py); its old address redirects to the new one."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None or not row.is_account:
            return self.bad("only an account chooses its handle: make one first", 403, "not_an_account")
        wanted = self.fields(await self.json_body(request), {"handle"}).get("handle")
        identity_id = row.id
        try:
            row.handle = await self.server.run_db(
                lambda s: handles.choose_handle(s.engine, identity_id, wanted)
            )
        except handles.HandleRefused as exc:
            return self.bad(str(exc), 409 if exc.code == "handle_taken" else 400, exc.code)
        return JSONResponse(me_body(row))

    async def new_identity(self, request: Request) -> Response:
        """A guest identity (the page calls it on a first visit; bots with ``"bearer": true`` get the
        session id in the answer, for an ``Authorization: Bearer`` header, and no cookie)."""
        refused = cross_site_refusal(request, self.config) or self.too_many(
            self.limits.new_identities,
            client_address(request),
            f"too many new identities from this address; at most {self.config.create_rate:g} a minute",
        )
        if refused is not None:
            return refused
        try:
            data = self.fields(await self.json_body(request), {"display_name", "bearer"})
            # An unnamed guest has no display name: its seats get the default names of the game's
            # language ("Spieler 1"), never an English word.
            name = ident.display_name(data["display_name"]) if "display_name" in data else ""
            bearer = data.get("bearer", False)
            if type(bearer) is not bool:
                raise InputError("'bearer' must be true or false")
        except InputError as exc:
            return self.bad(str(exc))
        current, _hashed = await self.who(request)
        if current is not None and not bearer:
            return JSONResponse(me_body(current))  # a second tab of a first visit: the same guest
        sid = ident.new_session_id()
        browser = None if bearer else lineage.valid(request.cookies.get(lineage.LINEAGE_COOKIE))
        for _attempt in range(5):
            row = IdentityRow(ident.new_identity_id(), ident.new_handle(), name)
            try:
                kept = await self.server.run_db(
                    functools.partial(create_identity, row=row, sid=sid, lineage=browser)
                )
                break
            except Exception as exc:  # a handle taken (40 random bits: very rare): another one
                error = exc
        else:
            raise error
        body = me_body(row)
        if bearer:
            body["session"] = sid
            return JSONResponse(body)
        response = JSONResponse(body)
        set_session_cookie(response, sid, request, self.config)
        self.keep_lineage(response, request, kept)
        return response

    async def register(self, request: Request) -> Response:
        """The current guest becomes an account (same identity: its games stay its own)."""
        refused = cross_site_refusal(request, self.config) or self.too_many(
            self.limits.new_identities, client_address(request), "too many new accounts from this address"
        )
        if refused is not None:
            return refused
        row, hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        if row.is_account:
            return self.bad("you are signed in to an account already", 409, "has_account")
        try:
            data = self.fields(await self.json_body(request), {"username", "password"})
            name = ident.username(data.get("username"))
            pw = ident.new_password(data.get("password"))
        except InputError as exc:
            return self.bad(str(exc))
        hashed_pw = await asyncio.to_thread(ident.hash_password, pw)
        try:
            await self.server.run_db(lambda s: s.make_account(row.id, name, hashed_pw))
        except StoreError as exc:
            return self.bad(str(exc), 409, "has_account")
        except Exception:  # the unique index: the username is taken
            return self.bad("that username is taken", 409, "username_taken")
        row.username = name
        codes = recovery.new_codes()  # shown this once; only their hashes are kept
        await self.server.run_db(functools.partial(_keep_codes, identity_id=row.id, codes=codes))
        response = JSONResponse({**me_body(row), "recovery_codes": codes})
        await self.new_session(response, request, row.id, hashed)
        return response

    async def login(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config) or self.too_many(
            self.limits.logins_by_address,
            client_address(request),
            "too many login attempts from this address",
        )
        if refused is not None:
            return refused
        try:
            data = self.fields(await self.json_body(request), {"username", "password"})
            name = ident.username(data.get("username"))
            pw = ident.password(data.get("password"))
        except InputError:
            return self.bad("wrong username or password", 401, "login_failed")
        waiting = await self.take_login_attempt(name, client_address(request))
        if waiting is not None:
            return waiting
        account = await self.server.run_db(lambda s: s.identity_by_username(name))
        ok, rehash = await asyncio.to_thread(
            ident.verify_password, account.password_hash if account else None, pw
        )
        if account is None or not ok:
            # For the operator: who was tried from where (never the password or a session id).
            # An unknown username is not written: it may be a password typed in the wrong field.
            log.warning(
                "failed login for %s from %s",
                repr(name) if account else "an unknown username",
                client_address(request),
            )
            # One answer whether the username exists or not (no enumeration of accounts).
            return self.bad("wrong username or password", 401, "login_failed")
        keys = logins.account_key(name), logins.address_key(client_address(request))
        await self.server.run_db(lambda s: logins.succeeded(s.engine, *keys))
        if rehash is not None:
            await self.server.run_db(lambda s: s.set_password_hash(account.id, rehash))
        current, hashed = await self.who(request)
        if current is not None and current.id != account.id and not current.is_account:
            guest_id = current.id
            await self.server.run_db(lambda s: s.merge_guest(guest_id, account.id))
        response = JSONResponse(me_body(account))
        # A new session id at login: a session id planted before it (fixation) signs nobody in.
        await self.new_session(response, request, account.id, hashed)
        return response

    async def logout(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, hashed = await self.who(request)
        if hashed is not None and row is not None:
            identity_id = row.id
            await self.server.run_db(lambda s: logins.end_session(s.engine, hashed, identity_id))
            # A socket opened with this session acts no more, here at once, on the other server
            # processes at their next watch tick (web/signouts.py).
            await self.server.close_signed_out([identity_id])
        elif hashed is not None:
            await self.server.run_db(lambda s: s.end_session(hashed))
        response = JSONResponse(me_body(None))
        response.delete_cookie(SESSION_COOKIE)
        return response

    async def delete_account(self, request: Request) -> Response:
        """Delete the identity and what is personal (names, username, password hash, sessions);
        its games stay, their seats anonymised.  An account confirms with its password."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: nothing to delete", 401, "no_identity")
        try:
            data = self.fields(await self.json_body(request), {"password"})
        except InputError as exc:
            return self.bad(str(exc))
        if row.is_account:
            waiting = await self.take_login_attempt(row.username or "", client_address(request))
            if waiting is not None:
                return waiting
            pw = data.get("password")
            ok, _rehash = await asyncio.to_thread(
                ident.verify_password, row.password_hash, pw if isinstance(pw, str) else ""
            )
            if not ok:
                return self.bad("wrong password", 401, "login_failed")
        await self.server.run_db(lambda s: s.delete_identity(row.id, ANONYMOUS_NAME))
        for live in self.server.table.games.values():  # games in memory forget the owner too
            for seat in live.seats:
                if seat.owner == row.id:
                    seat.owner, seat.token_hash, seat.name = None, None, ANONYMOUS_NAME
        response = JSONResponse({"deleted": True})
        response.delete_cookie(SESSION_COOKIE)
        return response

    async def leaderboard(self, request: Request) -> Response:
        fmt = request.query_params.get("format", "draft")
        if fmt not in RATED_FORMATS:
            return self.bad(f"'format' must be one of {', '.join(RATED_FORMATS)}")
        include = request.query_params.get("include", "")
        if include not in ("", "provisional"):
            return self.bad("'include' may only be 'provisional'")
        which = request.query_params.get("list", "people")
        if which not in ("people", "bots"):
            return self.bad("'list' must be 'people' or 'bots'")
        players = await self.server.run_db(
            lambda s: s.leaderboard(fmt, provisional=include == "provisional", of_bots=which == "bots")
        )
        body: dict[str, Any] = {
            "format": fmt,
            "list": which,
            "min_games": LEADERBOARD_GAMES,
            "players": players,
        }
        row, _hashed = await self.who(request)
        if row is not None:  # the reader's own standing, listed or not, and what it takes to appear
            identity_id = row.id
            body["me"] = await self.server.run_db(lambda s: standing(s.engine, identity_id, fmt))
            body["min_opponents"] = body["me"]["min_opponents"]
        return JSONResponse(body)

    async def player(self, request: Request) -> Response:
        handle = request.path_params["handle"]
        if not HANDLE.fullmatch(handle):
            return self.bad("no such player", 404, "no_player")
        row = await self.server.run_db(lambda s: s.identity_by_handle(handle))
        if row is None:
            now = await self.server.run_db(lambda s: handles.current_handle(s.engine, handle))
            if now is not None:  # a handle given up for a chosen one: its address leads there
                return RedirectResponse(f"/api/players/{now}", status_code=301)
            return self.bad("no such player", 404, "no_player")
        body = await self.server.run_db(lambda s: player_body(s, row))
        return JSONResponse(body)

    async def my_campaign(self, request: Request) -> Response:
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        identity_id = row.id
        levels = await self.server.run_db(lambda s: s.campaign_of_identity(identity_id))
        return JSONResponse(campaign_json(levels))

    async def player_campaign(self, request: Request) -> Response:
        handle = request.path_params["handle"]
        if not HANDLE.fullmatch(handle):
            return self.bad("no such player", 404, "no_player")
        levels = await self.server.run_db(lambda s: s.campaign_of(handle))
        if levels is None:
            return self.bad("no such player", 404, "no_player")
        return JSONResponse(campaign_json(levels))

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/leaderboard", self.leaderboard),
            Route("/api/players/{handle}", self.player),
            Route("/api/me", self.me),
            Route("/api/me", self.set_me, methods=["POST"]),
            Route("/api/me/handle", self.set_handle, methods=["POST"]),
            Route("/api/identities", self.new_identity, methods=["POST"]),
            Route("/api/account/register", self.register, methods=["POST"]),
            Route("/api/account/login", self.login, methods=["POST"]),
            Route("/api/account/logout", self.logout, methods=["POST"]),
            Route("/api/account/delete", self.delete_account, methods=["POST"]),
            Route("/api/campaign", self.my_campaign),
            Route("/api/players/{handle}/campaign", self.player_campaign),
        ]


def _keep_codes(store: Store, *, identity_id: str, codes: list[str]) -> None:
    with store.engine.begin() as conn:
        recovery.replace_codes(conn, identity_id, codes)
