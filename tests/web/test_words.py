"""No notation in front of a player (issue 22, item 1) and one catalog of words (item 7): the page's
words served from the catalogs, sentences and a prompt in every state frame, a dummy language made
of files reaching the page, in a real server (and Chromium for what a player sees)."""

from __future__ import annotations

import random
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from conftest import Client, ServerProcess
from notation_grammar import is_notation  # tests/notation_grammar.py (tests/ is on the path)

DESKTOP = {"width": 1280, "height": 800}


def test_the_catalog_is_served_as_json_with_the_languages(server: ServerProcess) -> None:
    status, de = server.get("/api/i18n?lang=de")
    assert status == 200
    assert de["lang"] == "de"
    assert [lang["code"] for lang in de["languages"]] == ["en", "de", "fr", "ja"]
    assert {lang["name"] for lang in de["languages"]} >= {"Deutsch", "日本語"}
    assert de["words"]["undo"] != "Undo" and de["words"]["title"] == "Clash of Decks"
    assert de["fallback"]["undo"] == "Undo"
    with urllib.request.urlopen(server.url + "/api/i18n?lang=fr", timeout=30) as r:
        assert "max-age" in r.headers["Cache-Control"]
    status, unknown = server.get("/api/i18n?lang=tlh")
    assert unknown["lang"] == "en" and unknown["fallback"] == {}
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(server.url + "/static/i18n.js", timeout=30)
    assert gone.value.code == 404  # one catalog: the page's old word list is gone


def test_state_frames_carry_sentences_and_a_prompt(server: ServerProcess) -> None:
    game = server.new_game(kind="hotseat", format="precon", lang="de")
    client = _client(server, game["id"], game["tokens"], "de")
    state = client.state
    # Natural default names in the lobby's language (the coin toss may seat the second one first).
    assert sorted(p["name"] for p in state["players"]) == ["Spieler 1", "Spieler 2"]  # R10: natural names
    assert len(state["labels"]) == len(state["legal"]) == 4
    assert state["labels"][0] == "Vorgefertigtes Deck 1 nehmen"
    assert "vorgefertigten Decks" in state["prompt"]
    for action in ("deck 1", "deck 2"):
        state = client.act(action)
    assert any(a.startswith("play ") for a in state["legal"])
    assert state["prompt"].startswith("Beschwörung")
    play = next(i for i, a in enumerate(state["legal"]) if a.startswith("play "))
    assert "Mana)" in state["labels"][play]
    state = client.act(state["legal"][play])
    client.send({"type": "undo", "index": state["index"]})
    state = client.wait_state()
    undo = state["events"][-1]
    assert undo["kind"] == "undo" and undo["labels"] and not is_notation(" ".join(undo["labels"]))
    spectator = _client(server, game["id"], [], "en")
    assert spectator.state["legal"] == [] and spectator.state["labels"] == []
    mover = spectator.state["players"][spectator.state["to_move"]]["name"]
    assert spectator.state["prompt"] == f"Waiting for {mover}…"
    spectator.close()
    client.close()


def _client(server: ServerProcess, game: str, tokens: list[str], lang: str) -> Client:
    """A WebSocket client whose hello names ``lang`` (with the identity that holds ``tokens``)."""
    return Client(server, game, tokens, lang=lang)


def test_a_dummy_language_made_of_files_is_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dummy_language import MARK, make_dummy_locale

    monkeypatch.setenv("CLASH_LOCALE_DIR", str(make_dummy_locale(tmp_path)))
    proc = ServerProcess(tmp_path / "server").start()
    try:
        status, xx = proc.get("/api/i18n?lang=xx")
        assert status == 200 and xx["lang"] == "xx"
        assert {"code": "xx", "name": "Dummy"} in xx["languages"]
        assert xx["words"]["undo"] == MARK + "Undo"
        game = proc.new_game(kind="solo", format="draft", lang="xx")
        client = _client(proc, game["id"], game["tokens"], "xx")
        assert client.state["players"][0]["name"] == MARK + "Player 1"
        assert client.state["labels"] and all(label.startswith(MARK) for label in client.state["labels"])
        assert client.state["prompt"].startswith(MARK)
        client.close()
    finally:
        proc.stop()


# ---------------------------------------------------------------------------- what a player sees


def _visible_texts(page: Any) -> list[tuple[str, str]]:
    """(where, text) for every button, move-list entry, prompt, log line and ticker line."""
    out: list[tuple[str, str]] = []
    for where, selector in (
        ("button", "button"),
        ("move", "[data-testid=moves] li"),
        ("prompt", "[data-testid=prompt]"),
        ("log", "[data-testid=log] li"),
        ("hint", "[data-testid=hint-result]"),
    ):
        out += [(where, text) for text in page.locator(selector).all_text_contents()]
    return out


SHORT_PATHS = [("en", "draft"), ("de", "precon"), ("fr", "draft"), ("ja", "precon")]


@pytest.mark.parametrize(("lang", "fmt"), SHORT_PATHS)
def test_no_notation_in_front_of_a_player(server: ServerProcess, browser: Any, lang: str, fmt: str) -> None:
    from test_browser import fast_context, index_of, wait_change

    context = fast_context(browser, viewport=DESKTOP)
    context.add_init_script(f"localStorage.setItem('clash.lang', '{lang}')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.select_option("#solo-format", fmt)
    page.click("[data-testid=new-solo]")
    rng = random.Random(lang)
    undone = toggled = False
    kinds: set[str] = set()
    for step in range(16):
        if page.locator("[data-testid=game-over]").count():
            break
        page.wait_for_selector("[data-testid=moves] [data-action]")
        prompt = page.inner_text("[data-testid=prompt]")
        assert prompt.strip(), "a prompt says what the player can do now"
        texts = _visible_texts(page)
        shown = [(where, text) for where, text in texts if is_notation(text)]
        assert not shown, (lang, step, shown)
        entries = page.locator("[data-testid=moves] [data-action]")
        actions = [entries.nth(i).get_attribute("data-action") for i in range(entries.count())]
        labels = entries.all_inner_texts()
        assert all(label.strip() and label != action for label, action in zip(labels, actions, strict=True))
        kinds |= {a.split()[0] for a in actions if a}
        if step == 2 and not toggled:  # the notation toggle shows it next to each choice, then hides it
            page.check("[data-testid=notation-toggle]")
            notation = page.locator("[data-testid=notation]").all_text_contents()
            assert notation == actions
            page.uncheck("[data-testid=notation-toggle]")
            assert page.locator("[data-testid=notation]").count() == 0
            toggled = True
        before = index_of(page)
        if not undone and step >= 4 and page.locator("[data-testid=undo]").is_enabled():
            page.click("[data-testid=undo]")
            page.wait_for_selector("[data-testid=log] li.log-undo")
            undo_line = page.locator("[data-testid=log] li.log-undo").last.text_content() or ""
            assert not is_notation(undo_line) and len(undo_line) > 10, undo_line
            undone = True
            continue
        plays = [i for i, a in enumerate(actions) if a and not a.startswith("end")]
        pick = rng.choice(plays) if plays and rng.random() < 0.7 else 0
        entries.nth(pick).click()
        wait_change(page, before)
    assert toggled and undone, (toggled, undone)
    assert {"end"} | ({"pick"} if fmt == "draft" else {"deck"}) <= kinds, kinds
    texts = _visible_texts(page)
    assert not [(w, t) for w, t in texts if is_notation(t)]
    assert not errors, errors
    context.close()
