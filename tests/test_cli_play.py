"""``clash play`` and ``clash replay`` end to end: the real program, driven through a pseudo-terminal
(pexpect) or with piped standard input, plus in-process checks of undo/save/load/hint."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from clashofdecks import Game
from clashofdecks.cli import play_cmd
from clashofdecks.cli.play_cmd import Session, localised_names
from clashofdecks.formats import new_game, seat_of
from clashofdecks.record import GameRecord, record_game, replay
from clashofdecks.ui.render import render_game

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
CHOICE = re.compile(
    r"(?:^|\s)(\d+)\. ((?:end|next|play|cast|pick|deck|order|ban)\b[^\n]*?)(?=\s{2,}|\s*$)", re.M
)
CLASH = [sys.executable, "-m", "clashofdecks"]


def clean(text: str) -> str:
    return ANSI.sub("", text)


def choices(screen: str) -> dict[int, str]:
    """The numbered actions listed on ``screen``: number -> action text."""
    return {int(n): text.strip() for n, text in CHOICE.findall(clean(screen))}


def spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "clashofdecks", "play", "--no-color", "--pace", "0", *args],
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
        env={**os.environ, "COLUMNS": "200", "LINES": "60"},
    )
    return child


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLASH, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "160"},
    )


# ---------------------------------------------------------------------------- pseudo-terminal


def test_pty_plays_a_complete_solo_quick_game_to_its_end() -> None:
    """The README's first command with a seed: draft (R7.1), then play always choosing the last listed
    action until the game ends (R7.8 / R4.3); the final screen names the winner."""
    child = spawn("--seed", "21")
    prompts = 0
    picks = 0
    while True:
        index = child.expect([r"Player> ", r"clash> "])
        screen = clean(child.before)
        if index == 1:
            break
        listed = choices(screen)
        assert listed, screen[-2000:]
        last = max(listed)
        if listed[last].startswith("pick"):
            picks += 1
            assert len(listed) == 4  # the 4 revealed draft cards
        child.sendline(str(last))
        prompts += 1
        assert prompts < 600, "the game did not end"
    assert picks == 8  # R7.1: the player keeps 8 of 32
    assert "GAME OVER" in screen
    assert re.search(r"(Player|Automaton) wins", screen)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def _expect_prompt(child: pexpect.spawn) -> tuple[str, str]:
    """Wait for a hot-seat prompt; returns (whose prompt, screen before it)."""
    child.expect(r"(Player [12])> ")
    return child.match.group(1), clean(child.before)


def _first(listed: dict[int, str], prefix: str) -> tuple[int, str]:
    return next((n, text) for n, text in sorted(listed.items()) if text.startswith(prefix))


def test_pty_hot_seat_duel_with_undo_save_and_load(tmp_path: Path) -> None:
    """Two humans at one keyboard (precon, R2.3): a few turns, undo, save and load; the screen shows
    what happened, and the waiting player's hand is hidden (R9.2)."""
    saved = tmp_path / "duel.json"
    child = spawn("--mode", "duel", "--vs", "human", "--format", "precon", "--seed", "4")
    # Setup: each player chooses a deck (R2.3): the first listed one.
    for _ in range(2):
        who, screen = _expect_prompt(child)
        listed = choices(screen)
        assert all(text.startswith("deck") for text in listed.values())
        child.sendline("1")
    who, screen = _expect_prompt(child)
    assert "Turn 1" in screen and f"{who} to play" in screen and "mana 6" in screen  # R2.6
    assert "? = hidden card" in screen  # the other player's hand order is hidden

    # The starting player plays a creature into the top lane...
    n, action = _first(choices(screen), "play")
    card = action.split()[1]
    lane = action.split()[2]
    child.sendline(str(n))
    who2, screen = _expect_prompt(child)
    assert who2 == who
    assert f"0.{lane}.0" in screen and card.capitalize()[:4] in screen
    # ... takes it back ...
    child.sendline("undo")
    _, screen = _expect_prompt(child)
    assert f"Undone: {action}" in screen
    assert f"0.{lane}.0" not in screen
    # ... plays it again by its notation, and ends the turn (Summoning, then Combat).
    child.sendline(action)
    _expect_prompt(child)
    child.sendline("end")
    _expect_prompt(child)
    child.sendline("end")
    other, screen = _expect_prompt(child)
    assert other != who
    assert f"Pass the keyboard to {other}" in screen
    assert "Turn 2" in screen and f"0.{lane}.0" in screen  # the first creature is still there

    # The second player plays too, then saves.
    n, action2 = _first(choices(screen), "play")
    child.sendline(action2)
    _, screen = _expect_prompt(child)
    assert f"1.{action2.split()[2]}.0" in screen
    child.sendline(f"save {saved}")
    _, screen = _expect_prompt(child)
    assert f"Game saved to {saved}" in screen
    record = json.loads(saved.read_text())
    assert (
        record["mode"] == "duel" and record["format"] == "precon" and record["players"] == ["human", "human"]
    )
    assert record["actions"][-1] == action2 and record["actions"][-4:-1] == [action, "end", "end"]

    # Play on, then load the saved game: back to the position after the second player's play.
    child.sendline("end")
    _expect_prompt(child)
    child.sendline(f"load {saved}")
    _, screen = _expect_prompt(child)
    assert f"Game loaded from {saved} ({len(record['actions'])} actions replayed)" in screen
    assert "Turn 2" in screen and "Summoning" in screen
    assert f"0.{lane}.0" in screen and f"1.{action2.split()[2]}.0" in screen
    # Undo still works after a load, for the decision of this turn.
    child.sendline("undo")
    _, screen = _expect_prompt(child)
    assert f"Undone: {action2}" in screen
    # Invalid input: a clear message and the same prompt.
    child.sendline("fly away")
    _, screen = _expect_prompt(child)
    assert "I do not understand 'fly away'" in screen
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# ---------------------------------------------------------------------------- piped input, errors


def test_piped_stdin_works_without_a_terminal_and_quits_at_end_of_input() -> None:
    result = run("play", "--seed", "3", stdin="1\nboard\n")
    assert result.returncode == 0, result.stderr
    assert "Draft: Player picks one of the revealed cards" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: plain text
    assert "Traceback" not in result.stderr


def test_precon_deck_option_and_german_screen() -> None:
    result = run("play", "--format", "precon", "--deck", "3", "--seed", "1", "--lang", "de", stdin="quit\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # Deck 3 (R2.3): BRIGAND DISCIPLE GNOME GRRR MARTYR METEORITE PARASITE VORTEX; the hand shows them.
    for name in ("Brigand", "Disciple", "Gnome", "Grrr", "Martyr", "Meteorite", "Parasite", "Vortex"):
        assert name in out
    assert "Zug 1" in out and "Beschwörung" in out and "spielbar" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "solo", "--vs", "greedy"], "--vs chooses the duel opponent"),
        (["--format", "custom"], "custom format is not played in solo"),
        (["--level", "2", "--base-mana", "9"], "cost 3 threat points; level 2 needs exactly 2"),
        (["--mode", "duel", "--level", "1"], "are for solo games"),
        (["--deck", "2"], "--format precon"),
        (["--lang", "xx"], "Invalid value for '--lang'"),
    ],
)
def test_bad_options_give_a_message_and_exit_2_without_traceback(args: list[str], message: str) -> None:
    result = run("play", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_threat_options_without_level_set_the_automaton_r8_2() -> None:
    result = run(
        "play", "--format", "precon", "--deck", "1", "--base-mana", "8", "--ability", "rage", "--seed", "2"
    )
    assert result.returncode == 0
    assert "threat 3" in result.stdout  # 2 points of base mana + 1 ability


def test_load_of_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = run("play", "--load", str(tmp_path / "nope.json"))
    assert result.returncode == 1
    assert "Cannot load" in result.stdout and "nope.json" in result.stdout


# ---------------------------------------------------------------------------- in-process sessions


def make_session(game: Game, lines: list[str], **kw: object) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=160, no_color=True, highlight=False)
    feed = iter(lines)
    session = Session(game=game, console=console, **kw)  # type: ignore[arg-type]
    session.read_line = lambda prompt: next(feed, None)
    return session, out


def test_undo_against_a_computer_takes_back_its_replies_too() -> None:
    """Duel against ``random``: your decision and every computer decision after it in the same turn are
    undone; a decision of an earlier turn is not (that would reveal the opponent's cards, R9)."""
    game = new_game(mode="duel", format="precon", seed=8)
    me = seat_of(game, 0)
    session, out = make_session(
        game,
        [],
        humans=frozenset({me}),
        agents={1 - me: play_cmd.make_agent("random", 1)},
        names=localised_names(("@player", "Random") if me == 0 else ("Random", "@player"), "en"),
        players=("human", "random") if me == 0 else ("random", "human"),
    )
    # Run the setup and reach the human's first Summoning decision.
    while session.game.phase == "setup" or session.game.current_player != me:
        if session.game.current_player == me:
            session.choose("1")
        else:
            session._computer_move(1 - me)
    turn = session.game.turn
    before = len(session.game.history)
    mana = session.game.mana
    play = next(t for t in session.game.legal_action_texts() if t.startswith("play"))
    session.choose(play)
    assert session.game.mana < mana
    session.undo()
    assert len(session.game.history) == before and session.game.mana == mana
    assert f"Undone: {play}" in out.getvalue()
    session.undo()
    assert len(session.game.history) == before  # nothing of this turn is left to undo
    assert session.game.turn == turn


def test_save_and_load_round_trip_through_a_game_record(tmp_path: Path) -> None:
    game = new_game(mode="solo", format="draft", seed=5)
    session, out = make_session(game, [], names=("Player", "Automaton"))
    for _ in range(8):
        session.choose("1")  # the draft (R7.1)
    session.choose("end")
    session.choose("end")  # the automaton's turn resolves
    path = tmp_path / "solo.json"
    session.save(str(path))
    record = GameRecord.load(path)
    assert record.players == ["human", "automaton"] and record.mode == "solo"
    assert replay(record).history == session.game.history
    position = session.game.hand(0), session.game.turn
    session.choose("end")
    assert session.load(str(path))
    assert (session.game.hand(0), session.game.turn) == position
    assert "Game loaded" in out.getvalue()


def test_hint_reports_unavailable_without_the_search_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.random_duel(seed=1)
    session, out = make_session(game, [], humans=frozenset({0, 1}))
    monkeypatch.setattr(play_cmd, "hint_function", lambda: None)
    session.hint()
    assert "Hints are unavailable" in out.getvalue()


def test_hint_names_a_legal_action_and_a_win_chance(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.random_duel(seed=1)
    session, out = make_session(game, [], humans=frozenset({0, 1}))
    legal = game.legal_actions()
    monkeypatch.setattr(play_cmd, "hint_function", lambda: lambda g, s: (legal[-1], 0.625))
    session.hint()
    text = out.getvalue()
    assert f"Hint: {len(legal)}. {game.action_text(legal[-1])}" in text and "62%" in text


# ---------------------------------------------------------------------------- replay


def test_replay_steps_forward_and_back(tmp_path: Path) -> None:
    game = new_game(mode="solo", format="draft", seed=9)
    while game.phase == "setup":
        game.apply(game.legal_actions()[-1])
    game.apply_text("end")
    game.apply_text("end")
    path = tmp_path / "r.json"
    record_game(game, players=["human", "automaton"]).save(path)
    result = run("replay", str(path), stdin="last\nb\nb\n3\nfirst\nxyz\nq\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "action 10 of 10" in out and "action 9 of 10" in out and "action 8 of 10" in out
    assert "action 3 of 10" in out and "start of the game" in out
    assert "Type n, b, a number from 0 to 10" in out
    # Stepping back re-shows the events of the step on screen: the automaton's turn (R7.3).
    assert "The automaton reveals" in out
    full = run("replay", str(path), "--all")
    assert full.returncode == 0 and "(end of the record)" in full.stdout


def test_replay_of_a_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"record_version": 1, "mode": "solo", "format": "draft", "seed": 1, "actions": ["fly"]}')
    result = run("replay", str(path), "--all")
    assert result.returncode == 1
    assert "does not replay" in result.stdout and "Traceback" not in result.stderr


def test_a_computers_custom_build_stays_hidden_until_both_are_built_r2_5() -> None:
    seed = next(s for s in range(50) if seat_of(new_game(mode="duel", format="custom", seed=s), 0) == 1)
    game = new_game(mode="duel", format="custom", seed=seed)
    session, out = make_session(
        game,
        [],
        humans=frozenset({1}),
        agents={0: play_cmd.make_agent("random", 3)},
        names=("Random", "Player"),
        players=("random", "human"),
    )
    session._computer_move(0)  # seat 0 (player A) builds first
    text = out.getvalue()
    assert "Random: build …" in text
    assert "reveals" not in text
    hidden = session.ctx(1)
    console = Console(file=io.StringIO(), width=160, no_color=True, record=True)
    console.print(render_game(session.game, hidden))
    assert "Random's cards (10): ?, ?" in console.export_text()
