"""HTTP routes of puzzles (docs/web.md, "Puzzles"; docs/puzzles.md): a puzzle in the solver's view,
the daily one, the next one for a player, a move judged, a report kept.

A move's proof is CPU work: it runs in the worker pool's optional lane (web/workers.py), and each
identity has one move judged at a time and ``puzzle_moves_per_minute`` of them (web/limits.py).  A
refused request changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..errors import ClashError
from ..words.i18n import LANGUAGES
from . import puzzle_store
from .http_checks import cross_site_refusal
from .identity import InputError
from .protocol import AddressRateLimiter
from .puzzle_play import BookEntry, book, daily_id, judge, puzzle_json
from .routes_common import Limits, RouteGroup
from .server import GameServer
from .store import IdentityRow
from .workers import WorkBudgetError, WorkDropped


class PuzzleRoutes(RouteGroup):
    """``/api/puzzles…``."""

    def __init__(self, server: GameServer, limits: Limits) -> None:
        super().__init__(server, limits)
        per_minute = self.config.caps.puzzle_moves_per_minute
        self.moves = AddressRateLimiter(per_minute / 60.0, per_minute) if per_minute else None
        #: Identities one of whose moves is being judged (one at a time each).
        self.judging: set[str] = set()

    def _lang(self, request: Request) -> str:
        lang = request.query_params.get("lang", "en")
        return lang if lang in LANGUAGES else "en"

    async def _book(self) -> dict[str, BookEntry]:
        # Read once per process (about a second: each puzzle replayed for its themes), off the loop.
        return await asyncio.to_thread(book)

    async def _entry(self, request: Request) -> BookEntry | Response:
        entry = (await self._book()).get(request.path_params["puzzle_id"][:40])
        if entry is None:
            return self.bad("no such puzzle", 404, "no_puzzle")
        return entry

    async def _shown(self, entry: BookEntry, lang: str, extra: dict[str, Any] | None = None) -> Response:
        puzzle_id = entry.puzzle.id
        rating = await self.server.db.read(lambda s: puzzle_store.puzzle_rating(s.engine, puzzle_id))
        return JSONResponse({**puzzle_json(entry, lang), "rating": rating, **(extra or {})})

    async def listing(self, request: Request) -> Response:
        """``GET /api/puzzles[?theme=T]``: every puzzle's id, themes and rating."""
        theme = request.query_params.get("theme")
        mus = await self.server.db.read(lambda s: puzzle_store.puzzle_mus(s.engine))
        items = [
            {"id": pid, "themes": list(e.themes), "rating": puzzle_store.display(mus.get(pid, 25.0))}
            for pid, e in (await self._book()).items()
            if theme is None or theme in e.themes
        ]
        return JSONResponse({"puzzles": items})

    async def daily(self, request: Request) -> Response:
        """``GET /api/puzzles/daily``: the puzzle of the UTC date (the same for everyone that day)."""
        entries = await self._book()
        return await self._shown(entries[daily_id(self.config.clock())], self._lang(request), {"daily": True})

    async def one(self, request: Request) -> Response:
        entry = await self._entry(request)
        if isinstance(entry, Response):
            return entry
        return await self._shown(entry, self._lang(request))

    async def next_one(self, request: Request) -> Response:
        """``GET /api/puzzles/next[?theme=T]``: an untried puzzle whose rating is nearest the player's."""
        me, _hashed = await self.who(request)
        if me is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        theme = request.query_params.get("theme")
        mu, tried = await self.server.db.read(lambda s: puzzle_store.player_mu_and_tried(s.engine, me.id))
        mus = await self.server.db.read(lambda s: puzzle_store.puzzle_mus(s.engine))
        left = [
            (abs(mus.get(pid, 25.0) - mu), pid)
            for pid, e in (await self._book()).items()
            if pid not in tried and (theme is None or theme in e.themes)
        ]
        if not left:
            return self.bad("you have tried every puzzle of this theme", 404, "no_puzzle")
        return await self._shown((await self._book())[min(left)[1]], self._lang(request))

    async def me(self, request: Request) -> Response:
        """``GET /api/puzzles/me``: the player's puzzle rating."""
        me, _hashed = await self.who(request)
        if me is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        return JSONResponse(await self.server.db.read(lambda s: puzzle_store.player_rating(s.engine, me.id)))

    async def _asker_and_puzzle(self, request: Request) -> tuple[IdentityRow, BookEntry] | Response:
        """A same-site POST's identity and the puzzle its path names, or the answer that refuses it."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        me, _hashed = await self.who(request)
        if me is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        entry = await self._entry(request)
        if isinstance(entry, Response):
            return entry
        return me, entry

    def _move_refused(self, me: IdentityRow) -> Response | None:
        if me.id in self.judging:
            return self.bad("a move of yours is being judged; wait for its answer", 429, "busy")
        if self.moves is not None:
            every = self.config.caps.puzzle_moves_per_minute
            return self.too_many(self.moves, me.id, f"too many puzzle moves; at most {every:g} a minute")
        return None

    async def move(self, request: Request) -> Response:
        """``POST /api/puzzles/{id}/move`` ``{"actions": [...], "lang"}``: the attempt's moves so far,
        judged in the worker pool; a finished attempt (solved or failed) is kept and, the first of
        this identity and puzzle, moves the ratings."""
        asked = await self._asker_and_puzzle(request)
        if isinstance(asked, Response):
            return asked
        me, entry = asked
        try:
            data = self.fields(await self.json_body(request), {"actions", "lang"})
        except InputError as exc:
            return self.bad(str(exc))
        actions, lang = data.get("actions"), data.get("lang", "en")
        if not isinstance(actions, list) or lang not in LANGUAGES:
            return self.bad(f"the body is {{'actions': [...], 'lang': one of {', '.join(LANGUAGES)}}}")
        busy = self._move_refused(me)
        if busy is not None:
            return busy
        self.judging.add(me.id)
        try:
            answer = await self.server.pool.run_optional(
                judge, entry.puzzle.to_dict(), actions, lang, kind="puzzle"
            )
        except WorkBudgetError as exc:
            return self.bad(f"the move could not be judged: {exc}", 503, "busy")
        except WorkDropped:
            return self.bad("the move could not be judged now; try again", 503, "busy")
        except ClashError as exc:  # no move of this puzzle: nothing kept
            return self.bad(str(exc))
        finally:
            self.judging.discard(me.id)
        if answer["status"] != "playing":
            answer["rating"] = await self._finish(me.id, entry.puzzle.id, answer)
        return JSONResponse(answer)

    async def _finish(self, identity_id: str, puzzle_id: str, answer: dict[str, Any]) -> dict[str, Any]:
        now = self.config.clock()
        solved, moves = answer["status"] == "solved", int(answer["moves"])
        done: list[puzzle_store.Finished] = []
        await self.server.db.write(
            lambda _s, conn: done.append(
                puzzle_store.finish_attempt(conn, identity_id, puzzle_id, solved, moves, now)
            )
        )
        return done[0].to_json()

    async def report(self, request: Request) -> Response:
        """``POST /api/puzzles/{id}/report`` ``{"reason": "..."}``: kept for the operator, once per
        identity and puzzle (a second report changes nothing)."""
        asked = await self._asker_and_puzzle(request)
        if isinstance(asked, Response):
            return asked
        me, entry = asked
        try:
            data = self.fields(await self.json_body(request), {"reason"})
        except InputError as exc:
            return self.bad(str(exc))
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > puzzle_store.MAX_REASON:
            return self.bad(f"the reason is a text of 1 to {puzzle_store.MAX_REASON} characters")
        puzzle_id, now = entry.puzzle.id, self.config.clock()
        kept = await self.server.run_db(
            lambda s: puzzle_store.report(s.engine, puzzle_id, me.id, reason, now)
        )
        return JSONResponse({"reported": True, "new": kept})

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/puzzles", self.listing),
            Route("/api/puzzles/daily", self.daily),
            Route("/api/puzzles/next", self.next_one),
            Route("/api/puzzles/me", self.me),
            Route("/api/puzzles/{puzzle_id}", self.one),
            Route("/api/puzzles/{puzzle_id}/move", self.move, methods=["POST"]),
            Route("/api/puzzles/{puzzle_id}/report", self.report, methods=["POST"]),
        ]
