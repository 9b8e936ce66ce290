"""The tutorial (/tutorial): its steps (positions that load, actions legal there, texts in every
language), the stateless API under hostile input, the whole tutorial completed by clicking in
Chromium, its first steps in every language, and axe-core on the page in all four languages."""

from __future__ import annotations

import copy
import json
import os
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from clashofdecks.position import load_position
from clashofdecks.web.tutorial import (
    TutorialError,
    parse_steps,
    step_json,
    try_step,
    tutorial_json,
    tutorial_steps,
    with_buttons,
)
from clashofdecks.words.i18n import LANGUAGES
from conftest import ServerProcess

RULE = re.compile(r"R\d+(\.\d+[a-z]?)?")
#: A rule citation in a sentence, as the page leaves it out unless the reader asks for rule numbers.
CITATION = re.compile(r"\s*[(（]R\d+(?:\.\d+[a-z]?)?(?:\s*[,、/]\s*R\d+(?:\.\d+[a-z]?)?)*[)）]")


def shown(text: str, lang: str, *, touch: bool = False, rules: bool = False) -> str:
    """A tutorial text as the page shows it: the buttons' and the click's words from the glossary,
    rule citations only with the rule-numbers setting."""
    from clashofdecks.words.glossary import term

    text = with_buttons(text, lang)
    text = text.replace("{Click}", term(lang, "Tap" if touch else "Click"))
    text = text.replace("{click}", term(lang, "tap" if touch else "click"))
    return text if rules else CITATION.sub("", text)


def shipped() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("clashofdecks").joinpath("data/tutorial.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


# ---------------------------------------------------------------------------- the steps


def test_every_step_loads_and_its_action_is_legal_there() -> None:
    steps = tutorial_steps()
    assert len(steps) >= 15
    for step in steps:
        game = load_position(step.position)
        assert game.current_player == 0 and game.outcome is None, step.id
        code = game.parse_action(step.action)
        assert game.is_legal(code), (step.id, step.action)
        assert game.action_text(code) == step.action, "actions are stored in canonical notation"


def test_every_step_speaks_every_language_and_its_after_text_cites_rules() -> None:
    for step in tutorial_steps():
        for lang in LANGUAGES:
            words = step.text[lang]
            assert all(words[k].strip() for k in ("title", "before", "after")), (step.id, lang)
            assert RULE.search(words["after"]), f"{step.id} ({lang}): the after text cites no rule"
        translated = {step.text[lang]["before"] for lang in ("de", "fr", "ja")}
        assert step.text["en"]["before"] not in translated, f"{step.id}: a language repeats the English text"


#: What each step's action must really show (event kind, or kind and role), so that a text can
#: rely on it: the lesson happens on the board, not only in the words.
SHOWS: dict[str, list[str | tuple[str, str]]] = {
    "mana": ["played"],
    "lanes": ["played"],
    "phases": ["phase_changed"],
    "attack_order": ["attacked", "destroyed", "returned"],
    "player_damage": ["attacked", "fortress_moved"],
    "bastion_falls": ["fortress_moved", "bastion_fell"],
    "incantation": ["cast", "destroyed", "returned", "returned"],
    "splash": [("damaged", "target"), ("damaged", "splash"), "destroyed"],
    "perforation": [("damaged", "target"), ("damaged", "perforation"), "destroyed"],
    "rage": ["attacked", "destroyed"],
    "protection": ["attacked", ("absorbed", "protection")],
    "indestructible": ["cast", ("absorbed", "indestructible"), ("damaged", "splash"), "destroyed"],
    "berserk": ["destroyed", ("attacked", "berserk"), "destroyed", ("attacked", "berserk"), "fortress_moved"],
    "sprint": ["sprinted", "attacked", "destroyed"],
    "aura": ["attacked", "destroyed"],
    "automaton_damage": ["attacked", "discarded", "discarded", "discarded", "discarded", "discarded"],
    "automaton_turn": ["turn_ended", "revealed", "played", "revealed", "played", "attacked", "turn_started"],
    "return_order": ["order_chosen"],
    "draft": ["setup", "setup", "setup"],
    "win": ["attacked", ("game_over", "fort_rightmost")],
}


def test_the_tutorial_teaches_what_issue_22_lists() -> None:
    """Mana and the four playable cards, lanes and bridges, the attack order, fortress and Fort
    damage, incantations, each ability (R6.1-R6.8) and the automaton: a rule number per topic, and
    each step's action shows its lesson in the events (in order)."""
    rules = {r for step in tutorial_steps() for r in step.rules}
    for needed in ("R3.1", "R3.2", "R1.1", "R3.5", "R4.1", "R4.2", "R4.3", "R5.4", "R7.2", "R7.3", "R7.6"):
        assert needed in rules, needed
    for ability in range(1, 9):
        assert f"R6.{ability}" in rules, f"no step teaches R6.{ability}"
    by_id = {step.id: step for step in tutorial_steps()}
    assert set(SHOWS) <= set(by_id)
    for step_id, wanted in SHOWS.items():
        step = by_id[step_id]
        seen = [(e.kind.value, e.role) for e in step.game().apply_text(step.action)]
        rest = iter(seen)
        for item in wanted:
            kind, role = (item, None) if isinstance(item, str) else item
            assert any(k == kind and (role is None or r == role) for k, r in rest), (
                f"{step_id}: no {item} in {seen}"
            )
    # Rage and the Aura: the attacker entered play this turn (R3.6 would stop it otherwise).
    for step_id in ("rage", "aura"):
        game = by_id[step_id].game()
        attacker = next(c for c in game.lane(0, "top") if c["card"] in ("PARTISAN", "ZOMBIE"))
        assert attacker["new"] and "rage" in attacker["abilities"], step_id
    assert tutorial_steps()[-1].id == "win"


def test_a_broken_step_is_refused_with_its_name() -> None:
    good = shipped()

    def broken(change: Any) -> str:
        data = copy.deepcopy(good)
        change(data["steps"][1])
        with pytest.raises(TutorialError) as err:
            parse_steps(data)
        return str(err.value)

    # Boom! is the fifth card besides the Bastion there: not playable (R3.2).
    assert "step 'lanes': 'cast BOOM 1.bottom.0' is not legal" in broken(
        lambda s: s.update(action="cast BOOM 1.bottom.0")
    )
    assert "not legal" in broken(lambda s: s.update(action="next"))
    assert "position" in broken(lambda s: s["position"].update(colour="red"))
    assert "text" in broken(lambda s: s["text"].pop("ja"))
    assert "text.de" in broken(lambda s: s["text"]["de"].update(after=" "))
    assert "keys" in broken(lambda s: s.update(hint="x"))
    assert "player 0 to act" in broken(lambda s: s["position"].update(active=1))
    assert "'id'" in broken(lambda s: s.update(id=good["steps"][0]["id"]))
    with pytest.raises(TutorialError):
        parse_steps({"steps": []})


def test_a_step_is_stateless_a_wrong_action_changes_nothing() -> None:
    first = tutorial_steps()[0]
    wrong = try_step(0, "play GRRR top", "de")
    assert wrong == {"ok": False, "index": 0, "message": wrong["message"]}
    assert wrong["message"].startswith("Nicht ganz") and "Zombie" in wrong["message"]
    assert step_json(0, "en")["view"]["players"][0]["lanes"]["top"] == ["MICROCTOPUS"]
    right = try_step(0, first.action.upper(), "fr")  # any spelling of the step's action
    assert right["ok"] and right["after"] == first.text["fr"]["after"]
    assert [e["kind"] for e in right["events"]] == ["played"]
    assert "Zombie" in right["events"][0]["text"] and "voie" in right["events"][0]["text"]
    assert right["view"]["players"][0]["lanes"]["top"][-1] == {"card": "ZOMBIE", "new": True}
    again = try_step(0, first.action, "en")
    assert again["view"] == try_step(0, first.action, "en")["view"], "each request starts from the step"
    last = try_step(len(tutorial_steps()) - 1, tutorial_steps()[-1].action, "en")
    assert last["result"]["winner"] == 0 and last["phase"] == "over"


def test_the_learner_never_sees_a_hidden_card() -> None:
    for lang in LANGUAGES:
        for step in tutorial_json(lang)["steps"]:
            other = step["view"]["players"][1]
            if "hand" in other:
                hidden = [c for c in other["hand"] if c not in ("BASTION", "FORT")]
                assert set(hidden) <= {"?"} | set(other.get("public", [])), step["id"]
            else:  # the automaton deck: only its fortress card shows (R9)
                assert set(other["deck"][:-1]) <= {"?"}, step["id"]


# ---------------------------------------------------------------------------- the API


def post(
    server: ServerProcess, body: Any, *, raw: bytes | None = None, ctype: str = "application/json"
) -> tuple[int, Any]:
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(
        server.url + "/api/tutorial/step", data=data, method="POST", headers={"Content-Type": ctype}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def test_the_tutorial_api_refuses_hostile_input_and_stores_nothing(server: ServerProcess) -> None:
    status, lobby_before = server.get("/api/lobby")
    n = len(tutorial_steps())
    status, body = server.get("/api/tutorial?lang=ja")
    assert (
        status == 200
        and len(body["steps"]) == n
        and body["steps"][0]["title"] == tutorial_steps()[0].text["ja"]["title"]
    )
    assert server.get("/api/tutorial?lang=xx")[0] == 400
    bad: list[tuple[Any, int]] = [
        ([0, "end"], 400),
        ("end", 400),
        ({"step": 0}, 400),
        ({"action": "end"}, 400),
        ({"step": -1, "action": "end"}, 400),
        ({"step": n, "action": "end"}, 400),
        ({"step": "0", "action": "end"}, 400),
        ({"step": True, "action": "end"}, 400),
        ({"step": 0.0, "action": "end"}, 400),
        ({"step": 0, "action": 5}, 400),
        ({"step": 0, "action": ""}, 400),
        ({"step": 0, "action": "x" * 101}, 400),
        ({"step": 0, "action": "dance wildly"}, 400),
        ({"step": 0, "action": "play NOBODY top"}, 400),
        ({"step": 0, "action": "end", "lang": "xx"}, 400),
        ({"step": 0, "action": "end", "game": "x"}, 400),
    ]
    for body, code in bad:
        status, answer = post(server, body)
        assert status == code and answer["error"], (body, answer)
    assert post(server, None, raw=b"{not json")[0] == 400
    assert post(server, None, raw=b"\xff\xfe")[0] == 400
    assert post(server, None, raw=b"[" * 100_000)[0] == 413
    assert post(server, None, raw=b'{"step": 0, "action": "end"}', ctype="text/plain")[0] == 415
    big = json.dumps({"step": 0, "action": "end", "lang": "en" + " " * 2000}).encode()
    assert post(server, None, raw=big)[0] == 413
    status, answer = post(server, {"step": 0, "action": "end", "lang": "fr"})
    assert status == 200 and answer["ok"] is False and answer["message"].startswith("Pas tout à fait")
    status, answer = post(server, {"step": 0, "action": tutorial_steps()[0].action, "lang": "en"})
    assert status == 200 and answer["ok"] is True and answer["events"]
    status, lobby_after = server.get("/api/lobby")
    assert [g["id"] for g in lobby_after["open"]] == [g["id"] for g in lobby_before["open"]], (
        "no game was stored"
    )


# ---------------------------------------------------------------------------- the browser


def shots_dir(tmp_path: Path) -> Path:
    d = Path(os.environ.get("CLASH_SCREENSHOT_DIR") or tmp_path)
    d.mkdir(parents=True, exist_ok=True)
    return d


def open_tutorial(
    browser: Any, server: ServerProcess, lang: str, width: int = 1400, height: int = 900
) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.evaluate(f"localStorage.setItem('clash.lang', '{lang}')")
    page.goto(server.url + "/")
    page.click("[data-testid=tutorial]")
    page.wait_for_selector("[data-testid=tutorial-step][data-index='0']")
    return page


def click_step(page: Any, index: int, action: str) -> None:
    """The clicks a learner makes for ``action``: a hand card then its place, or a phase button."""
    page.wait_for_selector(f"[data-testid=tutorial-step][data-index='{index}']")
    verb, *rest = action.split()
    if verb in ("play", "cast"):
        page.click(f"[data-select='{rest[0]}'].tutorial-spot")
        page.click(f"[data-drop='{rest[1]}'].tutorial-spot")
    elif verb in ("pick", "order"):  # one click on the card: the pick, or the card that returns first
        page.click(f"[data-select='{rest[0]}'].tutorial-spot")
    else:
        page.click(f"[data-testid={verb}].tutorial-spot")
    page.wait_for_selector("[data-testid=tutorial-after]")


def test_the_whole_tutorial_completed_by_clicking(
    server: ServerProcess, browser: Any, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    page = open_tutorial(browser, server, "en")
    steps = tutorial_steps()
    # A wrong click is answered "not quite" and the step stays as it was.
    page.click("[data-select=GRRR]")
    page.click("[data-drop=bottom]")
    wrong = page.wait_for_selector("[data-testid=tutorial-wrong]")
    assert "Not quite" in wrong.inner_text() and "Zombie" in wrong.inner_text()
    assert page.locator("[data-testid=tutorial-after]").count() == 0
    assert page.locator("[data-testid=my-hand] [data-card=GRRR]").count() == 1
    for i, step in enumerate(steps):
        click_step(page, i, step.action)
        assert page.inner_text("[data-testid=tutorial-after]") == shown(step.text["en"]["after"], "en")
        if step.id in ("mana", "automaton_turn"):
            page.screenshot(path=str(shots / f"tutorial-{step.id}-desktop.png"))
        if i < len(steps) - 1:
            page.click("[data-testid=tutorial-continue]")
    done = page.wait_for_selector("[data-testid=tutorial-done]")
    assert done.is_visible()
    page.screenshot(path=str(shots / "tutorial-done-desktop.png"))
    page.click("[data-testid=tutorial-start-game]")
    page.wait_for_url(re.compile(r"/g/[0-9a-f]+$"))
    page.wait_for_selector("#game[data-index]")
    page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_first_steps_in_every_language_and_axe_finds_nothing_serious(
    server: ServerProcess, browser: Any, tmp_path: Path, lang: str
) -> None:
    axe_api = pytest.importorskip("axe_playwright_python.sync_playwright", reason="axe-playwright-python")

    shots = shots_dir(tmp_path)
    page = open_tutorial(browser, server, lang, 390, 844)
    steps = tutorial_steps()
    axe = axe_api.Axe()

    def serious() -> list[str]:
        result = axe.run(page)
        return [
            f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
            for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    assert page.inner_text("[data-testid=tutorial-step] h1") == steps[0].text[lang]["title"]
    assert page.inner_text("[data-testid=tutorial-before]") == shown(steps[0].text[lang]["before"], lang)
    assert serious() == []
    page.screenshot(path=str(shots / f"tutorial-start-{lang}-phone.png"), full_page=True)
    page.click(f"[data-select='{steps[0].action.split()[1]}']")
    assert serious() == []  # with the drop targets shown
    page.click(f"[data-drop='{steps[0].action.split()[2]}']")
    page.wait_for_selector("[data-testid=tutorial-after]")
    assert page.inner_text("[data-testid=tutorial-after]") == shown(steps[0].text[lang]["after"], lang)
    assert serious() == []
    page.click("[data-testid=tutorial-continue]")
    click_step(page, 1, steps[1].action)
    page.click("[data-testid=tutorial-continue]")
    click_step(page, 2, steps[2].action)
    assert page.inner_text("[data-testid=tutorial-after]") == shown(steps[2].text[lang]["after"], lang)
    page.screenshot(path=str(shots / f"tutorial-step3-{lang}-phone.png"), full_page=True)
    page.context.close()


def test_keyboard_and_switching_language_keeps_the_step(server: ServerProcess, browser: Any) -> None:
    page = open_tutorial(browser, server, "en")
    steps = tutorial_steps()
    # Step 1 by keyboard: Enter chooses the card, Esc drops it, Enter on the lane plays it.
    page.focus("[data-select=ZOMBIE]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-drop=top]")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-drop]", state="detached")
    assert page.evaluate("document.activeElement.dataset.select") == "ZOMBIE"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.drop") == "top"  # focus goes where the card goes
    page.keyboard.press("Enter")
    assert page.inner_text("[data-testid=tutorial-after]") == shown(steps[0].text["en"]["after"], "en")
    page.click("[data-testid=tutorial-continue]")
    page.wait_for_selector("[data-testid=tutorial-step][data-index='1']")
    page.select_option("[data-testid=lang]", "ja")
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=tutorial-step] h1")).to_have_text(steps[1].text["ja"]["title"])
    assert page.get_attribute("[data-testid=tutorial-step]", "data-index") == "1"
    click_step(page, 1, steps[1].action)
    assert page.inner_text("[data-testid=tutorial-after]") == shown(steps[1].text["ja"]["after"], "ja")
    page.context.close()
