"""The browser app in a real Chromium (Playwright, headless): whole games by clicking, a duel between
two browser contexts through the invite link, a replay stepped through, undo, the language switch,
and screenshots at phone and desktop sizes (kept in ``$CLASH_SCREENSHOT_DIR`` when set)."""

from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import ServerProcess, sign_in

pytest.importorskip("playwright", reason="the web extra (with Playwright) is not installed")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def shots_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CLASH_SCREENSHOT_DIR", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def fast_context(browser: Any, **options: Any) -> Any:
    """A browser context whose pages play event animations quickly (``clash.speed`` = fast)."""
    context = browser.new_context(**options)
    context.add_init_script("localStorage.setItem('clash.speed', 'fast')")
    return context


def index_of(page: Any) -> int:
    value = page.get_attribute("#game", "data-index")
    return int(value) if value is not None else -1


def wait_change(page: Any, before: int) -> None:
    page.wait_for_function(
        "(b) => document.querySelector('[data-testid=game-over]') || "
        "Number(document.querySelector('#game')?.dataset.index) !== b",
        arg=before,
        timeout=30000,
    )


def click_one_action(page: Any, rng: random.Random) -> bool:
    """One decision by clicking: sometimes a hand card then a lane or target, else a move-list item.
    Returns False when this page has no decision now."""
    buttons = page.locator("[data-action]")
    n = buttons.count()
    if n == 0:
        return False
    before = index_of(page)
    # Hand cards only: a revealed card, a deck or a card to ban (also data-select) acts at once.
    selectable = page.locator("[data-testid=my-hand] [data-select]")
    if selectable.count() and rng.random() < 0.5:
        selectable.nth(rng.randrange(selectable.count())).click()
        targets = page.locator(".lane.target, .card.target")
        if targets.count():
            targets.nth(rng.randrange(targets.count())).click()
            wait_change(page, before)
            return True
        page.keyboard.press("Escape")
    buttons.nth(rng.randrange(n)).click()
    wait_change(page, before)
    return True


def play_to_end(pages: list[Any], rng: random.Random, limit: int = 1500) -> None:
    for _ in range(limit):
        if all(p.locator("[data-testid=game-over]").count() for p in pages):
            return
        acted = False
        for p in pages:
            if p.locator("[data-testid=game-over]").count() == 0 and click_one_action(p, rng):
                acted = True
                break
        if not acted:
            pages[0].wait_for_timeout(100)
    raise AssertionError("the game did not end")


def test_solo_game_by_clicking_then_replay(server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    shots = shots_dir(tmp_path)
    context = fast_context(browser, viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.screenshot(path=str(shots / "lobby-desktop.png"))
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action]")
    page.screenshot(path=str(shots / "solo-setup-desktop.png"))
    rng = random.Random(2)
    shot_taken = False
    for _ in range(1500):
        if page.locator("[data-testid=game-over]").count():
            break
        if (
            not shot_taken
            and page.locator("[data-testid=board]").count()
            and page.locator(".lane .card").count() >= 3
        ):
            page.screenshot(path=str(shots / "solo-board-desktop.png"))
            page.set_viewport_size(PHONE)
            page.screenshot(path=str(shots / "solo-board-phone.png"), full_page=True)
            page.set_viewport_size(DESKTOP)
            shot_taken = True
        if not click_one_action(page, rng):
            page.wait_for_timeout(100)
    over = page.locator("[data-testid=game-over]")
    assert over.count() == 1
    assert over.get_attribute("data-winner") in ("0", "1")
    page.screenshot(path=str(shots / "solo-over-desktop.png"))
    # The replay, stepped through.
    page.click("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-step]")
    last = page.inner_text("[data-testid=replay-step]")
    page.click("[data-testid=replay-first]")
    first = page.inner_text("[data-testid=replay-step]")
    assert first != last
    assert page.inner_text("[data-testid=replay-action]") == "—"
    page.click("[data-testid=replay-next]")
    assert page.inner_text("[data-testid=replay-action]").split(": ")[1].startswith("Take ")  # a draft pick
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("[data-testid=replay-step]") == first
    page.set_viewport_size(PHONE)
    page.click("[data-testid=replay-last]")
    page.screenshot(path=str(shots / "replay-phone.png"), full_page=True)
    # A shared replay link opens at its step.
    url = page.url
    other = context.new_page()
    other.goto(url)
    other.wait_for_selector("[data-testid=replay-step]")
    assert other.inner_text("[data-testid=replay-step]") == page.inner_text("[data-testid=replay-step]")
    assert not errors, errors
    context.close()


def test_duel_between_two_browsers(server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    shots = shots_dir(tmp_path)
    host_ctx = fast_context(browser, viewport=DESKTOP)
    guest_ctx = fast_context(browser, viewport=PHONE)
    host = host_ctx.new_page()
    host.goto(server.url + "/")
    host.fill("[data-testid=name]", "Ada")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    link = invite.input_value()
    assert "/g/" in link and "#t=" in link
    guest = guest_ctx.new_page()
    guest.goto(link)
    guest.wait_for_selector("[data-testid=to-move]")
    assert "#t=" not in guest.url  # the token leaves the address bar
    play_to_end([host, guest], random.Random(4))
    winners = {p.locator("[data-testid=game-over]").get_attribute("data-winner") for p in (host, guest)}
    assert len(winners) == 1 and winners <= {"0", "1"}
    host.screenshot(path=str(shots / "duel-over-desktop.png"))
    guest.screenshot(path=str(shots / "duel-over-phone.png"), full_page=True)
    # A refreshed page resumes its seat (token kept by the page).
    guest.reload()
    guest.wait_for_selector("[data-testid=game-over]")
    host_ctx.close()
    guest_ctx.close()


def test_undo_and_keyboard(server: ServerProcess, browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("#solo-format", "precon")
    page.select_option("#solo-deck", "1")
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action^='play ']")
    assert page.locator("[data-testid=undo]").is_disabled()
    hand_before = page.inner_text("[data-testid=my-hand]")
    before = index_of(page)
    page.click("[data-action^='play ']")
    wait_change(page, before)
    assert page.locator("[data-testid=undo]").is_enabled()
    page.click("[data-testid=undo]")
    page.wait_for_function("(b) => Number(document.querySelector('#game').dataset.index) === b", arg=before)
    assert page.inner_text("[data-testid=my-hand]") == hand_before
    # Keyboard: a card with Enter, then its lane with Enter.
    page.focus("[data-select]")
    page.keyboard.press("Enter")
    page.locator(".lane.target, .card.target").first.focus()
    page.keyboard.press("Enter")
    wait_change(page, before)
    assert index_of(page) == before + 1
    context.close()


def test_language_switch(server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    page.goto(server.url + "/")
    assert "Solo against the automaton" in page.inner_text("main")
    page.select_option("[data-testid=lang]", "de")
    page.wait_for_selector("text=Solo gegen den Automaten")
    page.reload()
    page.wait_for_selector("text=Solo gegen den Automaten")  # the choice is kept
    page.click("[data-testid=rules-link]")
    page.wait_for_selector("[data-testid=rules]")
    assert "R3.2" in page.inner_text("[data-testid=rules]")
    assert page.locator("[data-testid=rules] dt").count() == 8  # the seven abilities and Aura
    assert "[object" not in page.inner_text("[data-testid=rules]")
    page.select_option("[data-testid=lang]", "ja")
    page.wait_for_selector("text=ルール概要")
    page.screenshot(path=str(shots_dir(tmp_path) / "rules-ja-phone.png"), full_page=True)
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_selector("text=Règles en bref")
    context.close()
    # A browser asking for French gets French first.
    fr = browser.new_context(locale="fr-FR").new_page()
    fr.goto(server.url + "/")
    fr.wait_for_selector("text=Solo contre l'automate")
    fr.context.close()


def test_a_game_started_while_the_lobby_reloads_stays_on_screen(server: ServerProcess, browser: Any) -> None:
    """A new language reloads the lobby; a Start clicked on the old lobby before the reload has its
    answer opens the game, and the late lobby does not cover it.  (It did: the player saw the lobby
    under the game's address, and the hint tests, which start a game right after choosing the
    language, waited for a hint button that never came.)  The reload's lobby request is held until
    the game is on screen, so the late answer comes every time."""
    context = fast_context(browser, viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=new-duel-ai]")
    held: list[Any] = []
    page.route("**/api/lobby", lambda route: held.append(route))
    with page.expect_request("**/api/lobby"):
        page.select_option("[data-testid=lang]", "de")
    while not held:  # the handler runs as Playwright dispatches the request's events
        page.wait_for_timeout(20)
    page.click("[data-testid=new-duel-ai]")  # still the English lobby: its reload waits for /api/lobby
    page.wait_for_selector("#game [data-testid=to-move]")
    address = page.url
    assert "/g/" in address, address
    with page.expect_response("**/api/campaign"):  # the reload's last request (the guest has an identity)
        held[0].continue_()
    page.wait_for_timeout(1000)  # the late lobby would be drawn right after its answers
    assert page.url == address
    assert page.locator("#game [data-testid=to-move]").count() == 1
    assert page.locator("main.lobby").count() == 0
    context.close()


def test_choices_made_while_the_lobby_reloads_in_a_new_language_are_kept(
    server: ServerProcess, browser: Any
) -> None:
    """Choosing a language draws the lobby again once the server has answered; a level, a format and
    an AI strength chosen on the old lobby meanwhile are still chosen on the new one (they were reset
    to the first level and the defaults).  The reload's lobby request is held until the choices are
    made, so they are made during the reload every time."""
    context = fast_context(browser, viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=level]")
    levels = page.eval_on_selector_all("[data-testid=level] option", "(os) => os.map((o) => o.value)")
    level = levels[-1]  # not the first, which a reset would choose
    ai_levels = page.eval_on_selector_all("[data-testid=ai-level] option", "(os) => os.map((o) => o.value)")
    ai_level = next(a for a in ai_levels if a != page.input_value("[data-testid=ai-level]"))
    page.evaluate("document.querySelector('main.lobby').dataset.old = 'yes'")
    held: list[Any] = []
    page.route("**/api/lobby", lambda route: held.append(route))
    with page.expect_request("**/api/lobby"):
        page.select_option("[data-testid=lang]", "de")
    while not held:  # the handler runs as Playwright dispatches the request's events
        page.wait_for_timeout(20)
    page.select_option("[data-testid=level]", level)
    page.select_option("#solo-format", "precon")
    page.select_option("[data-testid=ai-level]", ai_level)
    with page.expect_response("**/api/campaign"):  # the reload's last request (the guest has an identity)
        held[0].continue_()
    page.wait_for_selector("main.lobby:not([data-old])")  # the German lobby
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.input_value("[data-testid=level]") == level
    assert page.input_value("#solo-format") == "precon"
    assert page.input_value("[data-testid=ai-level]") == ai_level
    context.close()


def test_an_account_answer_after_leaving_the_account_page_does_not_cover_the_next_page(
    server: ServerProcess, browser: Any
) -> None:
    """The account page's buttons redraw it when the server answers; a player who went to another
    page before the answer came stays there (the late account page covered it, under the other
    page's address).  The name change's answer is held until the leaderboard is on screen."""
    context = fast_context(browser, viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.goto(server.url + "/account")
    page.wait_for_selector("[data-testid=display-name]")
    held: list[Any] = []

    def hold_the_name_change(route: Any) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/me", hold_the_name_change)
    page.fill("[data-testid=display-name]", "Late Answer")
    page.click("[data-testid=save-name]")
    while not held:
        page.wait_for_timeout(20)
    page.click("[data-testid=nav-leaderboard]")
    page.wait_for_selector("[data-testid=leaderboard-draft]")
    address = page.url
    assert "/leaderboard" in address, address
    with page.expect_response("**/api/me"):
        held[0].continue_()
    page.wait_for_timeout(1000)  # the late account page would be drawn right after the answer
    assert page.url == address
    assert page.locator("[data-testid=account-page]").count() == 0
    assert page.locator("[data-testid=leaderboard-draft]").count() == 1
    # The change itself was made: the account page shows it when the player comes back.
    page.click("[data-testid=account-link]")
    page.wait_for_selector("[data-testid=display-name]")
    assert page.input_value("[data-testid=display-name]") == "Late Answer"
    context.close()


def test_custom_threat_resign_export_and_import(server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    context = fast_context(browser, viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.click("[data-testid=custom-threat] summary")
    page.select_option("[data-threat=base_mana]", "8")
    page.check("[data-threat-ability=rage]")
    page.click("[data-testid=new-solo]")
    page.wait_for_selector("[data-action]")
    game_id = page.url.rsplit("/", 1)[1]
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=resign]")
    over = page.locator("[data-testid=game-over]")
    over.wait_for()
    assert over.get_attribute("data-winner") == "1"
    assert "resigned" in page.inner_text("[data-testid=reason]")
    status, record = server.get(f"/api/games/{game_id}/record")
    assert status == 200
    assert record["threat"]["base_mana"] == 8 and record["threat"]["abilities"] == ["rage"]
    # The exported record imports from the lobby and opens as a replay.
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    page.goto(server.url + "/")
    page.set_input_files("[data-testid=import-file]", str(path))
    page.wait_for_selector("[data-testid=replay-step]")
    assert page.url.split("#")[0].rsplit("/", 2)[1] == "r"
    context.close()


def test_hotseat_covers_the_hand_between_players(server: ServerProcess, browser: Any) -> None:
    context = fast_context(browser, viewport=PHONE)
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("#hot-format", "precon")
    page.click("[data-testid=new-hotseat]")
    seen = []
    handovers = 0
    for _ in range(8):
        page.wait_for_selector("[data-testid=handover], [data-action]")
        if page.locator("[data-testid=handover]").count():
            assert page.locator("[data-action]").count() == 0  # nothing to see or click before it
            page.click("[data-testid=handover]")
            handovers += 1
        page.wait_for_selector("[data-action]")
        seen.append(page.get_attribute("#game", "data-to-move"))
        before = index_of(page)
        page.locator("[data-action^='deck '], [data-action^='play '], [data-action=end]").first.click()
        wait_change(page, before)
    assert handovers >= 3
    assert {"0", "1"} <= set(seen)
    context.close()


def test_custom_deck_built_by_clicking(server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    context = fast_context(browser, viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("#ai-format", "custom")
    page.click("[data-testid=new-duel-ai]")
    page.wait_for_selector("[data-testid=build]", timeout=60000)  # the AI may build first
    assert page.locator("[data-testid=build] [data-action]").count() == 0  # ten cards first
    cards = page.locator("[data-build-card]")
    assert cards.count() == 32
    for i in range(11):  # an eleventh click changes nothing
        cards.nth(i * 2).click()
    assert page.locator("[data-build-card].selected").count() == 10
    page.screenshot(path=str(shots_dir(tmp_path) / "custom-build-desktop.png"))
    before = index_of(page)
    page.click("[data-testid=build] [data-action^='build ']")
    wait_change(page, before)
    page.wait_for_selector("[data-action^='ban ']", timeout=60000)  # then each removes a card (R2.5)
    context.close()


STRENGTH_WORDS = {
    "en": ["beginner", "casual", "strong", "strongest"],
    "de": ["Einsteiger", "Gelegenheitsspieler", "stark", "am stärksten"],
    "fr": ["débutant", "occasionnel", "fort", "le plus fort"],
    "ja": ["初心者", "カジュアル", "強い", "最強"],
}


def test_the_ai_strengths_in_every_language_and_one_click_starts_casual(
    server: ServerProcess, browser: Any
) -> None:
    context = fast_context(browser, viewport=PHONE, locale="en-US")
    page = context.new_page()
    page.goto(server.url + "/")
    for lang, words in STRENGTH_WORDS.items():
        page.select_option("[data-testid=lang]", lang)
        page.wait_for_function(
            "(w) => document.querySelector('#ai-level option')?.textContent === w", arg=words[0]
        )
        options = page.locator("#ai-level option")
        assert options.all_inner_texts() == words
        assert [options.nth(i).get_attribute("value") for i in range(4)] == list(STRENGTH_WORDS["en"])
        assert page.input_value("#ai-level") == "casual"
    page.click("[data-testid=new-duel-ai]")  # one click, the defaults
    page.wait_for_selector("#game")
    game_id = page.url.rsplit("/", 1)[1]
    status, lobby = server.get("/api/lobby")
    assert status == 200
    started = next(g for g in lobby["open"] if g["id"] == game_id)
    # The page was last in Japanese: the unnamed seats are named in it (docs/web.md, default names).
    # (The coin toss may seat the AI first.)
    assert started["kind"] == "ai"
    assert sorted(started["players"]) == sorted(["プレイヤー1", "AI（カジュアル）"])
    context.close()


#: Draws every card face (board size and the small size of piles) into the page with the app's own
#: ``cardFace`` and lists what is wrong: a name cut (wider or taller than its box), a face whose
#: content spills out of it or overlaps, or the cost bubble covering the name.
CARD_FACE_PROBLEMS = """async (small) => {
  // The page's modules, imported as the page imported them (the same instances: the page's store).
  const { state } = await import('/static/store.js');
  const { cardFace } = await import('/static/board.js');
  const { h } = await import('/static/dom.js');
  const row = document.createElement('div');
  row.className = small ? 'pile' : 'hand';
  row.dataset.testid = 'all-cards-' + (small ? 'small' : 'board');
  for (const id of [...Object.keys(state.cards.cards), 'FORT', 'BASTION']) row.append(cardFace(id, {small}));
  // Small cards live in a pile inside a row beside other text (the automaton's discard): laid out so.
  const deck = h('div', {class: 'pile'}, 'Automaton deck: 11 cards');
  const holder = small ? h('div', {class: 'row'}, deck, row) : row;
  document.querySelector('[data-testid=board]').prepend(holder);
  const over = (box) => box.scrollWidth > box.clientWidth + 0.5 || box.scrollHeight > box.clientHeight + 0.5;
  const rect = (box) => box.getBoundingClientRect();
  const bad = [];
  for (const el of row.querySelectorAll('.card')) {
    const id = el.dataset.card;
    const name = el.querySelector('.name');
    if (over(name)) bad.push('cut ' + id);
    if (over(el)) bad.push('spills ' + id);
    const parts = [...el.children].filter((c) => !c.classList.contains('cost'));
    for (let i = 0; i < parts.length; i++) {
      if (over(parts[i])) bad.push('squeezed ' + id);  // its content spills out of its box
      if (i && rect(parts[i]).top < rect(parts[i - 1]).bottom - 0.5) bad.push('overlap ' + id);
    }
    const cost = el.querySelector('.cost');
    if (cost && rect(cost).bottom > rect(name).top + 1) bad.push('cost covers name ' + id);
  }
  return bad;
}"""


@pytest.mark.parametrize("viewport", [{"width": 375, "height": 700}, {"width": 1400, "height": 900}])
def test_every_card_name_is_readable_on_the_board(
    server: ServerProcess, browser: Any, tmp_path: Path, viewport: dict[str, int]
) -> None:
    """No card name is cut ("Annihil…"): long names take two lines, broken at a syllable with a
    hyphen, at phone and desktop size, in every language of the page."""
    game = server.new_game(kind="solo", format="precon", deck=2)  # a hand of long names
    for lang in ("en", "de", "fr", "ja"):
        context = fast_context(browser, viewport=viewport, locale=lang)
        sign_in(context, server, game["session"])  # the seat is its creator's identity's
        page = context.new_page()
        page.goto(f"{server.url}/g/{game['id']}")
        page.wait_for_selector("[data-testid=board] [data-card=MICROCTOPUS]")
        assert page.evaluate(CARD_FACE_PROBLEMS, False) == []
        assert page.evaluate(CARD_FACE_PROBLEMS, True) == []
        # The whole name is on the card face (in the page's text, not only in a tooltip).
        text = page.inner_text("[data-testid=all-cards-board] [data-card=ANNIHILATION] .name")
        assert text.replace("\u00ad", "").replace("-\n", "").replace("\n", "") == "Annihilation"
        shot = shots_dir(tmp_path) / f"all-cards-{viewport['width']}-{lang}.png"
        page.screenshot(path=str(shot), full_page=True)
        context.close()


HINT_WORDS = {
    # (waiting line, calibrated chance, estimated chance) as the page words them (the web. catalog).
    "en": ("Thinking about a hint…", "win chance", "estimated win chance"),
    "de": ("Suche einen Tipp…", "Gewinnchance", "geschätzte Gewinnchance"),
}


#: The page's address, view and game frame as the page holds them (a hang's diagnosis).
PAGE_STATE = """async () => {
  const { state } = await import('/static/store.js');
  return {
    path: location.pathname, game: !!document.querySelector("#game"),
    lobby: !!document.querySelector("main.lobby"), notice: state.notice, animating: state.animating,
    queued: state.frames.length, socket: state.ws && state.ws.readyState,
    frame: state.frame && { index: state.frame.index, to_move: state.frame.to_move, seats: state.frame.seats,
      phase: state.frame.phase, setup: !!state.frame.setup, thinking: state.frame.thinking,
      legal: (state.frame.legal || []).slice(0, 3) },
  };
}"""


def hint_on_the_first_turn(page: Any) -> str:
    """Play the draft by clicking the first choice until our first turn, ask for a hint and return
    the text it shows.  The loop ends on the hint button; its bound is a hang guard (the AI's draft
    picks take longer on a loaded machine), not a timing."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        hint = page.locator("[data-testid=hint]")
        if hint.count() and hint.is_enabled():
            break
        if page.locator("[data-action]").count():
            page.locator("[data-action]").first.click()
        page.wait_for_timeout(100)
    else:  # what the page shows, for whoever reads the failure
        raise AssertionError(f"no hint button to click in 180 s: {page.evaluate(PAGE_STATE)}")
    page.click("[data-testid=hint]")
    page.wait_for_selector("[data-testid=hint-result]", timeout=60000)
    return str(page.inner_text("[data-testid=hint-result]"))


@pytest.mark.parametrize("level", [0, 4])
def test_a_solo_hint_is_labelled_by_its_levels_calibration(
    server: ServerProcess, browser: Any, level: int, tmp_path: Path
) -> None:
    """Solo: "win chance" with a bar at a level whose held-out check the shipped model passed
    (levels 0-2 since the fourth session), "estimated win chance" without one elsewhere."""
    from clashofdecks.agents.evaluation import shipped_model

    _, calibrated_words, estimated_words = HINT_WORDS["en"]
    context = fast_context(browser, viewport=DESKTOP)
    # English from the start: choosing the language in the lobby renders it again, which would
    # reset a level chosen meanwhile (the lobby renders once per language change).
    context.add_init_script("localStorage.setItem('clash.lang', 'en')")
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=level]")
    page.select_option("[data-testid=level]", str(level))
    assert page.input_value("[data-testid=level]") == str(level)
    with page.expect_response(
        lambda r: r.url.endswith("/api/games") and r.request.method == "POST"
    ) as created:
        page.click("[data-testid=new-solo]")
    assert json.loads(created.value.request.post_data or "{}").get("level") == level
    text = hint_on_the_first_turn(page)
    calibrated = shipped_model().is_calibrated("solo", level)
    assert (calibrated_words if calibrated else estimated_words) in text, text
    assert (estimated_words in text) == (not calibrated), text
    assert page.locator("[data-testid=win-chance]").count() == (1 if calibrated else 0)
    page.screenshot(path=str(tmp_path / f"solo-hint-level{level}.png"))
    context.close()


@pytest.mark.parametrize("lang", sorted(HINT_WORDS))
def test_hint_shows_its_chance_in_the_players_language(
    server: ServerProcess, browser: Any, lang: str
) -> None:
    """The hint's chance is a percentage worded in the page's language, a bar only when the shipped
    evaluation is calibrated for the mode, and the waiting line goes once the hint is there."""
    from clashofdecks.agents.evaluation import shipped_model

    waiting, calibrated_words, estimated_words = HINT_WORDS[lang]
    context = fast_context(browser, viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("[data-testid=lang]", lang)
    page.click("[data-testid=new-duel-ai]")
    text = hint_on_the_first_turn(page)
    calibrated = shipped_model().is_calibrated("duel")
    assert (calibrated_words if calibrated else estimated_words) in text, text
    assert re.search(r"\d+ ?%", text) and not re.search(r"\b0\.\d\d\b", text), text  # 54 %, not 0.54
    assert page.locator("[data-testid=win-chance]").count() == (1 if calibrated else 0)
    assert waiting not in page.inner_text("body")
    context.close()
