"""Screenshots of every page of the web app, for docs/images/ (and for a person to look at).

Starts ``clash serve`` on a free loopback port with a throw-away data directory, plays through the
pages in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright for Python, both of the
``dev`` extra's set-up) and writes, for each language and size::

    docs/images/web-<page>-<lang>-<phone|desktop>.png

pages: lobby, solo (a solo game under way), ai (a duel against the AI under way), friend (a friend
duel as its creator sees it, invite bar shown), replay (a finished solo game, midway), rules,
tutorial (its first step, a card chosen), leaderboard, account, tournament (a Swiss of five players
before its start, the reader joined), tournament-new (the form that creates one, filled in by an
account, the server's refusal of a 5-minute arena beside its field), puzzle (the daily puzzle) and
puzzle-failed (the daily puzzle after a wrong move: what followed and a winning line).
sizes: phone 390×844, desktop 1400×900 (the visible window, not the whole page).

    python tools/screenshots.py                    # English and Japanese into docs/images/
    python tools/screenshots.py --langs en,de,fr,ja --out /tmp/shots
    python tools/screenshots.py --langs de,ja --pages tournament   # only the tournament page

The PNGs are reduced to 256 colours when Pillow is installed, to keep the repository small.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1400, "height": 900}}


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """``clash serve --port 0`` and the address it prints once it listens."""
    env = {**os.environ, "CLASH_DATA_DIR": str(data_dir)}
    cmd = [sys.executable, "-m", "clashofdecks", "serve", "--port", "0", "--create-rate", "1000"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "running at " not in line:
        proc.kill()
        raise SystemExit(f"clash serve did not start: {line!r}")
    return proc, line.split("running at ", 1)[1].split()[0].rstrip("/")


def index_of(page: Any) -> int:
    value = page.get_attribute("#game", "data-index")
    return int(value) if value is not None else -1


def play(page: Any, rng: random.Random, *, until_cards: int | None, limit: int = 2000) -> None:
    """Click random legal actions until the board shows ``until_cards`` creatures, or to the end."""
    for _ in range(limit):
        if page.locator("[data-testid=game-over]").count():
            return
        if until_cards is not None and page.locator(".lane .card").count() >= until_cards:
            return
        buttons = page.locator("[data-action]")
        if buttons.count() == 0:  # the AI or the automaton is thinking
            page.wait_for_timeout(100)
            continue
        before = index_of(page)
        buttons.nth(rng.randrange(buttons.count())).click()
        page.wait_for_function(
            "(b) => document.querySelector('[data-testid=game-over]') || "
            "Number(document.querySelector('#game')?.dataset.index) !== b",
            arg=before,
            timeout=60000,
        )
    raise SystemExit("the game did not get where the screenshot needs it")


def shoot(page: Any, out: Path, name: str, lang: str) -> None:
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)  # layout after the resize
        path = out / f"web-{name}-{lang}-{size}.png"
        page.screenshot(path=str(path))
        shrink(path)
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    page.set_viewport_size(SIZES["desktop"])


def shrink(path: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def shoot_language(browser: Any, url: str, lang: str, out: Path, seed: int) -> None:
    rng = random.Random(seed)
    context = browser.new_context(viewport=SIZES["desktop"])
    context.add_init_script(
        f"localStorage.setItem('clash.lang', '{lang}'); localStorage.setItem('clash.speed', 'off')"
    )
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(url + "/")
    page.wait_for_selector("[data-testid=new-solo]")
    page.evaluate("document.fonts.ready")
    shoot(page, out, "lobby", lang)

    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action]")
    play(page, rng, until_cards=3)
    shoot(page, out, "solo", lang)
    play(page, rng, until_cards=None)  # to the end: its replay is the replay page
    page.click("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-step]")
    page.click("[data-testid=replay-first]")  # it opens at the end; midway shows more
    forward = page.locator("[data-testid=replay-next]")
    for _ in range(40):
        if forward.is_disabled():
            break
        forward.click()
    shoot(page, out, "replay", lang)

    page.goto(url + "/")
    page.click("[data-testid=new-duel-ai]")
    page.wait_for_selector("[data-testid=to-move]")
    play(page, rng, until_cards=3)
    shoot(page, out, "ai", lang)

    page.goto(url + "/")
    page.click("[data-testid=new-duel-friend]")
    page.wait_for_selector("[data-testid=invite-link]")
    shoot(page, out, "friend", lang)

    page.goto(url + "/rules")
    page.wait_for_selector("[data-testid=rules] dt")
    shoot(page, out, "rules", lang)

    page.goto(url + "/tutorial")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    page.locator("[data-testid=my-hand] [data-select]").first.click()  # the step's card, chosen
    shoot(page, out, "tutorial", lang)

    page.goto(url + "/leaderboard")
    page.wait_for_selector("[data-testid=leaderboard], [data-testid=leaderboard-empty]")
    shoot(page, out, "leaderboard", lang)

    page.goto(url + "/account")
    page.wait_for_selector("[data-testid=display-name]")
    shoot(page, out, "account", lang)
    context.close()


def _post(
    url: str, path: str, body: dict[str, Any], session: str | None = None
) -> tuple[dict[str, Any], str]:
    """A JSON POST: its answer, and the session cookie it set (if any)."""
    headers = {
        "Content-Type": "application/json",
        **({"Authorization": f"Bearer {session}"} if session else {}),
    }
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        cookie = (r.headers.get("Set-Cookie") or "").split(";")[0].split("=", 1)[-1]
        return json.loads(r.read()), cookie


def shoot_tournament(browser: Any, url: str, lang: str, out: Path) -> None:
    """A Swiss made by an account, five named players in it, then the reader joined."""
    guest = _post(url, "/api/identities", {"bearer": True})[0]["session"]
    username = f"organiser{lang}{random.randrange(10**6)}"
    _post(url, "/api/account/register", {"username": username, "password": "correct horse"}, guest)
    session = _post(url, "/api/account/login", {"username": username, "password": "correct horse"})[1]
    body = {"name": "Clash Open", "kind": "swiss", "rounds": 5, "starts_in": 900, "time_control": "5+3"}
    tid = _post(url, "/api/tournaments", body, session)[0]["id"]
    for name in ("Ada", "Björn", "Chiyo", "Dmitri", "Eun-ji"):
        player = _post(url, "/api/identities", {"bearer": True, "display_name": name})[0]["session"]
        _post(url, f"/api/tournaments/{tid}/join", {}, player)
    context = browser.new_context(viewport=SIZES["desktop"])
    context.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
    page = context.new_page()
    page.goto(url + f"/t/{tid}")
    page.click("[data-testid=t-join]")
    page.wait_for_selector("[data-testid=t-withdraw]")
    page.evaluate("document.fonts.ready")
    shoot(page, out, "tournament", lang)
    context.close()
    shoot_tournament_form(browser, url, lang, out, session)


def shoot_tournament_form(browser: Any, url: str, lang: str, out: Path, session: str) -> None:
    """/t/new as an account fills it in, refused: an arena of 5 minutes (its limits are 10–360)."""
    context = browser.new_context(viewport=SIZES["desktop"])
    context.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
    context.add_cookies([{"name": "clash_session", "value": session, "url": url, "httpOnly": True}])
    page = context.new_page()
    page.goto(url + "/t/new")
    page.fill("#tf-name", "Clash Open")
    page.fill("#tf-minutes", "5")
    page.click("[data-testid=tf-submit]")
    page.wait_for_selector("[data-testid=tf-error]")
    page.evaluate("document.fonts.ready")
    shoot(page, out, "tournament-new", lang)
    context.close()


def shoot_puzzle(browser: Any, url: str, lang: str, out: Path) -> None:
    """The daily puzzle from the top of its page, then after a wrong move (``end`` never wins one)."""
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, has_touch=size == "phone")
        context.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
        page = context.new_page()
        page.goto(url + "/puzzle/daily")
        page.wait_for_selector("[data-testid=my-hand] [data-select]")
        page.evaluate("document.fonts.ready")
        page.screenshot(path=str(out / f"web-puzzle-{lang}-{size}.png"))
        shrink(out / f"web-puzzle-{lang}-{size}.png")
        page.click("[data-testid=end]")
        page.wait_for_selector("[data-testid=puzzle-failed]")
        page.locator("[data-testid=puzzle-answer]").scroll_into_view_if_needed()
        page.screenshot(path=str(out / f"web-puzzle-failed-{lang}-{size}.png"))
        shrink(out / f"web-puzzle-failed-{lang}-{size}.png")
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--langs", default="en,ja", help="comma-separated: en, de, fr, ja")
    parser.add_argument("--seed", type=int, default=1, help="the random clicks' seed")
    parser.add_argument(
        "--pages", default="all", choices=("all", "tournament", "puzzle"), help="every page, or one kind"
    )
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clash-shots-") as data:
        proc, url = start_server(Path(data))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
                for lang in args.langs.split(","):
                    if args.pages == "all":
                        shoot_language(browser, url, lang.strip(), args.out, args.seed)
                    if args.pages in ("all", "tournament"):
                        shoot_tournament(browser, url, lang.strip(), args.out)
                    if args.pages in ("all", "puzzle"):
                        shoot_puzzle(browser, url, lang.strip(), args.out)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
