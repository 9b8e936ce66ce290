"""What an HTTP request must be, checked before a route does anything: the Origin (no page of another
site drives a player's seat), JSON bodies of bounded size, the session cookie or bearer header, the
options of a new game and of a tutorial step; and the page itself."""

from __future__ import annotations

import logging
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..options import LEVELS
from ..words.i18n import LANGUAGES
from .clocks import TIME_CONTROLS
from .config import ServerConfig
from .games import GameSetupError, NewGame
from .identity import SESSION_COOKIE
from .names import NameRefused, optional_name
from .protocol import MAX_NAME_CHARS
from .ratings import RATED_FORMATS
from .tutorial import TutorialError, tutorial_steps

log = logging.getLogger("clashofdecks.web")
#: How long the session cookie lives in the browser (the session itself lasts until logout).
SESSION_MAX_AGE = 400 * 86400


def index_html() -> str:
    return resources.files("clashofdecks.web").joinpath("static/index.html").read_text(encoding="utf-8")


def origin_allowed(origin: str | None, host: str | None, config: ServerConfig) -> bool:
    """Browsers send Origin; a page of another site must not drive a player's seat (CSWSH).
    Clients without an Origin (bots, tests) are not browsers and are let through."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if host and parts.netloc == host:
        return True
    allowed = list(config.extra_origins)
    if config.public_url:
        pub = urlsplit(config.public_url)
        allowed.append(f"{pub.scheme}://{pub.netloc}")
    return origin.rstrip("/") in {a.rstrip("/") for a in allowed}


def session_id_of(headers: Any, cookies: dict[str, str]) -> str | None:
    """The session id a request carries: ``Authorization: Bearer <id>`` (bots, scripts) or the
    ``clash_session`` cookie (browsers)."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return cookies.get(SESSION_COOKIE) or None


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def cross_site_refusal(request: Request, config: ServerConfig) -> Response | None:
    """State-changing requests are JSON only (415 otherwise: an HTML form or a ``text/plain``
    fetch of another site cannot send JSON without a CORS preflight, which this server never
    grants), and their Origin, when present, must be this site's (403).  A request without an
    Origin is a non-browser client: browsers send Origin on every POST."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    origin = request.headers.get("origin")
    if media != "application/json" or not origin_allowed(origin, request.headers.get("host"), config):
        log.warning(
            "refused POST %s (content type %r, origin %r)", request.url.path, media[:60], (origin or "")[:100]
        )
    if media != "application/json":
        return JSONResponse(
            {"error": "send the request as application/json", "code": "unsupported_media_type"},
            status_code=415,
        )
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host"), config):
        return JSONResponse(
            {"error": "requests from other sites are refused", "code": "bad_origin"}, status_code=403
        )
    return None


def set_session_cookie(response: Response, session_id: str, request: Request, config: ServerConfig) -> None:
    secure = request.url.scheme == "https" or (config.public_url or "").startswith("https:")
    response.set_cookie(
        SESSION_COOKIE, session_id, max_age=SESSION_MAX_AGE, httponly=True, samesite="lax", secure=secure
    )


def base_url(request: Request, config: ServerConfig) -> str:
    if config.public_url:
        return config.public_url.rstrip("/")
    return str(request.base_url).rstrip("/")


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
)


MAX_OPTIONS_BYTES = 16 * 1024
MAX_RECORD_BYTES = 1 << 20
MAX_TUTORIAL_BYTES = 1024
MAX_TUTORIAL_ACTION_CHARS = 100


async def read_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it passes ``limit`` bytes (read no further: a huge upload
    costs the server nothing but the refusal)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def new_game_request(data: Any) -> NewGame:
    if not isinstance(data, dict):
        raise GameSetupError("the request must be a JSON object")
    allowed = {
        "kind",
        "format",
        "deck",
        "level",
        "threat",
        "ai",
        "name",
        "name2",
        "lang",
        "rated",
        "hints",
        "time_control",
    }
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise GameSetupError(f"unknown option {unknown[0]!r}")
    req = NewGame()
    for key in ("kind", "format", "ai", "name", "name2", "lang"):
        if key in data:
            if not isinstance(data[key], str) or len(data[key]) > MAX_NAME_CHARS:
                raise GameSetupError(f"{key!r} must be a short text")
            setattr(req, key, data[key])
    for key in ("name", "name2"):  # the rule of every name (web/names.py)
        try:
            setattr(req, key, optional_name(getattr(req, key), repr(key)))
        except NameRefused as exc:
            raise GameSetupError(str(exc)) from None
    if "deck" in data and data["deck"] is not None:
        if type(data["deck"]) is not int:
            raise GameSetupError("'deck' must be 1-4")
        req.deck = data["deck"]
    if "level" in data:
        if type(data["level"]) is not int or data["level"] not in LEVELS:
            raise GameSetupError(f"'level' must be one of {sorted(LEVELS)}")
        req.level = data["level"]
    if "time_control" in data and data["time_control"] is not None:
        if not isinstance(data["time_control"], str):
            raise GameSetupError(f"'time_control' must be one of none, {', '.join(TIME_CONTROLS)}")
        req.time_control = data["time_control"]
    if "threat" in data and data["threat"] is not None:
        if not isinstance(data["threat"], dict):
            raise GameSetupError("'threat' must be an object of threat options")
        req.threat = data["threat"]
    if "hints" in data:
        if type(data["hints"]) is not bool:
            raise GameSetupError("'hints' must be true or false")
        if data["hints"] and (req.kind != "friend" or data.get("rated")):
            raise GameSetupError("hints are offered only in an unrated friend duel")
        req.hints = data["hints"]
    if "rated" in data:
        if type(data["rated"]) is not bool:
            raise GameSetupError("'rated' must be true or false")
        if data["rated"] and (req.kind != "friend" or req.format not in RATED_FORMATS):
            raise GameSetupError("only a friend duel in draft or precon can be rated")
        req.rated = data["rated"]
    from ..words.i18n import languages

    if req.lang not in languages():
        raise GameSetupError(f"'lang' must be one of {', '.join(languages())}")
    return req


def tutorial_request(data: Any) -> tuple[int, str, str]:
    """``{"step": index, "action": text, "lang": "en"}`` checked: the step index, the action, the language."""
    if not isinstance(data, dict):
        raise TutorialError("the request must be a JSON object")
    unknown = sorted(set(data) - {"step", "action", "lang"})
    if unknown:
        raise TutorialError(f"unknown field {unknown[0]!r} (step, action, lang)")
    n = len(tutorial_steps())
    step = data.get("step")
    if type(step) is not int or not 0 <= step < n:
        raise TutorialError(f"'step' must be a step number from 0 to {n - 1}")
    action = data.get("action")
    if not isinstance(action, str) or not action.strip() or len(action) > MAX_TUTORIAL_ACTION_CHARS:
        raise TutorialError(
            f"'action' must be an action in text notation (at most {MAX_TUTORIAL_ACTION_CHARS} characters)"
        )
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
        raise TutorialError(f"'lang' must be one of {', '.join(LANGUAGES)}")
    return step, action, lang
