"""A clean first visit: a favicon, no console error or failed request on any page, the Japanese web
font loaded on Japanese pages only, and the invite bar gone once the friend has joined."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest

from conftest import Client, ServerProcess

pytest.importorskip("playwright", reason="the web extra (with Playwright) is not installed")

FONT_FAMILY = "Clash Noto Sans JP"
FONT_STATUS = (
    "(family) => { const f = [...document.fonts].find((x) => x.family.replace(/\"/g, '') === family);"
    " return f ? f.status : 'absent'; }"
)


def watch_problems(page: Any) -> list[str]:
    """Console errors, uncaught exceptions and failed or 4xx/5xx requests of ``page``."""
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"exception: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    return problems


def finished_game(server: ServerProcess, moves: int = 0) -> str:
    """A solo game resigned after its player's first ``moves`` legal actions."""
    game = server.new_game(kind="solo")
    client = Client(server, game["id"], game["tokens"])
    for _ in range(moves):
        client.act(client.state["legal"][0])
    client.send({"type": "resign"})
    while client.state["result"] is None:
        client.wait_state()
    client.close()
    return str(game["id"])


def test_favicon_is_served_and_linked(server: ServerProcess) -> None:
    with urllib.request.urlopen(server.url + "/favicon.ico", timeout=30) as r:
        assert r.status == 200 and r.headers["Content-Type"] == "image/x-icon"
        assert r.read(4) == b"\x00\x00\x01\x00"  # an ICO header
    with urllib.request.urlopen(server.url + "/static/favicon.svg", timeout=30) as r:
        assert r.status == 200 and b"<svg" in r.read()
    with urllib.request.urlopen(server.url + "/", timeout=30) as r:
        html = r.read().decode()
    assert 'rel="icon" href="/favicon.ico"' in html and 'rel="icon" href="/static/favicon.svg"' in html


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_console_error_on_any_page(server: ServerProcess, browser: Any, lang: str) -> None:
    replay_id = finished_game(server)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(
        f"localStorage.setItem('clash.lang', '{lang}'); localStorage.setItem('clash.speed', 'off')"
    )
    page = context.new_page()
    problems = watch_problems(page)
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=new-solo]")
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action]")
    page.goto(server.url + f"/r/{replay_id}")
    page.wait_for_selector("[data-testid=replay-step]")
    # Leaving while the analysis request is still open would abort it (a failed request of the test's
    # making): wait until its answer has been drawn.
    page.wait_for_selector("[data-testid=analysis]:not([data-status=loading])")
    page.goto(server.url + "/rules")
    page.wait_for_selector(".rules dt")
    page.evaluate("document.fonts.ready")
    # The Japanese font is downloaded and used on Japanese pages, and never on the others.
    status = page.evaluate(FONT_STATUS, FONT_FAMILY)
    assert status == ("loaded" if lang == "ja" else "unloaded"), status
    assert not problems, problems
    context.close()


# Every element whose own text has a character outside ASCII, and the font families its style asks
# for: on a Japanese page each must name the shipped font, or its words fall back to whatever the
# system has (boxes, on a machine without a Japanese font).
OUTSIDE_THE_FONT = """(family) => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
    if (!/[^\\x00-\\x7f\\u00a0-\\u00ff\\u2010-\\u2027\\u2190-\\u21ff\\u2600-\\u27bf]/.test(own)) continue;
    const f = getComputedStyle(el).fontFamily;
    if (!f.includes(family)) out.push(`${el.tagName}.${el.className}: ${own.trim().slice(0, 30)} [${f}]`);
  }
  return out;
}"""


def test_japanese_words_are_drawn_in_the_shipped_font_everywhere(server: ServerProcess, browser: Any) -> None:
    replay_id = finished_game(server, moves=3)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(
        "localStorage.setItem('clash.lang', 'ja'); localStorage.setItem('clash.speed', 'off')"
    )
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=new-solo]")
    pages = {"lobby": page.evaluate(OUTSIDE_THE_FONT, FONT_FAMILY)}
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action]")
    pages["game"] = page.evaluate(OUTSIDE_THE_FONT, FONT_FAMILY)
    page.goto(server.url + f"/r/{replay_id}")
    page.wait_for_selector("[data-testid=replay-step]")
    page.click("[data-testid=replay-last]")
    page.wait_for_selector("[data-testid=analysis]:not([data-status=loading])")
    pages["replay"] = page.evaluate(OUTSIDE_THE_FONT, FONT_FAMILY)
    for path, ready in (("/rules", ".rules dt"), ("/tutorial", "[data-card]")):
        page.goto(server.url + path)
        page.wait_for_selector(ready)
        pages[path] = page.evaluate(OUTSIDE_THE_FONT, FONT_FAMILY)
    assert {name: found for name, found in pages.items() if found} == {}
    context.close()


def test_invite_bar_goes_once_the_friend_joined(server: ServerProcess, browser: Any) -> None:
    host_ctx = browser.new_context()
    guest_ctx = browser.new_context()
    host = host_ctx.new_page()
    host.goto(server.url + "/")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    link = invite.input_value()
    host.wait_for_timeout(300)  # the bar stays while nobody has opened the link
    assert invite.count() == 1
    guest = guest_ctx.new_page()
    guest.goto(link)
    guest.wait_for_selector("[data-testid=to-move]")
    invite.wait_for(state="detached")
    host.reload()  # and it does not come back with the page
    host.wait_for_selector("[data-testid=to-move]")
    assert host.locator("[data-testid=invite-link]").count() == 0
    host_ctx.close()
    guest_ctx.close()
