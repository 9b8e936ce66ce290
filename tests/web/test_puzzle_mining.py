"""``clash puzzles mine --from-store`` (issue 39): puzzles from the finished games of a web store made
by the store's own API, deduplicated by position, linked to their game only when its players are
anonymous (a guest, an AI, the automaton), never when an account played it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from clashofdecks.agents.registry import make_agent
from clashofdecks.formats import new_game
from clashofdecks.options import Threat
from clashofdecks.puzzles import Puzzle, load_puzzles
from clashofdecks.record import record_game
from clashofdecks.web.puzzle_mining import mine_store, players_are_anonymous
from clashofdecks.web.store import Store, open_store
from clashofdecks.web.store_rows import GameRow, IdentityRow, SeatRow

SOLO = [p for p in load_puzzles() if p.kind == "solo"]


def _finished_solo_row(game_id: str, seed: int, owner: str | None) -> GameRow:
    """A solo game the shipped solo puzzles come from, played to its end as the web stores one."""
    game = new_game(mode="solo", seed=seed, threat=Threat.level(SOLO[0].source["level"]))
    agent = make_agent(SOLO[0].source["agents"][0], seed)
    while not game.is_over():
        game.apply(agent.act(game))
    head = record_game(game).to_dict()
    return GameRow(
        id=game_id,
        kind="solo",
        mode="solo",
        format=head["format"],
        seed=seed,
        setup={k: head[k] for k in ("ruleset", "threat", "players") if k in head},
        status="over",
        result=head["result"],
        seats=[SeatRow(0, "remote", "Someone", owner=owner), SeatRow(1, "automaton", "Automaton")],
        actions=[(0, text) for text in head["actions"]],
    )


def _store(tmp_path: Path) -> tuple[Store, str]:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    store = open_store(url)
    store.create_identity(IdentityRow(id="guest-1", handle="guest-1", display_name="Guest"), "session-1")
    store.create_identity(
        IdentityRow(id="acct-1", handle="ann", display_name="Ann", username="ann", password_hash="x"),
        "session-2",
    )
    seeds = sorted({p.source["seed"] for p in SOLO})
    store.create_game(_finished_solo_row("game-guest", seeds[0], "guest-1"))
    store.create_game(_finished_solo_row("game-again", seeds[0], None))  # the same positions again
    store.create_game(_finished_solo_row("game-account", seeds[1], "acct-1"))
    return store, url


def test_puzzles_of_finished_web_games_link_only_anonymous_players_games(tmp_path: Path) -> None:
    store, _ = _store(tmp_path)
    rows = {g: store.load_game(g) for g in ("game-guest", "game-again", "game-account")}
    assert players_are_anonymous(store, rows["game-guest"])  # type: ignore[arg-type]
    assert players_are_anonymous(store, rows["game-again"])  # type: ignore[arg-type]
    assert not players_are_anonymous(store, rows["game-account"])  # type: ignore[arg-type]
    found: list[Puzzle] = [p for game in mine_store(store) for p in game]
    store.close()
    seeds = sorted({p.source["seed"] for p in SOLO})
    shipped = {p.id: p for p in SOLO if p.source["seed"] in seeds[:2]}
    ids = [p.id for p in found]
    assert len(ids) == len(set(ids))  # each position once, though two games hold the same ones
    assert set(shipped) <= set(ids)  # the shipped puzzles (mined with a smaller budget) among them
    for puzzle in found:
        assert puzzle.kind == "solo" and puzzle.source["origin"] == "web"
        if puzzle.id in shipped:
            assert puzzle.solution == shipped[puzzle.id].solution
        if puzzle.position["chance"]["seed"] == seeds[0]:
            assert puzzle.source["game"] in ("game-guest", "game-again")  # anonymous players: linked
        else:
            assert "game" not in puzzle.source  # an account played it: no link


def test_clash_puzzles_mine_from_store(tmp_path: Path) -> None:
    _store(tmp_path)[0].close()
    url = f"sqlite:///{tmp_path / 'site.db'}"
    out = tmp_path / "web.json"
    mined = subprocess.run(
        [
            sys.executable,
            "-m",
            "clashofdecks",
            "puzzles",
            "mine",
            "--from-store",
            url,
            "--limit",
            "1",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert mined.returncode == 0, mined.stderr
    assert "1 puzzles from 1 finished web games" in mined.stdout  # the oldest game, anonymous: linked
    assert [p.source["game"] for p in load_puzzles(out)] in (["game-guest"], ["game-again"])
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "clashofdecks",
            "puzzles",
            "mine",
            "--from-store",
            "nosuch://x",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "cannot open the store" in bad.stderr and "Traceback" not in bad.stderr
