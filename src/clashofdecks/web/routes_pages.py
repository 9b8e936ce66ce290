"""HTTP routes of the page itself and what it reads once: the HTML, the card catalogue, the words, the
rules, the tutorial, the icon and the static files."""

from __future__ import annotations

import json
import mimetypes
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import ClashError
from ..words.i18n import LANGUAGES
from .games import card_catalogue
from .http_checks import CSP, MAX_TUTORIAL_BYTES, index_html, read_body, tutorial_request
from .routes_common import RouteGroup
from .tutorial import try_step, tutorial_json

# The page's scripts are ES modules, which a browser runs only when they are served with a JavaScript
# type; the machine's own table may say otherwise (a Windows registry may map .js to text/plain).
mimetypes.add_type("text/javascript", ".js")


class PageRoutes(RouteGroup):
    """The page and its static data."""

    async def page(self, request: Request) -> Response:
        return HTMLResponse(
            index_html(), headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"}
        )

    async def player_page(self, request: Request) -> Response:
        """A player's page; the address of a handle its account gave up redirects to the new one."""
        from . import handles

        handle = request.path_params["handle"]
        if len(handle) <= 40:
            now = await self.server.run_db(lambda s: handles.current_handle(s.engine, handle))
            if now is not None:
                return RedirectResponse(f"/p/{now}", status_code=301)
        return await self.page(request)

    async def cards(self, request: Request) -> Response:
        return JSONResponse(card_catalogue(), headers={"Cache-Control": "max-age=3600"})

    async def words(self, request: Request) -> Response:
        """The page's words in one language (the catalog's ``web.`` messages), English under them for
        any key the language lacks, and the languages to offer."""
        from ..words.glossary import grammar
        from ..words.i18n import language_name, languages, web_words

        lang = request.query_params.get("lang", "en")
        if lang not in languages():
            lang = "en"
        body = {
            "lang": lang,
            "languages": [{"code": code, "name": language_name(code)} for code in languages()],
            "words": web_words(lang),
            "fallback": web_words("en") if lang != "en" else {},
            "grammar": grammar(lang),
        }
        return JSONResponse(body, headers={"Cache-Control": "max-age=3600"})

    async def rules(self, request: Request) -> Response:
        from ..words.i18n import ability_help, ability_keys, languages, rules_summary

        lang = request.query_params.get("lang", "en")
        if lang not in languages():
            lang = "en"
        body = {
            "lang": lang,
            "summary": list(rules_summary(lang)),
            "abilities": {a: ability_help(lang, a) for a in ability_keys()},
        }
        return JSONResponse(body, headers={"Cache-Control": "max-age=3600"})

    async def tutorial(self, request: Request) -> Response:
        lang = request.query_params.get("lang", "en")
        if lang not in LANGUAGES:
            return JSONResponse({"error": f"lang must be one of {', '.join(LANGUAGES)}"}, status_code=400)
        return JSONResponse(tutorial_json(lang), headers={"Cache-Control": "max-age=3600"})

    async def tutorial_step(self, request: Request) -> Response:
        """One click of the tutorial: stateless (the step's position is loaded afresh), nothing stored."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse(
                {"error": "send the step as JSON (Content-Type: application/json)"}, status_code=415
            )
        raw = await read_body(request, MAX_TUTORIAL_BYTES)
        if raw is None:
            return JSONResponse(
                {"error": f"a tutorial step is at most {MAX_TUTORIAL_BYTES} bytes"}, status_code=413
            )
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):  # ValueError: bad JSON or UTF-8, a 5,000-digit number
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        try:
            index, action, lang = tutorial_request(data)
            return JSONResponse(try_step(index, action, lang))
        except ClashError as exc:  # a bad request, or action text that names no action
            return JSONResponse({"error": str(exc)}, status_code=400)

    async def not_found(self, request: Request, exc: Exception) -> Response:
        """An unknown address: the page itself with status 404 (its script shows a styled "not found"
        in the reader's language, with the way back); under ``/api/`` and ``/static/`` a plain answer."""
        path = request.url.path
        if path.startswith(("/api/", "/static/", "/ws", "/metrics")):
            return JSONResponse({"error": "not found", "code": "not_found"}, status_code=404)
        return HTMLResponse(
            index_html(),
            status_code=404,
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"},
        )

    async def favicon(self, request: Request) -> Response:
        # Browsers ask /favicon.ico of every site; without it each page logs a 404 in the console.
        icon = resources.files("clashofdecks.web").joinpath("static/favicon.ico").read_bytes()
        return Response(icon, media_type="image/x-icon", headers={"Cache-Control": "max-age=86400"})

    def routes(self) -> list[BaseRoute]:
        # Paths the page itself answers (its script shows the right view).
        pages = [
            "/",
            "/g/{game_id}",
            "/r/{game_id}",
            "/rules",
            "/tutorial",
            "/account",
            "/leaderboard",
            "/t/{tournament_id}",
            "/puzzle/{puzzle_id}",
        ]
        return [
            *(Route(path, self.page) for path in pages),
            Route("/p/{handle}", self.player_page),
            Route("/favicon.ico", self.favicon),
            Route("/api/cards", self.cards),
            Route("/api/rules", self.rules),
            Route("/api/tutorial", self.tutorial),
            Route("/api/tutorial/step", self.tutorial_step, methods=["POST"]),
            Route("/api/i18n", self.words),
            Mount("/static", app=StaticFiles(packages=[("clashofdecks.web", "static")]), name="static"),
        ]
