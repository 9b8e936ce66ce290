"""Direct play in a real Chromium: whole games played only through the page's card hooks
(``data-select`` on what can be chosen, ``data-drop`` on where it goes, the ``next`` and ``end``
phase buttons) — never the move list's ``data-action`` buttons; a game with the keyboard alone; the
card help (tap, long press, keyboard focus) in every language; the phone layout; axe-core on every
page in all four languages."""

from __future__ import annotations

import random
from typing import Any

import pytest

from conftest import ServerProcess
from notation_grammar import notation_on_screen

pytest.importorskip("playwright", reason="the web extra (with Playwright) is not installed")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
LANGS = ("en", "de", "fr", "ja")
GAME_OVER = "[data-testid=game-over]"
# Everything direct play may touch; a click outside these is not direct play.
PHASE = "[data-testid=next], [data-testid=end]"
HELP_COST = {"en": "Cost", "de": "Kosten", "fr": "Coût", "ja": "コスト"}


def new_context(browser: Any, lang: str = "en", **options: Any) -> Any:
    context = browser.new_context(locale=lang, **options)
    context.add_init_script(
        f"localStorage.setItem('clash.speed', 'off'); localStorage.setItem('clash.lang', '{lang}')"
    )
    return context


def index_of(page: Any) -> int:
    value = page.get_attribute("#game", "data-index")
    return int(value) if value is not None else -1


def wait_redrawn(page: Any, handle: Any) -> None:
    """The element clicked has been replaced: its choice was drawn or the server's answer came."""
    page.wait_for_function(
        "(e) => !e.isConnected || document.querySelector('[data-testid=game-over]')",
        arg=handle,
        timeout=30000,
    )


def direct_step(page: Any, rng: random.Random) -> str | None:
    """One click of direct play on this page; returns what was clicked, None when nothing is to do.
    The direct-play hooks must never carry the move list's ``data-action``, except the custom
    build's button (whose ``data-action`` is docs/web.md's older hook for the same button)."""
    if page.locator(GAME_OVER).count():
        return None
    drops = page.locator("[data-drop]")
    selects = page.locator("[data-select]:not([aria-pressed=true])")
    phase = page.locator(PHASE)
    choices: list[tuple[str, Any]] = []
    if drops.count():
        choices = [("drop", drops.nth(rng.randrange(drops.count())))]
    else:
        if selects.count():
            choices.append(("select", selects.nth(rng.randrange(selects.count()))))
        if phase.count():
            # Prefer attacking and playing over ending, so games are whole games, not passes.
            choices.append(("phase", phase.first if rng.random() < 0.8 else phase.last))
    if not choices:
        return None
    kind, element = choices[0] if len(choices) == 1 or rng.random() < 0.85 else choices[1]
    if kind != "drop" or element.get_attribute("data-drop") != "build":
        assert element.get_attribute("data-action") is None
    # The page may redraw between the count above and this pick (a frame of the automaton or the
    # other seat arrived): then the chosen element is gone, and the caller simply looks again.
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        handle = element.element_handle(timeout=5000)
    except PlaywrightTimeout:
        return None
    element.click()
    wait_redrawn(page, handle)
    return kind


def play_directly(pages: list[Any], rng: random.Random, limit: int = 3000) -> dict[str, int]:
    """Plays until every page shows the game over, only by direct play; counts the clicks by kind.
    Every tenth step, and at the end, no button, move-list entry, prompt or log line may show
    notation (issue 22, item 1)."""
    counts = {"drop": 0, "select": 0, "phase": 0}
    for step in range(limit):
        if step % 10 == 0 or all(p.locator(GAME_OVER).count() for p in pages):
            for p in pages:
                assert not notation_on_screen(p), notation_on_screen(p)
        if all(p.locator(GAME_OVER).count() for p in pages):
            return counts
        acted = False
        for p in pages:
            kind = direct_step(p, rng)
            if kind:
                counts[kind] += 1
                acted = True
        if not acted:
            pages[0].wait_for_timeout(50)  # the AI, the automaton or the other seat is deciding
    raise AssertionError(f"no game over after {limit} steps: {counts}")


def start_solo(page: Any, server: ServerProcess, fmt: str = "draft") -> None:
    page.goto(server.url + "/")
    if fmt != "draft":
        page.select_option("#solo-format", fmt)
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-select], [data-testid=end]")


def test_a_whole_solo_game_by_direct_play(server: ServerProcess, browser: Any) -> None:
    context = new_context(browser, "en", viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    start_solo(page, server)
    # The draft: revealed cards carry data-select and one click picks.
    assert page.locator(".revealed [data-select]").count() >= 1
    counts = play_directly([page], random.Random(5))
    assert page.locator(GAME_OVER).get_attribute("data-winner") in ("0", "1")
    # Cards were played by a click on the card, then one on a lane or a target; phases by buttons.
    assert counts["drop"] >= 2 and counts["phase"] >= 3, counts
    assert page.locator(PHASE).count() == 0  # present only when legal
    assert not errors, errors
    context.close()


def test_a_whole_duel_between_two_browsers_by_direct_play(server: ServerProcess, browser: Any) -> None:
    host_ctx = new_context(browser, "de", viewport=DESKTOP)
    guest_ctx = new_context(browser, "de", viewport=PHONE, has_touch=True)
    host = host_ctx.new_page()
    host.goto(server.url + "/")
    host.select_option("#friend-format", "precon")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    guest = guest_ctx.new_page()
    guest.goto(invite.input_value())
    guest.wait_for_selector("[data-testid=to-move]")
    counts = play_directly([host, guest], random.Random(8))
    winners = {p.locator(GAME_OVER).get_attribute("data-winner") for p in (host, guest)}
    assert len(winners) == 1 and winners <= {"0", "1"}, winners
    assert counts["drop"] >= 4 and counts["phase"] >= 4, counts
    host_ctx.close()
    guest_ctx.close()


def test_the_custom_build_and_bans_by_direct_play(server: ServerProcess, browser: Any) -> None:
    """R2.5 between two browsers: ten clicks build a deck, a click on a card of the other deck bans
    it; then a few turns, each seat in another language."""
    host_ctx = new_context(browser, "fr", viewport=DESKTOP)
    guest_ctx = new_context(browser, "ja", viewport=PHONE)
    host = host_ctx.new_page()
    host.goto(server.url + "/")
    host.select_option("#friend-format", "custom")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    guest = guest_ctx.new_page()
    guest.goto(invite.input_value())
    rng = random.Random(3)
    built: set[int] = set()
    for _ in range(600):  # the seats build in the setup's order (R2.5), whichever comes first
        if len(built) == 2:
            break
        for n, p in enumerate((host, guest)):
            if n in built or not p.locator("[data-build-card][data-select]").count():
                continue
            while not p.locator("[data-drop=build]").count():
                p.locator("[data-build-card]:not([aria-pressed=true])").first.click()
            handle = p.locator("[data-drop=build]").element_handle()
            p.click("[data-drop=build]")
            wait_redrawn(p, handle)
            built.add(n)
        host.wait_for_timeout(50)
    assert built == {0, 1}
    for _ in range(200):  # the bans, then the first turns
        if min(index_of(p) for p in (host, guest)) >= 8:
            break
        if not any(direct_step(p, rng) for p in (host, guest)):
            host.wait_for_timeout(50)
    assert min(index_of(p) for p in (host, guest)) >= 8
    assert host.locator("[data-testid=board] .lanes").count() == 1
    host_ctx.close()
    guest_ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_direct_play_and_card_help_in_every_language(server: ServerProcess, browser: Any, lang: str) -> None:
    """The shorter path: a precon deck chosen by a click, the first turns played directly, and a
    card's help in the page's language (cost, attack/health, each ability with its rule number, the
    rule numbers shown as the setting asks)."""
    context = new_context(browser, lang, viewport=PHONE, has_touch=True)
    context.add_init_script("localStorage.setItem('clash.rules', 'on')")
    page = context.new_page()
    start_solo(page, server, "precon")
    page.wait_for_selector("[data-deck]")
    assert page.locator("[data-deck]").count() == 4
    handle = page.locator("[data-deck='4']").element_handle()
    page.click("[data-deck='4']")
    wait_redrawn(page, handle)
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    prompt = page.inner_text("[data-testid=prompt]")
    assert prompt and prompt != "prompt_summon"
    # A tap on a card that is not a choice now (the fortress) opens its help.
    page.tap("[data-testid=my-hand] [data-card=BASTION]")
    help_box = page.locator("[data-testid=card-help]")
    help_box.wait_for(state="visible")
    assert "R4.2" in help_box.inner_text()
    page.click("[data-testid=card-help-close]")
    assert help_box.is_hidden()
    # A long press on a playable hand card opens its help without selecting it.
    card = page.locator("[data-testid=my-hand] [data-card=MUTANT]")
    card.dispatch_event("pointerdown", {"clientX": 5, "clientY": 5, "pointerType": "touch"})
    help_box.wait_for(state="visible")
    card.dispatch_event("pointerup", {"pointerType": "touch"})
    card.dispatch_event("click")
    text = help_box.inner_text()
    for rule in ("R3.1", "R6.3", "R6.7", "R6.2"):  # cost; Rage, Sprint, Perforation
        assert rule in text, (rule, text)
    assert "2" in text and "4" in text
    assert page.locator("[data-testid=my-hand] [aria-pressed=true]").count() == 0
    # The accessible name says what the card is.
    assert page.get_attribute("[data-testid=my-hand] [data-card=MUTANT]", "aria-label").startswith(
        "Mutant, 5 "
    )
    assert HELP_COST[lang] in help_box.inner_text()  # in the page's language
    page.keyboard.press("Escape")
    assert help_box.is_hidden()
    # A second click on the selected card, or Esc, cancels the selection.
    hand_card = page.locator("[data-testid=my-hand] [data-select]").first
    value = hand_card.get_attribute("data-select")
    selected = f"[data-testid=my-hand] [data-select='{value}']"
    for cancel in ("click", "Escape"):
        page.click(selected)
        page.wait_for_selector("[data-drop]")
        assert page.get_attribute(selected, "aria-pressed") == "true"
        if cancel == "click":
            page.click(selected)
        else:
            page.keyboard.press("Escape")
        page.wait_for_selector("[data-drop]", state="detached")
        assert page.get_attribute(selected, "aria-pressed") == "false"
    rng = random.Random(11)
    for _ in range(60):
        if index_of(page) >= 6 or page.locator(GAME_OVER).count():
            break
        if not direct_step(page, rng):
            page.wait_for_timeout(50)
    assert index_of(page) >= 6 or page.locator(GAME_OVER).count()
    context.close()


def press_tab_to(page: Any, selector: str, limit: int = 400) -> None:
    """Tab until the focus is on an element matching ``selector`` (the keyboard alone)."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_with_the_keyboard_alone(server: ServerProcess, browser: Any) -> None:
    context = new_context(browser, "en", viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    press_tab_to(page, "[data-testid=new-solo]")  # the lobby's defaults: a draft against the automaton
    page.keyboard.press("Enter")
    page.wait_for_selector(".revealed [data-select]")
    rng = random.Random(7)
    # Keyboard focus on a card opens its help.
    press_tab_to(page, "[data-card]")
    page.wait_for_selector("[data-testid=card-help]:not([hidden])")
    for _ in range(3000):
        if page.locator(GAME_OVER).count():
            break
        drops = page.locator("[data-drop]")
        selects = page.locator("[data-select]:not([aria-pressed=true])")
        phase = page.locator(PHASE)
        if drops.count():
            target = f"[data-drop='{drops.nth(rng.randrange(drops.count())).get_attribute('data-drop')}']"
        elif selects.count() and (not phase.count() or rng.random() < 0.6):
            value = selects.nth(rng.randrange(selects.count())).get_attribute("data-select")
            target = f"[data-select='{value}']:not([aria-pressed=true])"
        elif phase.count():
            target = (
                "[data-testid=next]"
                if page.locator("[data-testid=next]").count() and rng.random() < 0.8
                else "[data-testid=end]"
            )
        else:
            page.wait_for_timeout(50)
            continue
        press_tab_to(page, target)
        handle = page.evaluate_handle("document.activeElement")
        page.keyboard.press("Enter")
        wait_redrawn(page, handle)
    assert page.locator(GAME_OVER).get_attribute("data-winner") in ("0", "1")
    context.close()


def test_the_phone_layout(server: ServerProcess, browser: Any) -> None:
    """At 390×844: no horizontal overflow, the status (whose turn, mana, prompt) stays on screen
    while scrolling, and the game-over box never covers the board."""
    context = new_context(browser, "en", viewport=PHONE, has_touch=True)
    page = context.new_page()
    start_solo(page, server, "precon")
    page.click("[data-deck='2']")
    page.wait_for_selector("[data-testid=mana]")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.mouse.wheel(0, 900)
    page.wait_for_function("() => window.scrollY > 100")
    box = page.locator(".status").bounding_box()
    assert box is not None and box["y"] >= -1 and box["y"] + box["height"] <= PHONE["height"]
    for part in ("[data-testid=to-move]", "[data-testid=mana]", "[data-testid=prompt]"):
        assert page.locator(part).is_visible()
    page.on("dialog", lambda d: d.accept())
    page.click("[data-testid=resign]")
    page.wait_for_selector(GAME_OVER)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    over = page.locator(GAME_OVER).bounding_box()
    board = page.locator("[data-testid=board]").bounding_box()
    assert over is not None and board is not None
    assert over["y"] + over["height"] <= board["y"]  # above the board, in the page's flow
    context.close()


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_axe_finds_nothing_serious(server: ServerProcess, browser: Any, lang: str) -> None:
    """The lobby, a solo game (draft, then the board with a card selected, then over), a duel seen
    by both browsers (desktop and phone) and the replay, in the page's language."""
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python (dev extra) is not installed")
    found: dict[str, list[str]] = {}
    context = new_context(browser, lang, viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=new-solo]")
    found["lobby"] = serious_violations(page)
    page.click("[data-testid=new-solo]")
    page.wait_for_selector(".revealed [data-select]")
    found["solo draft"] = serious_violations(page)
    rng = random.Random(1)
    for _ in range(100):
        if page.locator("[data-testid=my-hand] [data-select]").count():
            break
        if not direct_step(page, rng):
            page.wait_for_timeout(50)
    page.locator("[data-testid=my-hand] [data-select]").first.click()
    page.wait_for_selector("[data-drop]")
    found["solo board"] = serious_violations(page)
    page.locator("[data-testid=my-hand] [data-card=BASTION]").click()  # the card help open
    page.wait_for_selector("[data-testid=card-help]:not([hidden])")
    found["solo card help"] = serious_violations(page)
    page.on("dialog", lambda d: d.accept())
    page.click("[data-testid=resign]")
    page.wait_for_selector(GAME_OVER)
    found["solo over"] = serious_violations(page)
    page.click("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-step]")
    found["replay"] = serious_violations(page)
    # A duel: the host on a desktop, the guest on a phone.
    page.goto(server.url + "/")
    page.select_option("#friend-format", "precon")
    page.click("[data-testid=new-duel-friend]")
    invite = page.locator("[data-testid=invite-link]")
    invite.wait_for()
    guest_ctx = new_context(browser, lang, viewport=PHONE, has_touch=True)
    guest = guest_ctx.new_page()
    guest.goto(invite.input_value())
    guest.wait_for_selector("[data-testid=to-move]")
    for _ in range(100):  # both decks chosen, the first cards played
        if min(index_of(p) for p in (page, guest)) >= 4:
            break
        if not any(direct_step(p, rng) for p in (page, guest)):
            page.wait_for_timeout(50)
    found["duel host"] = serious_violations(page)
    found["duel guest (phone)"] = serious_violations(guest)
    assert {k: v for k, v in found.items() if v} == {}
    guest_ctx.close()
    context.close()


# The page's modules, imported as the page imported them (the same instances: the page's store).
ORDER_FRAME = """async () => {
  const { state } = await import('/static/store.js');
  const { render } = await import('/static/game.js');
  window.sent = [];
  state.ws.send = (text) => window.sent.push(JSON.parse(text));
  const f = JSON.parse(JSON.stringify(state.frame));
  f.view.pending = { player: 0, decision: "order", cards: ["BRUTE", "TROLL", "BARON"] };
  f.legal = ["order BRUTE TROLL BARON", "order BRUTE BARON TROLL", "order TROLL BRUTE BARON",
             "order TROLL BARON BRUTE", "order BARON BRUTE TROLL", "order BARON TROLL BRUTE"];
  state.frame = f;
  render();
}"""


def test_a_return_order_is_clicked_card_by_card(server: ServerProcess, browser: Any) -> None:
    """R3.9's order decision (rare in random games, so drawn here from a frame of a real game
    given a pending order, with the socket's send recorded): the destroyed cards are clicked in
    order and the action goes as soon as the clicks fit one legal order."""
    context = new_context(browser, "en", viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("#solo-format", "precon")
    page.select_option("#solo-deck", "1")
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    page.evaluate(ORDER_FRAME)
    assert page.locator("[data-testid=order] [data-select]").count() == 3
    assert page.locator("[data-testid=my-hand] [data-select]").count() == 0  # only the order now
    page.click("[data-testid=order] [data-select=TROLL]")
    assert page.evaluate("window.sent") == []
    assert page.locator("[data-testid=order] [data-select]").count() == 2
    page.click("[data-testid=order] [data-select=BARON]")
    assert page.evaluate("window.sent.map((m) => m.action)") == ["order TROLL BARON BRUTE"]
    context.close()
