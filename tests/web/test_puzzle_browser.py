"""The puzzle page in a real browser (issue 39): one puzzle solved and one failed by tapping the board
as in a game, the rating change shown, the daily puzzle from the lobby, a report sent; axe finds
nothing serious on the puzzle page in any language at phone size."""

from __future__ import annotations

from typing import Any

import pytest
from test_direct_play import LANGS, new_context, serious_violations

from clashofdecks.puzzles import Puzzle, keeps_the_win, load_puzzles
from conftest import ServerProcess

PHONE = {"width": 390, "height": 844}


def tap(page: Any, action: str, moves: int) -> None:
    """The taps a player makes for ``action`` (a hand card then its place, or a phase button), then
    the server's answer to the attempt's ``moves``-th move."""
    verb, *rest = action.split()
    if verb in ("play", "cast"):
        page.click(f"[data-testid=my-hand] [data-select='{rest[0]}']")
        page.click(f"[data-drop='{rest[1]}']")
    else:
        page.click(f"[data-testid={verb}]")
    page.wait_for_selector(f"[data-testid=puzzle-answer][data-moves='{moves}']")


def solver_moves(puzzle: Puzzle) -> list[str]:
    """The stored line's moves the solver taps (the server plays the opponent's answers)."""
    game = puzzle.game()
    mine = []
    for text in puzzle.solution:
        if game.current_player == puzzle.seat:
            mine.append(text)
        game.apply(game.parse_action(text))
    return mine


def tappable(puzzle: Puzzle) -> bool:
    return all(m.split()[0] in ("play", "cast", "end", "next") for m in solver_moves(puzzle))


def wrong_play(puzzle: Puzzle) -> str | None:
    game = puzzle.game()
    for code in game.legal_actions():
        text = game.action_text(code)
        if text.startswith("play ") and not keeps_the_win(game, puzzle.seat, code):
            return text
    return None


def test_one_puzzle_solved_and_one_failed_by_tapping(server: ServerProcess, browser: Any) -> None:
    puzzles = [p for p in load_puzzles() if tappable(p)]
    solved = next(p for p in puzzles if any(m.startswith("play ") for m in solver_moves(p)))
    failed = next(p for p in puzzles if p.id != solved.id and wrong_play(p))
    context = new_context(browser, "en", viewport=PHONE, has_touch=True)
    page = context.new_page()
    page.goto(server.url + "/")
    page.click("[data-testid=daily-puzzle-open]")
    page.wait_for_url("**/puzzle/daily")
    page.wait_for_selector("[data-testid=puzzle] h1")

    page.goto(server.url + f"/puzzle/{solved.id}")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    assert "?" in page.inner_text("[data-testid=opponent-hand]")  # the solver's view only
    moves = solver_moves(solved)
    for i, move in enumerate(moves):
        tap(page, move, i + 1)
        if i < len(moves) - 1:
            assert page.is_visible("[data-testid=puzzle-right]")
    assert page.is_visible("[data-testid=puzzle-solved]")
    change = page.inner_text("[data-testid=puzzle-rating-change]")
    assert "1000 →" in change and "+" in change

    page.goto(server.url + f"/puzzle/{failed.id}")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    wrong = wrong_play(failed)
    assert wrong is not None
    tap(page, wrong, 1)
    assert page.is_visible("[data-testid=puzzle-failed]")
    assert page.locator("[data-testid=puzzle-solution] li").count() >= 2
    assert page.locator("[data-testid=puzzle-followed] li").count() >= 1
    assert "−" in page.inner_text("[data-testid=puzzle-rating-change]")
    assert page.locator("[data-testid=end]").count() == 0  # the attempt is over: no more moves
    # Again: the same puzzle, unrated.
    page.click("[data-testid=puzzle-again]")
    tap(page, solver_moves(failed)[0], 1)
    page.click("[data-testid=puzzle-report]")
    page.fill("[data-testid=puzzle-report-reason]", "looks odd")
    page.click("[data-testid=puzzle-report-send]")
    page.wait_for_selector("[data-testid=puzzle-reported]")
    context.close()


def test_a_solo_puzzle_says_survive_and_is_solved_by_tapping_through_the_automaton_s_turn(
    server: ServerProcess, browser: Any
) -> None:
    """A solo puzzle (survive the automaton's next turn, R7) asks for survival, not a win, and is
    solved once the player's turn ends with the survival proven; a wrong first move (ending the turn
    at once) says some order of the automaton's deck now wins."""
    solo = [p for p in load_puzzles() if p.kind == "solo" and tappable(p)]
    puzzle = next(p for p in solo if all(m.split()[0] in ("play", "end", "next") for m in solver_moves(p)))
    context = new_context(browser, "en", viewport=PHONE, has_touch=True)
    page = context.new_page()
    page.goto(server.url + f"/puzzle/{puzzle.id}")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    assert "Survive the automaton's next turn" in page.inner_text("[data-testid=puzzle]")
    moves = solver_moves(puzzle)
    for i, move in enumerate(moves):
        tap(page, move, i + 1)
    assert "survived the automaton's turn" in page.inner_text("[data-testid=puzzle-solved]")

    page.click("[data-testid=puzzle-again]")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    tap(page, "end", 1)
    assert "some order of the automaton's deck" in page.inner_text("[data-testid=puzzle-failed]")
    context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_puzzle_page_is_axe_clean_at_phone_size(server: ServerProcess, browser: Any, lang: str) -> None:
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python (dev extra) is not installed")
    context = new_context(browser, lang, viewport=PHONE, has_touch=True)
    page = context.new_page()
    page.goto(server.url + "/puzzle/daily")
    page.wait_for_selector("[data-testid=my-hand] [data-select]")
    before = serious_violations(page)
    page.locator("[data-testid=my-hand] [data-select]").first.click()
    chosen = serious_violations(page)
    page.click("[data-testid=end]")
    page.wait_for_selector("[data-testid=puzzle-failed]")
    after = serious_violations(page)
    context.close()
    assert (before, chosen, after) == ([], [], [])
