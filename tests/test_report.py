"""The balance report (issue 12): rendered from a small store made here, every figure present as an
embedded SVG naming its sample size, figures that agree with the games, no network resource."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main
from clashofdecks.simulation.batch import ALL_DECK_PAIRS, SimConfig, run_games
from clashofdecks.simulation.game import GameResult
from clashofdecks.simulation.report import SECTIONS, Report, build_report
from clashofdecks.simulation.stats import wilson_interval
from clashofdecks.simulation.store import RunInfo, StoreWriter

pytest.importorskip("pyarrow", reason="the analysis extra (pip install '.[analysis]') is not installed")
pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")

RUNS = (
    SimConfig(mode="duel", agents=("random", "random"), games=24, seed=1, format="draft", card_stats=True),
    SimConfig(
        mode="duel",
        agents=("random", "random"),
        games=24,
        seed=2,
        format="precon",
        card_stats=True,
        deck_pairs=ALL_DECK_PAIRS,
    ),
    SimConfig(mode="solo", agents=("random",), games=16, seed=3, level=0, format="draft", card_stats=True),
    SimConfig(mode="solo", agents=("random",), games=16, seed=3, level=5, format="precon", card_stats=True),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, list[GameResult]]]:
    root = tmp_path_factory.mktemp("store")
    played: dict[int, list[GameResult]] = {}
    for k, config in enumerate(RUNS):
        rows: list[GameResult] = []
        run_games(config, workers=1, on_chunk=rows.extend)
        played[k] = rows
        info = RunInfo(f"run{k}", config.mode, config.format, config.max_turns, config.solo_threat())
        writer = StoreWriter(root, info)
        writer.add(rows)
        writer.close()
    return root, played


@pytest.fixture(scope="module")
def report(store: tuple[Path, dict[int, list[GameResult]]]) -> Report:
    return build_report(store[0], command="clash report store -o report.html")


def _svgs(page: str) -> dict[str, ET.Element]:
    """Each section's embedded figure, parsed."""
    out = {}
    for part in page.split('<section id="')[1:]:
        section = part.split('"', 1)[0]
        found = re.search(r'<img alt="[^"]*" src="data:image/svg\+xml;base64,([^"]+)">', part)
        if found:
            out[section] = ET.fromstring(base64.b64decode(found.group(1)))
    return out


def test_every_figure_is_present_with_its_sample_size(report: Report) -> None:
    page = report.html
    assert [s.id for s in report.sections] == list(SECTIONS)
    svgs = _svgs(page)
    assert sorted(svgs) == sorted(SECTIONS)
    for section, svg in svgs.items():
        assert svg.tag.endswith("svg"), section
        texts = " ".join(t.text or "" for t in svg.iter() if t.tag.endswith("text"))
        assert re.search(r"n = [\d,]+", texts), f"{section}'s figure names no sample size: {texts[:200]}"
    for s in report.sections:
        assert re.search(r"\d", s.sample), s.id
        assert f'<section id="{s.id}">' in page
    assert '<section id="findings">' in page and '<section id="runs">' in page
    assert "clash report store -o report.html" in page


def test_the_page_is_self_contained(report: Report) -> None:
    page = report.html
    assert "<script" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "@import" not in page and "url(" not in page


def test_figures_agree_with_the_games(
    report: Report, store: tuple[Path, dict[int, list[GameResult]]]
) -> None:
    _, played = store
    sections = {s.id: s for s in report.sections}
    # Solo: win rate per level, wins / games with the Wilson interval.
    levels = sections["solo-levels"].table[1:]
    for config_index, points in ((2, "0"), (3, "5")):
        results = played[config_index]
        wins = sum(r.winner == 0 for r in results)
        low, high = wilson_interval(wins, len(results))
        row = next(r for r in levels if r[1] == points)
        assert row[0] == "random"
        rate = f"{100 * wins / len(results):.1f}%"
        assert row[2] == f"{rate} (95% CI {100 * low:.1f}–{100 * high:.1f}%, n = {len(results):,})"
    # Game length: every game counted once, by mode and format.
    lengths = {r[0]: int(r[1].replace(",", "")) for r in sections["game-length"].table[1:]}
    assert lengths == {"duel draft": 24, "duel precon": 24, "solo draft": 16, "solo precon": 16}
    assert report.games == 80
    # Card win rates come from the mirror draft duels: 16 rows per game (8 per seat), draws left out.
    draft = played[0]
    decided = sum(r.winner is not None for r in draft)
    assert (
        sections["card-win-rates"].sample
        == f"24 draft duels between equal agents; {decided * 16:,} card-seat rows (draws left out)"
    )
    # Deck against deck: all 12 ordered pairings (--decks rotate), each deck's wins from both seats.
    precon = played[1]
    matrix = {(r[0], r[1]): r[2] for r in sections["deck-matrix"].table[1:]}
    assert len(matrix) == 12
    for (d, o), text in matrix.items():
        a, b = int(d.split()[1]), int(o.split()[1])
        games = [r for r in precon if set(r.decks) == {a, b} and r.winner is not None]
        wins = sum(r.decks[r.winner] == a for r in games)
        assert text.startswith(f"{100 * wins / len(games):.1f}% ") and text.endswith(f"n = {len(games)})")
    # Level runs vary base_mana and starts: both are broken down.
    options = {(r[1], r[2]) for r in sections["solo-options"].table[1:]}
    assert {("base_mana", "6"), ("base_mana", "10"), ("starts", "player"), ("starts", "automaton")} <= options


def test_clash_report_writes_the_file(
    store: tuple[Path, dict[int, list[GameResult]]], tmp_path: Path
) -> None:
    out = tmp_path / "out" / "report.html"
    result = CliRunner().invoke(main, ["report", str(store[0]), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "7 of 7 figures" in result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    empty = CliRunner().invoke(main, ["report", str(tmp_path / "out"), "-o", str(tmp_path / "x.html")])
    assert empty.exit_code == 2 and "holds no games" in empty.output
    assert not (tmp_path / "x.html").exists()
