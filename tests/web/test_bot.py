"""``clash bot`` (issue 39): an agent takes a seat by its invite link and plays a whole duel on a real
server, seeing only its seat's frames (the R9 view: clashofdecks.view_game), against a person."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from clashofdecks.web.bot import Bot, BotError, load_agent, new_guest, parse_invite
from conftest import Client, ServerProcess


def _person_plays(person: Client, rng: random.Random) -> dict[str, Any]:
    """A person at the other seat who answers each of their decisions at random, until the end."""
    while person.state["result"] is None:
        state = person.state
        if state["to_move"] == state["seat"] and state["legal"]:
            person.send({"type": "act", "action": rng.choice(state["legal"]), "index": state["index"]})
        person.recv(120)
    return dict(person.state["result"])


@pytest.mark.parametrize("fmt", ["draft", "precon"])
def test_a_bot_plays_a_whole_duel_from_its_invite_link(server: ServerProcess, fmt: str) -> None:
    game = server.new_game(kind="friend", format=fmt)
    invite = parse_invite(game["invite"])
    assert (invite.game, invite.base) == (game["id"], server.url)
    person = Client(server, game["id"], game["tokens"])
    sent: list[dict[str, Any]] = []
    bot = Bot(load_agent("greedy", 1), new_guest(invite.base, "Robo"), name="Robo", seed=3)
    choose = bot.choose

    def recording(frame: dict[str, Any]) -> dict[str, Any]:
        message = choose(frame)
        assert message["action"] in frame["legal"] or frame.get("build")  # only what the seat is offered
        sent.append(message)
        return message

    bot.choose = recording  # type: ignore[method-assign]
    results: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: results.append(bot.play(invite)), daemon=True)
    thread.start()
    person_result = _person_plays(person, random.Random(5))
    thread.join(120)
    assert results and results[0] == person_result
    assert len(sent) > 10
    assert "Robo" in [p["name"] for p in person.state["players"]]  # the bot's seat bears its name
    person.close()


def test_bad_links_and_agents_are_clear_errors() -> None:
    for link in ("http://host/x/abc#t=1", "ftp://host/g/abc#t=1", "http://host/g/abc", "nonsense"):
        with pytest.raises(BotError):
            parse_invite(link)
    assert parse_invite("https://h.example/g/ab12#t=tok&rated=1").rated
    assert parse_invite("https://h.example/g/ab12#t=tok&rated=1").ws_url == "wss://h.example/ws"
    with pytest.raises(BotError, match="cannot load"):
        load_agent("no_such_module_here:Agent", 0)
    with pytest.raises(BotError, match="not an agent"):
        load_agent("string:ascii_letters", 0)  # an object, but no act(game)
    assert load_agent("ismcts:50", 0).name.startswith("ismcts")


def test_clash_bot_says_what_is_wrong_and_exits_2(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "clashofdecks", "bot", "not-a-link"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "not an invite link" in run.stderr and "Traceback" not in run.stderr


def test_the_documented_example_policy_plays_as_a_bot(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "examples"))
    agent = load_agent("bot_policy:LongestAction", 0)
    game = server.new_game(kind="friend", format="precon")
    invite = parse_invite(game["invite"])
    person = Client(server, game["id"], game["tokens"])
    results: list[dict[str, Any]] = []
    bot = Bot(agent, new_guest(invite.base, None), seed=1)
    thread = threading.Thread(target=lambda: results.append(bot.play(invite)), daemon=True)
    thread.start()
    assert _person_plays(person, random.Random(2)) == (thread.join(120) or results[0])
    person.close()
