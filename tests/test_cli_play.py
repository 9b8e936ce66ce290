"""``clash play`` and ``clash replay`` end to end: the real program, driven through a pseudo-terminal
(pexpect, with a pyte terminal emulator where what is *on the screen* matters) or with piped
standard input, plus in-process checks of undo/save/load/hint on the terminal's game session."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pyte
import pytest
from rich.console import Console

from clashofdecks.errors import RecordError
from clashofdecks.formats import new_game, seat_of
from clashofdecks.record import GameRecord, record_game, replay
from clashofdecks.session import FileStore, GameSession, Hint, Seat
from clashofdecks.terminal.game import TerminalGame, score_words, seat_names
from clashofdecks.terminal.render import render_game

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r")
CHOICE = re.compile(
    r"(?:^|\s)(\d+)\. ((?:end|next|play|cast|pick|deck|order|ban)\b[^\n]*?)(?=\s{2,}|\s*$)", re.M
)
CLASH = [sys.executable, "-m", "clashofdecks"]
BINARY = bytes(range(256)) * 4
PRECON_3 = ("--format", "precon", "--deck", "3")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every game of these tests autosaves into a fresh folder, never into the user's data folder."""
    folder = tmp_path / "data"
    monkeypatch.setenv("CLASH_DATA_DIR", str(folder))
    yield folder


def clean(text: str) -> str:
    return ANSI.sub("", text)


def choices(screen: str) -> dict[int, str]:
    """The numbered actions listed on ``screen``: number -> action text."""
    return {int(n): text.strip() for n, text in CHOICE.findall(clean(screen))}


class Screen:
    """What a terminal of ``lines``×``columns`` shows, fed with everything the program writes."""

    def __init__(self, lines: int, columns: int) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.Stream(self.screen)

    def write(self, data: str) -> None:
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)


def spawn(*args: str, lines: int = 60, columns: int = 200, command: str = "play") -> pexpect.spawn:
    extra = ["--no-color", "--pace", "0"] if command == "play" else ["--no-color"]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "clashofdecks", command, *extra, *args],
        encoding="utf-8",
        dimensions=(lines, columns),
        timeout=30,
        env={**os.environ, "COLUMNS": str(columns), "LINES": str(lines), "TERM": "xterm"},
        # Background jobs may start with SIGINT ignored; the game must see Ctrl-C like a terminal's.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
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


def saved_games(folder: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((folder / "games").glob("*.json"))]


# ---------------------------------------------------------------------------- pseudo-terminal


def test_pty_plays_a_complete_solo_quick_game_to_its_end(data_dir: Path) -> None:
    """The README's first command with a seed: draft (R7.1), then play always choosing the last listed
    action until the game ends (R7.8 / R4.3); the final screen names the winner and offers only what
    works once the game is over."""
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
    assert "player 0" not in screen and "player 1" not in screen  # names, not seat numbers
    assert "The game is over. Type save FILE, load FILE, board or quit." in screen
    assert "undo" not in screen.split("GAME OVER")[-1]
    child.sendline("undo")
    child.expect(r"clash> ")
    assert "The game is over. Type" in clean(child.before)  # no undo once it is over
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0
    [saved] = saved_games(data_dir)
    assert saved["record"]["result"] is not None  # type: ignore[index]


def _expect_prompt(child: pexpect.spawn, handovers: list[str] | None = None) -> tuple[str, str]:
    """Wait for a hot-seat prompt, pressing Enter at each handover screen (recorded in ``handovers``);
    returns (whose prompt, screen before it)."""
    while True:
        index = child.expect([r"(Player [12])> ", r"\[Enter\] "])
        if index == 0:
            return child.match.group(1), clean(child.before)
        if handovers is not None:
            handovers.append(clean(child.before))
        child.sendline("")


def _first(listed: dict[int, str], prefix: str) -> tuple[int, str]:
    return next((n, text) for n, text in sorted(listed.items()) if text.startswith(prefix))


def _hot_seat_seed(player_two_starts: bool) -> int:
    return next(
        s
        for s in range(100)
        if (seat_of(new_game(mode="duel", format="precon", seed=s), 0) == 1) == player_two_starts
    )


def test_pty_hot_seat_duel_with_handover_undo_save_and_load(tmp_path: Path) -> None:
    """Two humans at one keyboard (precon, R2.3), the coin toss seating Player 2 first: deck numbers
    are the deck table's; each change of player hides the screen until Enter, so the other player
    never sees the next hand (R9.2); undo, save and load; names stay with the people after a load."""
    saved = tmp_path / "duel.json"
    seed = _hot_seat_seed(player_two_starts=True)
    child = spawn("--mode", "duel", "--vs", "human", "--format", "precon", "--seed", str(seed))
    child.expect("Player 2 starts")
    handovers: list[str] = []
    who, screen = _expect_prompt(child, handovers)
    assert who == "Player 2"
    assert choices(screen) == {1: "deck 1", 2: "deck 2", 3: "deck 3", 4: "deck 4"}
    child.sendline("1")
    who, screen = _expect_prompt(child, handovers)
    assert who == "Player 1" and len(handovers) == 1
    assert "Pass the keyboard to Player 1" in handovers[0]
    # Deck 1 is taken: the numbers offered are the numbers of the decks in the table (R2.3).
    assert choices(screen) == {2: "deck 2", 3: "deck 3", 4: "deck 4"}
    child.sendline("1")
    _, screen = _expect_prompt(child, handovers)
    assert "There is no choice 1: choose 2, 3, 4." in screen
    child.sendline("3")
    who, screen = _expect_prompt(child, handovers)
    assert who == "Player 2" and len(handovers) == 2
    # What the waiting player saw before Enter: the handover text, and no hand.
    assert "hand" not in handovers[1].split("Pass the keyboard")[-1]
    assert "Turn 1" in screen and "Player 2 to play" in screen and "mana 6" in screen  # R2.6
    assert "? = hidden card" in screen  # the other player's hand order is hidden
    assert "Player 1 chooses deck 3" in screen  # shown again after the handover

    # The starting player plays a creature...
    n, action = _first(choices(screen), "play")
    lane = action.split()[2]
    child.sendline(str(n))
    who2, screen = _expect_prompt(child, handovers)
    assert who2 == who
    assert f"0.{lane}.0" in screen
    # ... takes it back ...
    child.sendline("undo")
    _, screen = _expect_prompt(child, handovers)
    assert f"Undone: {action}" in screen
    assert f"0.{lane}.0" not in screen.split("Undone")[-1]
    # ... plays it again by its notation, and ends the turn (Summoning, then Combat).
    child.sendline(action)
    _expect_prompt(child, handovers)
    child.sendline("end")
    _expect_prompt(child, handovers)
    child.sendline("end")
    other, screen = _expect_prompt(child, handovers)
    assert other == "Player 1" and len(handovers) == 3
    assert "Turn 2" in screen and f"0.{lane}.0" in screen

    # The second player plays too, then saves.
    n, action2 = _first(choices(screen), "play")
    child.sendline(action2)
    _, screen = _expect_prompt(child, handovers)
    child.sendline(f"save {saved}")
    _, screen = _expect_prompt(child, handovers)
    assert f"Game saved to {saved}" in screen
    record = json.loads(saved.read_text())
    assert record["players"] == ["human", "human"]
    assert record["actions"][-1] == action2 and record["actions"][-4:-1] == [action, "end", "end"]

    # Play on, then load the saved game: the same position, the same people in the same seats.
    child.sendline("end")
    _expect_prompt(child, handovers)
    child.sendline(f"load {saved}")
    who3, screen = _expect_prompt(child, handovers)
    loaded = f"Game loaded from {saved} ({len(record['actions'])} actions replayed)"
    assert loaded in handovers[-1]  # then the screen is hidden until the player to move is there
    assert "Pass the keyboard to Player 1" in handovers[-1]
    assert who3 == "Player 1"  # seat 1 is still Player 1 (the coin toss seated Player 2 first)
    assert "Turn 2 · Player 1 to play · Summoning" in screen
    # Undo still works after a load, for the decision of this turn.
    child.sendline("undo")
    _, screen = _expect_prompt(child, handovers)
    assert f"Undone: {action2}" in screen
    # Invalid input: a clear message and the same prompt.
    child.sendline("fly away")
    _, screen = _expect_prompt(child, handovers)
    assert "I do not understand 'fly away'" in screen
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0


def test_pty_screen_fits_80x24_with_the_fortresses_board_and_choices(tmp_path: Path) -> None:
    """At 80×24 every decision's screen shows, on the terminal at once, the status, the automaton's
    fortress line, the board's lanes, the player's fortress line and the choices."""
    term = Screen(24, 80)
    child = spawn("--seed", "3", lines=24, columns=80)
    child.logfile_read = term
    checked = 0
    for _ in range(24):
        child.expect(r"Player> ")
        child.expect(r"$")  # let the emulator catch up with the prompt
        shown = term.text()
        listed = choices(shown)
        assert listed, shown
        if "Turn" in shown:
            assert re.search(r"^Automaton · Bastion · \d+ places? left", shown, re.M), shown
            assert re.search(r"^Player's hand \(\d+\) · (Bastion|Fort) · \d+ places? left", shown, re.M), (
                shown
            )
            assert re.search(r"^top ", shown, re.M) and re.search(r"^bottom ", shown, re.M), shown
            assert re.search(r"^Turn \d+ · Player to play", shown, re.M), shown
            checked += 1
        text = listed[max(listed)]
        if text.startswith("play") or text.startswith("pick"):
            child.sendline(str(max(listed)))
        else:
            child.sendline("1")
    assert checked >= 10
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_pty_ctrl_c_during_a_hint_cancels_only_the_hint() -> None:
    child = spawn("--format", "precon", "--deck", "1", "--seed", "5", "--hint-seconds", "60")
    child.expect(r"Player> ")
    child.sendline("hint")
    child.expect("Ctrl-C cancels the hint")
    child.sendintr()
    child.expect("Hint cancelled.")
    child.expect(r"Player> ")
    child.sendline("board")  # the game goes on
    child.expect(r"Player> ")
    assert "Turn 1 · Player to play" in clean(child.before)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.wait()
    assert "Bye." in clean(child.before) and "Interrupted" not in clean(child.before)
    assert child.exitstatus == 0, (child.signalstatus, clean(child.before))


def test_pty_ctrl_c_at_the_prompt_keeps_the_game_and_resume_continues_it(data_dir: Path) -> None:
    child = spawn("--format", "precon", "--deck", "2", "--seed", "6")
    child.expect(r"Player> ")
    child.sendline("end")
    child.expect(r"Player> ")
    child.sendline("end")  # the automaton's turn resolves (R7)
    child.expect(r"Player> ")
    screen = clean(child.before)
    turn = re.findall(r"Turn (\d+) · Player to play", screen)[-1]
    child.sendintr()
    child.expect(r"The game is saved in (\S+);\s*clash play --resume continues it")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 130
    assert path.parent == data_dir / "games" and path.exists()
    record = json.loads(path.read_text())["record"]
    assert record["actions"] == ["deck 2", "end", "end"] and record["result"] is None

    resumed = spawn("--resume")
    resumed.expect(r"Continuing the game saved in .* \(3 actions\)")
    resumed.expect(r"Player> ")
    assert f"Turn {turn} · Player to play · Summoning" in clean(resumed.before)
    resumed.sendline("end")
    resumed.expect(r"Player> ")
    resumed.sendeof()  # Ctrl-D: leaves, and says where the game is
    resumed.expect("clash play --resume continues it")
    resumed.expect(pexpect.EOF)
    resumed.wait()
    assert resumed.exitstatus == 0
    assert json.loads(path.read_text())["record"]["actions"] == ["deck 2", "end", "end", "end"]


def test_pty_save_refuses_to_replace_a_file_without_force_and_expands_home(tmp_path: Path) -> None:
    existing = tmp_path / "mine.json"
    existing.write_text("precious\n")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "clashofdecks", "play", "--no-color", "--pace", "0", "--format", "precon", "--deck", "1"],
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
        env={**os.environ, "HOME": str(tmp_path), "COLUMNS": "200", "LINES": "60"},
    )
    child.expect(r"Player> ")
    child.sendline("save ~/mine.json")
    child.expect(r"Player> ")
    assert "~/mine.json already exists: save ~/mine.json --force replaces it." in clean(child.before)
    assert existing.read_text() == "precious\n"
    child.sendline("save ~/mine.json --force")
    child.expect(r"Player> ")
    assert "Game saved to ~/mine.json (1 action)." in clean(child.before)  # singular
    assert json.loads(existing.read_text())["actions"] == ["deck 1"]
    child.sendline("save ~/new.json")
    child.expect(r"Player> ")
    assert (tmp_path / "new.json").exists()
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_pty_binary_file_given_to_load_is_a_clear_error_and_the_game_goes_on(tmp_path: Path) -> None:
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(BINARY)
    child = spawn("--format", "precon", "--deck", "1", "--seed", "2")
    child.expect(r"Player> ")
    child.sendline(f"load {binary}")
    child.expect(r"Player> ")
    out = clean(child.before)
    assert "Cannot load" in out and "not a game record (not UTF-8 text)" in out
    assert "Traceback" not in out
    child.sendline("end")
    child.expect(r"Player> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0


def test_pty_input_typed_while_the_automaton_plays_is_discarded() -> None:
    """A line typed during the automaton's paced turn must not become the next decision unseen."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "clashofdecks", "play", "--no-color", "--pace", "0.4", "--seed", "4", *PRECON_3],
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
        env={**os.environ, "COLUMNS": "200", "LINES": "60"},
    )
    child.expect(r"Player> ")
    child.sendline("end")
    child.expect(r"Player> ")
    child.sendline("end")  # the automaton's turn: paced
    child.expect("Turn 2")
    child.sendline("2")  # typed while the automaton plays
    child.expect(r"Player> ")
    out = clean(child.before)
    assert "Input typed while Automaton played was ignored" in out
    child.sendline("board")
    child.expect(r"Player> ")
    assert "Turn 3 · Player to play · Summoning" in clean(child.before)  # the "2" was not applied
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_pty_tab_completion_and_history_at_the_prompt() -> None:
    """readline at a terminal: Tab completes commands and the notation of legal actions, the up
    arrow brings back the previous line."""
    child = spawn("--format", "precon", "--deck", "1", "--seed", "7")
    child.expect(r"Player> ")
    child.send("boa\t\r")  # "board" by completion
    child.expect(r"Player> ")
    out = clean(child.before)
    assert "Turn 1 · Player to play" in out and "do not understand" not in out
    _, action = _first(choices(out), "play")  # e.g. play BRUTE top
    card = action.split()[1]
    child.send(f"pl\t{card[:4].lower()}\t")  # play + the card's id, completed from four letters
    child.expect(f"{card} ")
    child.send("t\t\r")  # top
    child.expect(r"Player> ")
    played = f"Player plays {card.capitalize()[:4]}"
    assert played in clean(child.before)
    child.send("undo\r")
    child.expect(r"Player> ")
    child.send("\x1b[A\x1b[A\r")  # two lines back: play CARD top
    child.expect(r"Player> ")
    assert played in clean(child.before)
    child.sendline("quit")
    child.expect(pexpect.EOF)


# ---------------------------------------------------------------------------- piped input, errors


def test_piped_stdin_works_without_a_terminal_and_quits_at_end_of_input() -> None:
    result = run("play", "--seed", "3", stdin="1\nboard\n")
    assert result.returncode == 0, result.stderr
    assert "Draft: Player picks one of the revealed cards" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: plain text
    assert "Traceback" not in result.stderr
    assert "clash play --resume continues it" in result.stdout


def test_precon_deck_option_and_german_screen() -> None:
    result = run("play", "--format", "precon", "--deck", "3", "--seed", "1", "--lang", "de", stdin="quit\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # Deck 3 (R2.3): BRIGAND DISCIPLE GNOME GRRR MARTYR METEORITE PARASITE VORTEX; the hand shows them.
    for name in ("Brigand", "Disciple", "Gnome", "Grrr", "Martyr", "Meteorite", "Parasite", "Vortex"):
        assert name in out
    assert "Zug 1" in out and "Beschwörung" in out and "spielbar" in out
    assert "Solo · vorgefertigte Decks · Seed 1" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "solo", "--vs", "greedy"], "--vs chooses the duel opponent"),
        (["--format", "custom"], "custom format is not played in solo"),
        (["--level", "2", "--base-mana", "9"], "cost 3 threat points; level 2 needs exactly 2"),
        (["--mode", "duel", "--level", "1"], "are for solo games"),
        (["--deck", "2"], "--format precon"),
        (["--lang", "xx"], "Invalid value for '--lang'"),
        (["--resume", "--load", "x.json"], "choose one"),
        (["--vs", "nobody"], "unknown agent 'nobody'"),
        (["--vs", "ismcts:100,setup=clever"], "unknown setup choice 'clever'"),
    ],
)
def test_bad_options_give_a_message_and_exit_2_without_traceback(args: list[str], message: str) -> None:
    result = run("play", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unwritable_autosave_folder_is_said_at_once_and_the_game_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be\n")
    result = subprocess.run(
        [*CLASH, "play", "--format", "precon", "--deck", "1", "--seed", "2"],
        input="end\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "160", "CLASH_DATA_DIR": str(blocker)},
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("The game was not saved automatically") >= 2  # at the start and when leaving
    assert "save FILE keeps it" in out and "Combat" in out and "Traceback" not in result.stderr


def test_help_states_the_exit_statuses() -> None:
    out = " ".join(run("play", "--help").stdout.split())
    assert "Exit status: 0 after quit or at the end of input, 1 when a saved game cannot be loaded" in out
    assert "130 after Ctrl-C" in out
    assert "Exit status: 0 at the end, 1 when FILE cannot be read" in " ".join(
        run("replay", "--help").stdout.split()
    )


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


@pytest.mark.parametrize("command", ["play --load", "replay"])
def test_a_binary_file_is_a_clear_error_exit_1(tmp_path: Path, command: str) -> None:
    binary = tmp_path / "game.json"
    binary.write_bytes(BINARY)
    result = run(*command.split(), str(binary))
    assert result.returncode == 1
    assert "not a game record (not UTF-8 text)" in result.stdout
    assert "Traceback" not in result.stderr and "UnicodeDecodeError" not in result.stderr


def test_resume_without_a_saved_game_says_so_exit_1(data_dir: Path) -> None:
    result = run("play", "--resume")
    assert result.returncode == 1
    assert f"No unfinished game to resume in {data_dir / 'games'}" in result.stdout


def test_an_unknown_agent_in_a_saved_game_is_an_error_not_a_human_seat(tmp_path: Path) -> None:
    game = new_game(mode="duel", format="precon", seed=3)
    path = tmp_path / "g.json"
    record_game(game, players=["human", "deepthought"]).save(path)
    result = run("play", "--load", str(path))
    assert result.returncode == 1
    assert "deepthought" in result.stdout and "nobody can play" in result.stdout
    assert "hand" not in result.stdout


# ---------------------------------------------------------------------------- in-process sessions


def make_terminal(session: GameSession, lines: list[str] | None = None) -> tuple[TerminalGame, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=160, no_color=True, highlight=False)
    feed = iter(lines or [])
    terminal = TerminalGame(
        session=session,
        console=console,
        read_line=lambda prompt: next(feed, None),
        names=seat_names(session, "en"),
    )
    return terminal, out


def test_undo_against_a_computer_takes_back_its_replies_too() -> None:
    """Duel against ``random``: your decision and every computer decision after it in the same turn are
    undone; a decision of an earlier turn is not (that would reveal the opponent's cards, R9)."""
    session = GameSession.new(
        mode="duel", format="precon", seed=8, participants=[Seat.human(), Seat.agent_seat("random")]
    )
    me = session.participant_seat(0)
    terminal, out = make_terminal(session)
    while session.game.phase == "setup" or session.to_move != me:
        if session.to_move == me:
            terminal.choose(str(terminal_choices(terminal)[0][0]))
        else:
            terminal._computer_move()
    turn = session.game.turn
    before = len(session.steps)
    mana = session.game.mana
    play = next(t for t in session.legal_actions(me) if t.startswith("play"))
    terminal.choose(play)
    assert session.game.mana < mana
    terminal.undo()
    assert len(session.steps) == before and session.game.mana == mana
    assert f"Undone: {play}" in out.getvalue()
    terminal.undo()
    assert len(session.steps) == before  # nothing of this turn is left to undo
    assert "Nothing to undo" in out.getvalue()
    assert session.game.turn == turn


def terminal_choices(terminal: TerminalGame) -> list[tuple[int, str]]:
    from clashofdecks.terminal.render import numbered_choices

    return numbered_choices(terminal.game, terminal.action_texts())


def test_save_and_load_round_trip_through_a_game_record(tmp_path: Path) -> None:
    session = GameSession.new(mode="solo", format="draft", seed=5, participants=[Seat.human()])
    terminal, out = make_terminal(session)
    for _ in range(8):
        terminal.choose("1")  # the draft (R7.1)
    terminal.choose("end")
    terminal.choose("end")  # the automaton's turn resolves
    path = tmp_path / "solo.json"
    terminal.save(str(path))
    record = GameRecord.load(path)
    assert record.players == ["human", "automaton"] and record.mode == "solo"
    assert replay(record).history == terminal.game.history
    position = terminal.game.hand(0), terminal.game.turn
    terminal.choose("end")
    assert terminal.load(str(path))
    assert (terminal.game.hand(0), terminal.game.turn) == position
    assert "Game loaded" in out.getvalue()


def test_hot_seat_names_follow_the_people_through_save_and_load(tmp_path: Path) -> None:
    seed = _hot_seat_seed(player_two_starts=True)
    session = GameSession.new(
        mode="duel",
        format="precon",
        seed=seed,
        participants=[Seat.human(), Seat.human()],
        allow_undo_between_people=True,
    )
    assert seat_names(session, "en") == ("Player 2", "Player 1")
    terminal, _ = make_terminal(session)
    terminal.choose("deck 1")
    path = tmp_path / "h.json"
    terminal.save(str(path))
    assert terminal.load(str(path))
    assert terminal.names == ("Player 2", "Player 1")
    assert seat_names(terminal.session, "de") == ("Spieler 2", "Spieler 1")


def test_autosave_after_each_action_in_the_store(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "games")
    session = GameSession.new(mode="solo", format="precon", seed=2, participants=[Seat.human()], store=store)
    terminal, _ = make_terminal(session)
    terminal.choose("deck 4")
    assert store.load(session.id).actions == ["deck 4"]
    terminal.choose("end")
    assert store.load(session.id).actions == ["deck 4", "end"]
    assert store.latest() == session.id


def test_ctrl_c_while_the_computer_thinks_keeps_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clashofdecks.terminal.game import SafeStore

    store = SafeStore(tmp_path / "games")
    seed = _hot_seat_seed(player_two_starts=True)  # the computer (participant 1) decides first
    session = GameSession.new(
        mode="duel",
        format="precon",
        seed=seed,
        participants=[Seat.human(), Seat.agent_seat("greedy")],
        store=store,
    )
    store.save(session)
    terminal, out = make_terminal(session)
    terminal.store = store

    def interrupted(self: GameSession, max_steps: int | None = None) -> list[object]:
        raise KeyboardInterrupt

    monkeypatch.setattr(GameSession, "advance_agents", interrupted)
    assert terminal.run() == 130
    text = out.getvalue()
    assert "Interrupted (Ctrl-C)." in text
    assert f"The game is saved in {store.path(session.id)}; clash play --resume continues it." in text
    assert store.latest() == session.id


def test_hint_is_labelled_as_a_rollout_score_not_a_win_chance(monkeypatch: pytest.MonkeyPatch) -> None:
    session = GameSession.new(mode="solo", format="precon", seed=1, participants=[Seat.human()])
    terminal, out = make_terminal(session)
    terminal.choose("deck 1")
    legal = session.legal_actions(0)
    monkeypatch.setattr(GameSession, "hint", lambda self, seat, **kw: Hint(legal[-1], 0.142, "rollout score"))
    terminal.hint()
    text = out.getvalue()
    assert f"Hint: {len(legal)}. {legal[-1]}  (rollout score 0.14, not a win chance)" in text
    assert "%" not in text.split("Hint:")[-1]
    assert score_words("win chance", 0.7, "de") == "Gewinnchance 70%"
    assert (
        score_words("estimated win chance", 0.7, "de") == "geschätzte Gewinnchance 70%, noch nicht kalibriert"
    )


def test_a_real_hint_names_a_legal_action() -> None:
    session = GameSession.new(mode="solo", format="precon", seed=1, participants=[Seat.human()])
    terminal, out = make_terminal(session)
    terminal.choose("deck 1")
    terminal.hint_seconds = 0.2
    terminal.hint()
    line = next(line for line in out.getvalue().splitlines() if line.startswith("Hint:"))
    action = re.match(r"Hint: \d+\. (.+?)  \((estimated )?win chance \d+%", line)
    assert action and action.group(1) in session.legal_actions(0)


class FakeReadline:
    """The three calls of the ``readline`` module a completer makes, for a given line."""

    def __init__(self, line: str) -> None:
        self.line = line

    def get_line_buffer(self) -> str:
        return self.line

    def get_begidx(self) -> int:
        return self.line.rfind(" ") + 1

    def get_endidx(self) -> int:
        return len(self.line)


def completions_of(reader: object, line: str) -> list[str]:
    from clashofdecks.terminal.line_reader import LineReader

    assert isinstance(reader, LineReader)
    reader._readline = FakeReadline(line)
    text = line[line.rfind(" ") + 1 :]
    out = []
    while (word := reader._complete(text, len(out))) is not None:
        out.append(word)
    return out


def test_tab_completion_offers_commands_actions_and_card_ids_for_a_custom_deck() -> None:
    from clashofdecks.terminal.line_reader import LineReader

    session = GameSession.new(
        mode="duel", format="custom", seed=2, participants=[Seat.human(), Seat.agent_seat("random")]
    )
    terminal, _ = make_terminal(session)
    reader = LineReader(terminal.console)
    reader.completions = terminal.completion_texts
    reader.words = terminal.typed_words
    if session.is_agent_turn():
        terminal._computer_move()
    assert session.is_build_stage()
    assert completions_of(reader, "bu") == ["build "]
    assert completions_of(reader, "h") == ["help", "hint"]
    assert completions_of(reader, "build BRUTE ca") == ["CARAPACE ", "CARNIVORE "]
    precon = GameSession.new(mode="solo", format="precon", seed=2, participants=[Seat.human()])
    terminal, _ = make_terminal(precon)
    reader.completions = terminal.completion_texts
    reader.words = terminal.typed_words
    assert completions_of(reader, "de") == ["deck "]
    assert completions_of(reader, "deck ") == ["1", "2", "3", "4"]
    assert completions_of(reader, "deck 3 x") == []


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
    session = GameSession.new(
        mode="duel", format="custom", seed=seed, participants=[Seat.human(), Seat.agent_seat("random")]
    )
    assert session.participant_seat(0) == 1
    terminal, out = make_terminal(session)
    terminal._computer_move()  # seat 0 (player A) builds first
    text = out.getvalue()
    assert "Random: build …" in text
    assert "reveals" not in text
    hidden = terminal.ctx(1)
    console = Console(file=io.StringIO(), width=160, no_color=True, record=True)
    console.print(render_game(session.game, hidden))
    assert "Random's cards (10): ?, ?" in console.export_text()


def test_threat_text_is_the_same_syntax_as_arena_and_simulate_the_flags_are_aliases() -> None:
    """One threat-option syntax everywhere (``--threat``), the separate flags kept as its aliases."""
    text = run(
        "play", "--format", "precon", "--deck", "1", "--threat", "base_mana=8,abilities=rage", "--seed", "2"
    )
    flags = run(
        "play", "--format", "precon", "--deck", "1", "--base-mana", "8", "--ability", "rage", "--seed", "2"
    )
    assert text.returncode == flags.returncode == 0, text.stderr
    # The same game (the saved file's name, a fresh session id, aside).
    assert "threat 3" in text.stdout and text.stdout.split("games/")[0] == flags.stdout.split("games/")[0]
    both = run("play", "--threat", "base_mana=8", "--ability", "rage")
    assert both.returncode == 2 and "not both" in both.stderr
    level = run("play", "--level", "2", "--threat", "base_mana=9")
    assert level.returncode == 2 and "level 2 needs exactly 2" in level.stderr
    bad = run("play", "--threat", "base_mana=lots")
    assert bad.returncode == 2 and "base_mana must be an integer" in bad.stderr


def test_an_autosaved_game_replays_and_loads_like_its_record(tmp_path: Path) -> None:
    """The terminal's autosave (FileStore: the record with its seats' names) is a file `clash replay`,
    `clash play --load` and GameRecord.load read (it once said "unknown key 'names' in game record")."""
    store = FileStore(tmp_path / "games")
    session = GameSession.new(mode="solo", format="precon", seed=2, participants=[Seat.human()], store=store)
    terminal, _ = make_terminal(session)
    terminal.choose("deck 4")
    terminal.choose("end")
    saved = store.path(session.id)
    assert set(json.loads(saved.read_text())) == {"session_id", "names", "record"}
    assert GameRecord.load(saved).actions == ["deck 4", "end"]
    full = run("replay", str(saved), "--all")
    assert full.returncode == 0, full.stdout + full.stderr
    assert "(end of the record)" in full.stdout and "unknown key" not in full.stdout
    # Anything else around a record stays an error, never silently unwrapped.
    other = tmp_path / "other.json"
    record = json.loads(saved.read_text())["record"]
    other.write_text(json.dumps({"session_id": "x", "record": record, "x": 1}))
    with pytest.raises(RecordError):
        GameRecord.load(other)


def test_rule_numbers_are_shown_only_when_asked(tmp_path: Path) -> None:
    """Players see event lines without rule numbers; `--rule-numbers` adds them (issue 34)."""
    game = new_game(mode="solo", format="draft", seed=9)
    while game.phase == "setup":
        game.apply(game.legal_actions()[-1])
    game.apply_text("end")
    path = tmp_path / "r.json"
    record_game(game, players=["human", "automaton"]).save(path)
    plain = run("replay", str(path), "--all")
    numbered = run("replay", str(path), "--all", "--rule-numbers")
    assert plain.returncode == 0 and numbered.returncode == 0
    assert "[R2.4]" in numbered.stdout and "(R3.2)" in numbered.stdout
    assert "[R" not in plain.stdout and "(R3.2)" not in plain.stdout
    session = run("play", "--mode", "solo", "--seed", "9", stdin="1\n1\nquit\n")
    assert "Player picks" in session.stdout and "[R" not in session.stdout
    asked = run("play", "--mode", "solo", "--seed", "9", "--rule-numbers", stdin="1\n1\nquit\n")
    assert "Player picks" in asked.stdout and "[R2.4]" in asked.stdout
