"""Whole games through the real server over WebSockets: solo, against the AI, between two people, and
the no-leak check of R9 on every frame a seat receives."""

from __future__ import annotations

import json
import random
from typing import Any

from clashofdecks.cards import CARDS
from clashofdecks.position import view
from clashofdecks.record import GameRecord, initial_game
from conftest import Client, ServerProcess

CARD_IDS = [c.id for c in CARDS]


def play_out(clients: dict[int, Client], rng: random.Random, limit: int = 3000) -> dict[str, Any]:
    """Both seats pick a random legal action whenever it is theirs, until the game ends."""
    for _ in range(limit):
        states = {s: c.state for s, c in clients.items()}
        latest = max(states.values(), key=lambda f: f["index"])
        if latest["result"] is not None:
            for c in clients.values():  # every seat learns the end
                while c.state["result"] is None:
                    c.wait_state()
            return latest
        builder = next((c for c in clients.values() if c.state.get("build")), None)
        if builder is not None:  # custom format: ten of the 32 cards (R2.5)
            builder.act("build " + " ".join(rng.sample(sorted(CARD_IDS), 10)))
            for other in clients.values():
                while other is not builder and other.state["index"] < builder.state["index"]:
                    other.wait_state()
            continue
        mover = next((s for s, c in clients.items() if c.state["legal"]), None)
        if mover is None:  # someone else (an agent) is to move: wait for news
            behind = min(clients.values(), key=lambda c: c.state["index"])
            behind.wait_state()
            continue
        c = clients[mover]
        c.act(rng.choice(c.state["legal"]))
        for other in clients.values():
            while other is not c and other.state["index"] < c.state["index"]:
                other.wait_state()
    raise AssertionError("game did not end")


def record_of(server: ServerProcess, game: str) -> GameRecord:
    status, body = server.get(f"/api/games/{game}/record")
    assert status == 200, body
    return GameRecord.from_dict(body)


def check_frames(record: GameRecord, seat: int | None, frames: list[dict[str, Any]]) -> int:
    """Every state frame a seat received matches what the engine says that seat may know (R9) at
    that moment, and carries nothing more: returns how many frames were checked."""
    games = [initial_game(record)]
    for text in record.actions:
        g = games[-1].clone()
        g.apply_text(text)
        games.append(g)
    checked = 0
    for frame in frames:
        if frame["type"] != "state":
            assert "hand" not in json.dumps(frame), frame
            continue
        game = games[frame["index"]]
        if frame["setup"] is not None:
            engine = view(game, seat)["setup"]  # what R9 lets this seat see of the setup
            assert frame["setup"]["revealed"] == engine["revealed"]
            assert frame["setup"]["cards"] == engine["cards"]
            assert frame["setup"]["face_down"] == len(engine["pool"])
            assert frame["view"] is None
        elif frame["result"] is None:
            assert frame["view"] == view(game, seat), f"frame {frame['index']} differs from the view"
        # Hands appear only inside the view.
        rest = {k: v for k, v in frame.items() if k not in ("view",)}
        text = json.dumps(rest)
        assert '"hand"' not in text
        # The real order of every hidden hand/deck never appears anywhere in the frame.
        if game.phase != "setup" and frame["result"] is None:
            whole = json.dumps(frame)
            for p in (0, 1):
                if p == seat:
                    continue
                if game.is_solo and p == 1:
                    secret = json.dumps(game_deck(game))
                else:
                    secret = json.dumps(game.hand(p))
                shown = view(game, seat)["players"][p]
                if (
                    "?" in json.dumps(shown.get("hand", shown.get("deck", [])))
                    and json.dumps(shown) != secret
                ):
                    assert secret not in whole, f"seat {seat} was sent player {p}'s hidden order"
        # Legal actions only for one's own decision.
        if seat is None or frame["to_move"] != seat:
            assert frame["legal"] == []
        checked += 1
    return checked


def game_deck(game: Any) -> list[str]:
    from clashofdecks.position import dump_position

    return list(dump_position(game)["players"][1]["deck"])


def test_solo_game_to_the_end(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="draft", level=2)
    client = Client(server, body["id"], body["tokens"])
    assert client.state["setup"]["decision"] == "pick"
    assert all(a.startswith("pick ") for a in client.state["legal"])
    final = play_out({0: client}, random.Random(1))
    assert final["result"]["winner"] in (0, 1)
    rec = record_of(server, body["id"])
    assert rec.mode == "solo" and rec.result is not None
    assert check_frames(rec, 0, client.frames) > 10
    client.close()


def test_precon_solo_with_a_chosen_deck(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="precon", deck=3, level=0)
    client = Client(server, body["id"], body["tokens"])
    assert client.state["index"] == 1  # "deck 3" applied at creation
    assert client.state["setup"] is None and client.state["view"]["mode"] == "solo"
    rec_hand = client.state["view"]["players"][0]["hand"]
    assert "BASTION" in rec_hand and len(rec_hand) == 9
    client.close()


def test_friend_duel_frames_leak_nothing(server: ServerProcess) -> None:
    body = server.new_game(kind="friend", format="draft", name="Ada")
    creator = body["seat"]
    invite_token = body["invite"].split("#t=")[1]
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [invite_token])
    watcher = Client(server, body["id"], [])
    assert a.state["seat"] == creator and b.state["seat"] == 1 - creator
    assert watcher.state["seat"] is None
    final = play_out({creator: a, 1 - creator: b}, random.Random(7))
    assert final["result"] is not None
    while watcher.state["result"] is None:
        watcher.wait_state()
    rec = record_of(server, body["id"])
    assert check_frames(rec, creator, a.frames) > 20  # 16 draft picks, then the turns
    assert check_frames(rec, 1 - creator, b.frames) > 20
    assert check_frames(rec, None, watcher.frames) > 20
    for c in (a, b, watcher):
        c.close()


def test_frames_check_catches_a_leak(server: ServerProcess) -> None:
    """The checker itself fails on a frame that carries the opponent's real hand order."""
    body = server.new_game(kind="friend", format="precon")
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [body["invite"].split("#t=")[1]])
    clients = {a.state["seat"]: a, b.state["seat"]: b}
    rng = random.Random(3)
    while any(c.state["setup"] is not None for c in clients.values()) or a.state["index"] < 6:
        mover = next(c for c in clients.values() if c.state["legal"])
        mover.act(rng.choice(mover.state["legal"]))
        for c in clients.values():
            while c.state["index"] < mover.state["index"]:
                c.wait_state()
    status, _ = server.get(f"/api/games/{body['id']}/record")
    assert status == 403  # a running game gives no record: its seed decides every hidden card
    frame = json.loads(json.dumps(a.state))
    seat = a.state["seat"]
    a.send({"type": "resign"})
    a.wait_state()
    rec = record_of(server, body["id"])
    assert check_frames(rec, seat, [frame]) == 1
    game = initial_game(rec)
    for text in rec.actions[: frame["index"]]:
        game.apply_text(text)
    planted = json.loads(json.dumps(frame))
    planted["extra"] = {"cards": game.hand(1 - seat)}
    try:
        check_frames(rec, seat, [planted])
    except AssertionError:
        pass
    else:  # pragma: no cover - the checker must catch it
        raise AssertionError("a frame with the opponent's hand passed the check")
    a.close()
    b.close()


def test_the_lobby_offers_the_named_strengths_and_refuses_others(server: ServerProcess) -> None:
    status, lobby = server.get("/api/lobby")
    assert status == 200
    assert lobby["ai_levels"] == ["beginner", "casual", "strong", "strongest"]
    assert lobby["ai_default"] == "casual"
    before = server.get("/api/lobby")[1]["open"]
    for old in ("medium", "greedy", "ismcts:2000"):  # neither the old levels nor raw agent specs
        status, body = server.post("/api/games", {"kind": "ai", "ai": old})
        assert status == 400 and "beginner, casual, strong, strongest" in body["error"], body
    assert server.get("/api/lobby")[1]["open"] == before  # nothing was created


def test_duel_against_the_ai(server: ServerProcess) -> None:
    body = server.new_game(kind="ai", format="precon", ai="beginner")
    client = Client(server, body["id"], body["tokens"])
    assert client.state["players"][1 - body["seat"]] == {"name": "AI (beginner)", "kind": "agent"}
    final = play_out({body["seat"]: client}, random.Random(5))
    assert final["result"] is not None
    rec = record_of(server, body["id"])
    assert "beginner" in rec.players
    assert check_frames(rec, body["seat"], client.frames) > 10
    client.close()


def test_undo_against_the_automaton(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="precon", deck=1)
    c = Client(server, body["id"], body["tokens"])
    plays = [a for a in c.state["legal"] if a.startswith("play ")]
    assert plays and not c.state["can_undo"]
    before = c.state["view"]
    c.act(plays[0])
    assert c.state["can_undo"]
    c.send({"type": "undo", "index": c.state["index"]})
    after = c.wait_state()
    assert after["view"] == before and after["index"] == 1
    assert after["events"][0]["kind"] == "undo"
    # Stored too: a new connection sees the game without the taken-back action.
    d = Client(server, body["id"], body["tokens"])
    assert d.state["index"] == 1 and d.state["view"] == before
    c.close()
    d.close()


def test_resign_ends_the_game(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="precon", deck=2)
    c = Client(server, body["id"], body["tokens"])
    c.send({"type": "resign"})
    f = c.wait_state()
    assert f["result"]["winner"] == 1 and f["result"]["termination"] == "resigned"
    rec = record_of(server, body["id"])
    assert rec.result is not None and rec.result["termination"] == "resigned"
    c.close()


def test_hotseat_one_connection_both_seats(server: ServerProcess) -> None:
    body = server.new_game(kind="hotseat", format="precon")
    assert len(body["tokens"]) == 2
    c = Client(server, body["id"], body["tokens"])
    assert c.state["seats"] == [0, 1]
    for _ in range(4):
        assert c.state["seat"] == c.state["to_move"]  # the view follows the seat to move
        c.act(c.state["legal"][-1])
    c.close()


def test_replay_and_import(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="precon", deck=4)
    c = Client(server, body["id"], body["tokens"])
    play_out({0: c}, random.Random(11))
    status, rep = server.get(f"/api/games/{body['id']}/replay")
    assert status == 200
    rec = record_of(server, body["id"])
    assert len(rep["frames"]) == len(rec.actions) + 1
    assert [f["action"] for f in rep["frames"][1:]] == rec.actions
    # A record from the terminal (or this export) imports and replays.
    status, imported = server.post("/api/import", rec.to_dict())
    assert status == 200, imported
    status, rep2 = server.get(f"/api/games/{imported['id']}/replay")
    assert status == 200 and [f["action"] for f in rep2["frames"]] == [f["action"] for f in rep["frames"]]
    # A broken record is refused with a reason.
    bad = rec.to_dict()
    bad["actions"] = [*bad["actions"][:3], "play NOSUCHCARD top"]
    status, err = server.post("/api/import", bad)
    assert status == 400 and "does not replay" in err["error"]
    c.close()


def test_an_ai_thinking_does_not_stall_other_games(server: ServerProcess) -> None:
    """While the strongest AI searches (in a worker process), another game's actions are answered."""
    import time

    def ai_game() -> Client:
        strongest = server.new_game(kind="ai", format="draft", ai="strongest")
        return Client(server, strongest["id"], strongest["tokens"])

    def solo_game() -> Client:
        solo = server.new_game(kind="solo", format="precon", deck=2)
        return Client(server, solo["id"], solo["tokens"])

    watcher, player = ai_game(), solo_game()
    rng = random.Random(2)
    answered_while_thinking = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline and answered_while_thinking < 5:
        # Either game may end before we have seen enough: start another (a finished game sends nothing).
        if watcher.state["result"] is not None:
            watcher.close()
            watcher = ai_game()
        if player.state["result"] is not None:
            player.close()
            player = solo_game()
        if watcher.state["legal"]:  # our turn in the AI game: move so that the AI thinks again
            watcher.act(rng.choice(watcher.state["legal"]))
            continue
        if not watcher.state["thinking"]:
            if watcher.state["result"] is None:
                watcher.wait_state()
            continue
        player.act(rng.choice(player.state["legal"]))
        # Still thinking after our answer came back: the AI did not hold up the other game.
        watcher.ws.ping()
        if watcher.state["thinking"] and not _news(watcher):
            answered_while_thinking += 1
    assert answered_while_thinking >= 3
    watcher.close()
    player.close()


def _news(client: Client) -> bool:
    """Read a frame if one is waiting (the AI moved meanwhile)."""
    try:
        client.recv(timeout=0.01)
    except TimeoutError:
        return False
    return True


def test_custom_format_duel_hides_each_build_until_both_are_built(server: ServerProcess) -> None:
    body = server.new_game(kind="friend", format="custom")
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [body["invite"].split("#t=")[1]])
    first = a if a.state["build"] else b
    second = b if first is a else a
    assert first.state["legal"] == [] and not second.state["build"]
    first.act("build " + " ".join(CARD_IDS[:10]))
    while second.state["index"] < 1:
        second.wait_state()
    own = first.state["setup"]["cards"][first.state["seat"]]
    theirs = second.state["setup"]["cards"][first.state["seat"]]
    assert sorted(own) == sorted(CARD_IDS[:10]) and theirs == ["?"] * 10  # R2.5: revealed after both
    final = play_out({a.state["seat"]: a, b.state["seat"]: b}, random.Random(8))
    assert final["result"] is not None
    rec = record_of(server, body["id"])
    assert check_frames(rec, a.state["seat"], a.frames) > 10
    assert check_frames(rec, b.state["seat"], b.frames) > 10
    a.close()
    b.close()


def test_hint_names_a_legal_action_and_what_its_score_is(server: ServerProcess) -> None:
    body = server.new_game(kind="solo", format="precon", deck=1)
    c = Client(server, body["id"], body["tokens"])
    c.send({"type": "hint"})
    while True:
        frame = c.recv(timeout=60)
        if frame["type"] == "hint":
            break
    assert frame["action"] in c.state["legal"] and frame["index"] == c.state["index"]
    assert frame["label"] in ("win chance", "estimated win chance")  # never an unlabelled number
    assert 0.0 <= frame["score"] <= 1.0
    c.close()
