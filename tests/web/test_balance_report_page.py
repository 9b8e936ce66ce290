"""The balance report (issue 12) opened in a real browser: every figure of every section renders
(an image with a real size, not a broken one), offline — the page asks the network for nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clashofdecks.simulation.batch import ALL_DECK_PAIRS, SimConfig, run_games
from clashofdecks.simulation.game import GameResult

pytest.importorskip("pyarrow", reason="the analysis extra (pip install '.[analysis]') is not installed")
pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")

from clashofdecks.simulation.report import SECTIONS, build_report
from clashofdecks.simulation.store import RunInfo, StoreWriter

RUNS = (
    SimConfig(mode="duel", agents=("random", "greedy"), games=16, seed=4, format="draft", card_stats=True),
    SimConfig(
        mode="duel",
        agents=("random", "random"),
        games=12,
        seed=5,
        format="precon",
        card_stats=True,
        deck_pairs=ALL_DECK_PAIRS,
    ),
    SimConfig(mode="solo", agents=("random",), games=8, seed=6, level=0, format="draft", card_stats=True),
    SimConfig(mode="solo", agents=("random",), games=8, seed=7, level=5, format="precon", card_stats=True),
)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report-store")
    for k, config in enumerate(RUNS):
        rows: list[GameResult] = []
        run_games(config, workers=1, on_chunk=rows.extend)
        writer = StoreWriter(
            root, RunInfo(f"run{k}", config.mode, config.format, config.max_turns, config.solo_threat())
        )
        writer.add(rows)
        writer.close()
    page = root.parent / "report.html"
    page.write_text(build_report(root, command="clash report store -o report.html").html, encoding="utf-8")
    return page


def test_every_figure_renders_offline_in_chromium(browser: Any, report_file: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    asked: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(report_file.as_uri())
    page.wait_for_load_state("load")
    figures = page.evaluate(
        """() => [...document.querySelectorAll('section[id] img')].map(img => ({
            section: img.closest('section').id,
            complete: img.complete,
            width: img.naturalWidth,
            height: img.naturalHeight,
            shown: img.getBoundingClientRect().width,
        }))"""
    )
    context.close()
    assert sorted(f["section"] for f in figures) == sorted(SECTIONS)
    for figure in figures:
        assert figure["complete"] and figure["width"] > 100 and figure["height"] > 100, figure
        assert figure["shown"] > 100, figure
    # Only the file itself and its inline (data:) images: nothing from a network.
    assert all(url.startswith(("file:", "data:")) for url in asked), asked
    assert errors == []
