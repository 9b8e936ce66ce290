"""Analyses of finished games (``clash analyze`` run by the server, docs/web.md "Analyses"): each game
is analysed at most once and the result kept across restarts; a game played here is analysed when it
ends, an imported one only when its replay asks; a flood of requests queues no more analyses than the
limit; the endpoint refuses what is not a finished game.  And the replay names the players."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from clashofdecks.record import GameRecord
from clashofdecks.web import workers
from clashofdecks.web.games import NewGame
from clashofdecks.web.server import GameServer, ServerConfig
from conftest import ServerProcess, run_async

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"
T = TypeVar("T")


def named_record(
    name: str = "duel-precon-greedy-vs-greedy", players: tuple[str, str] = ("Ada", "Grace")
) -> GameRecord:
    data = json.loads((RECORDS / f"{name}.json").read_text())
    data["players"] = list(players)
    return GameRecord.from_dict(data)


def solo_record(level: int, name: str = "Ada") -> GameRecord:
    """A solo game at R8.3 ``level`` played to its end by the greedy agent."""
    from clashofdecks.agents.registry import make_agent
    from clashofdecks.formats import new_game
    from clashofdecks.options import Threat
    from clashofdecks.record import record_game

    game = new_game(mode="solo", format="precon", seed=level, threat=Threat.level(level), record_events=False)
    agent = make_agent("greedy", 0)
    agent.reset(0)
    while not game.is_over():
        game.apply(agent.act(game))
    return record_game(game, [name, "automaton"])


def _config(tmp_path: Path, **options: Any) -> ServerConfig:
    # agent_workers=0: the worker "pool" is a thread of this process, so the tests can count its jobs.
    return ServerConfig(
        database_url=f"sqlite:///{tmp_path / 'web.sqlite3'}",
        agent_workers=0,
        analysis_iterations=20,
        **options,
    )


class CountingAnalyses:
    """Stands in for ``workers.analysis`` (the real one, counted), optionally held until released."""

    def __init__(self, hold: bool = False) -> None:
        self.calls: list[int] = []  # the number of actions of each record analysed
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.real: Callable[..., Any] = workers.analysis

    def __call__(self, record: dict[str, Any], iterations: int) -> tuple[dict[str, Any], float]:
        self.calls.append(len(record["actions"]))
        self.released.wait(timeout=120)
        result: tuple[dict[str, Any], float] = self.real(record, iterations)
        return result


async def _until_kept(server: GameServer, game_id: str) -> dict[str, Any]:
    while True:
        status, body = await server.analyses.answer(game_id)
        if status == 200:
            return body
        assert status == 202 and body["status"] == "pending", (status, body)
        await asyncio.sleep(0.05)


def test_an_imported_game_is_analysed_once_on_first_open_and_kept_across_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = CountingAnalyses()
    monkeypatch.setattr(workers, "analysis", jobs)

    async def first_run() -> tuple[str, dict[str, Any]]:
        server = GameServer(_config(tmp_path))
        await server.start()
        try:
            live = await server.table.import_record(named_record(), "p" * 32)
            await asyncio.sleep(0.1)
            assert (
                jobs.calls == [] and server.analyses.running == {}
            )  # imported: nothing until its replay asks
            # Two requests at once share one job.
            (s1, b1), (s2, b2) = await asyncio.gather(
                server.analyses.answer(live.id), server.analyses.answer(live.id)
            )
            assert (s1, b1["status"], s2, b2["status"]) == (202, "pending", 202, "pending")
            body = await _until_kept(server, live.id)
            assert body["status"] == "done" and body["iterations"] == 20
            analysis = body["analysis"]
            assert analysis["label"] == "win chance"  # a duel (docs/ai.md)
            assert analysis["turns"] and all(0.0 <= t["p0_win_chance"] <= 1.0 for t in analysis["turns"])
            assert "players" not in analysis  # the page names players by their seats
            again = await server.analyses.answer(live.id)
            assert again == (200, body)
            assert jobs.calls == [52] and server.analyses.jobs == 1
            return live.id, body
        finally:
            await server.stop()

    async def second_run(game_id: str) -> dict[str, Any]:
        server = GameServer(_config(tmp_path))
        await server.start()
        try:
            status, body = await server.analyses.answer(game_id)
            assert status == 200 and server.analyses.jobs == 0 and server.analyses.running == {}
            return body
        finally:
            await server.stop()

    game_id, first = run_async(first_run())
    kept = run_async(second_run(game_id))
    assert jobs.calls == [52]  # the restarted server answered from the store
    assert kept == first


def test_a_game_played_here_is_analysed_when_it_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = CountingAnalyses()
    monkeypatch.setattr(workers, "analysis", jobs)

    async def play() -> None:
        server = GameServer(_config(tmp_path))
        await server.start()
        try:
            live, _tokens = await server.table.create_game(
                NewGame(kind="hotseat", format="precon", name="Ada"), "o" * 32
            )
            session = live.session
            rng = random.Random(3)
            while not session.is_over:
                assert server.analyses.running == {}  # not before the end
                legal = session.game.legal_actions()
                text = session.game.action_text(rng.choice(list(legal)))
                async with live.lock:
                    await live.apply(session.check(session.to_move, text))
            assert live.id in server.analyses.running or jobs.calls  # started by the end, not by a request
            await asyncio.gather(*server.analyses.running.values())
            assert len(jobs.calls) == 1
            kept = await server.run_db(lambda s: s.load_analysis(live.id))
            assert kept is not None and kept.status == "done"
            decisions = kept.body["decisions"]
            assert len(decisions) == len(session.steps)
            status, body = await server.analyses.answer(live.id)
            assert status == 200 and body["analysis"]["decisions"] == decisions and len(jobs.calls) == 1
        finally:
            await server.stop()

    run_async(play())


def test_with_automatic_analysis_off_a_game_is_analysed_when_its_replay_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``clash serve --no-auto-analysis``: a game that ends starts no analysis; the first request of
    its replay does."""
    jobs = CountingAnalyses()
    monkeypatch.setattr(workers, "analysis", jobs)

    async def play() -> None:
        server = GameServer(_config(tmp_path, auto_analysis=False))
        await server.start()
        try:
            live, _tokens = await server.table.create_game(
                NewGame(kind="hotseat", format="precon", name="Ada"), "o" * 32
            )
            session = live.session
            rng = random.Random(3)
            while not session.is_over:
                text = session.game.action_text(rng.choice(list(session.game.legal_actions())))
                async with live.lock:
                    await live.apply(session.check(session.to_move, text))
            await asyncio.sleep(0.1)
            assert server.analyses.running == {} and jobs.calls == [] and server.analyses.jobs == 0
            body = await _until_kept(server, live.id)
            assert body["status"] == "done" and len(jobs.calls) == 1
        finally:
            await server.stop()

    run_async(play())


def test_many_imports_at_once_start_no_more_analyses_than_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = CountingAnalyses(hold=True)
    monkeypatch.setattr(workers, "analysis", jobs)

    async def flood() -> None:
        server = GameServer(_config(tmp_path, analysis_running=1, analysis_waiting=2))
        await server.start()
        try:
            ids = [
                (await server.table.import_record(named_record(players=(f"P{i}", "X")), "p" * 32)).id
                for i in range(10)
            ]
            answers = await asyncio.gather(*(server.analyses.answer(i) for i in ids))
            statuses = [s for s, _b in answers]
            assert statuses.count(202) == 3 and statuses.count(503) == 7, statuses
            busy = [b for s, b in answers if s == 503]
            assert all(b["status"] == "busy" and b["retry_after"] > 0 for b in busy)
            await asyncio.sleep(0.2)
            assert len(jobs.calls) == 1  # one running in the pool, two waiting for the slot
            assert len(server.analyses.running) == 3
            jobs.released.set()
            await asyncio.gather(*server.analyses.running.values())
            assert len(jobs.calls) == 3 and server.analyses.jobs == 3
            # A refused game was not queued: asked again now, it is analysed.
            refused = ids[statuses.index(503)]
            body = await _until_kept(server, refused)
            assert body["status"] == "done" and len(jobs.calls) == 4
        finally:
            jobs.released.set()
            await server.stop()

    run_async(flood())


def test_a_record_that_does_not_replay_is_kept_as_failed_and_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clashofdecks.errors import RecordError

    calls: list[int] = []

    def broken(record: dict[str, Any], iterations: int) -> tuple[dict[str, Any], float]:
        calls.append(iterations)
        raise RecordError("action 3 'play X' does not replay")

    monkeypatch.setattr(workers, "analysis", broken)

    async def run() -> None:
        server = GameServer(_config(tmp_path))
        await server.start()
        try:
            live = await server.table.import_record(named_record(), "p" * 32)
            body = await _until_kept(server, live.id)
            assert body == {"status": "failed", "error": "action 3 'play X' does not replay"}
            assert await server.analyses.answer(live.id) == (200, body) and calls == [20]
        finally:
            await server.stop()

    run_async(run())


def test_a_record_longer_than_the_limit_is_not_analysed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = CountingAnalyses()
    monkeypatch.setattr(workers, "analysis", jobs)

    async def run() -> None:
        server = GameServer(_config(tmp_path, analysis_max_actions=51))
        await server.start()
        try:
            live = await server.table.import_record(named_record(), "p" * 32)  # 52 actions
            body = await _until_kept(server, live.id)
            assert (
                body["status"] == "failed"
                and "52 actions" in body["error"]
                and "clash analyze" in body["error"]
            )
            assert jobs.calls == [] and server.analyses.jobs == 0
        finally:
            await server.stop()

    run_async(run())


def test_the_analysis_labels_its_chances_as_calibrated_only_where_they_are() -> None:
    """docs/ai.md: the evaluation is calibrated for duels and solo levels 0-3, not for levels 4-5."""
    duel, _ = workers.analysis(named_record().to_dict(), 5)
    level1, _ = workers.analysis(solo_record(1).to_dict(), 5)
    level5, _ = workers.analysis(solo_record(5).to_dict(), 5)
    assert (duel["label"], level1["label"], level5["label"]) == (
        "win chance",
        "win chance",
        "estimated win chance",
    )


# ---------------------------------------------------------------------------- over HTTP


@pytest.fixture(scope="module")
def analysing_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    proc = ServerProcess(
        tmp_path_factory.mktemp("analysis"), "--rate", "200", "--analysis-iterations", "30"
    ).start()
    yield proc
    proc.stop()


def _import(server: ServerProcess, record: GameRecord) -> str:
    status, body = server.post("/api/import", record.to_dict())
    assert status == 200, body
    return str(body["id"])


def _poll_analysis(server: ServerProcess, game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120  # a bound against hanging, not a speed requirement
    while time.monotonic() < deadline:
        status, body = server.get(f"/api/games/{game_id}/analysis")
        if status == 200:
            return dict(body)
        assert status == 202 and body["status"] == "pending", (status, body)
        time.sleep(0.2)
    raise AssertionError("the analysis did not finish")


def test_the_analysis_endpoint(analysing_server: ServerProcess) -> None:
    game_id = _import(analysing_server, named_record())
    body = _poll_analysis(analysing_server, game_id)
    assert body["status"] == "done" and body["iterations"] == 30
    analysis = body["analysis"]
    assert analysis["label"] == "win chance"  # duels: the shipped evaluation is calibrated (docs/ai.md)
    assert analysis["mistakes"] and all(m["loss"] >= 0.05 for m in analysis["mistakes"])
    assert len(analysis["decisions"]) == len(named_record().actions)


def test_the_analysis_endpoint_refuses_what_is_not_a_finished_game(analysing_server: ServerProcess) -> None:
    for game_id in ["0" * 24, "nope", "A" * 24, "0" * 33, "x" * 4000, "0%00"]:
        status, body = analysing_server.get(f"/api/games/{game_id}/analysis")
        assert status == 404 and body["error"] == "no such game", (game_id, status, body)
    active = analysing_server.new_game(kind="solo", format="precon")
    status, body = analysing_server.get(f"/api/games/{active['id']}/analysis")
    assert status == 403 and "finished" in body["error"]
    post = urllib.request.Request(
        analysing_server.url + f"/api/games/{active['id']}/analysis", b"{}", method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(post, timeout=30)
    assert refused.value.code == 405


def test_the_replay_names_the_players_in_its_words(analysing_server: ServerProcess) -> None:
    game_id = _import(analysing_server, named_record())
    status, body = analysing_server.get(f"/api/games/{game_id}/replay?lang=de")
    assert status == 200 and body["players"] == ["Ada", "Grace"]
    texts = " ".join(e["text"] for f in body["frames"] for e in f["events"])
    assert "Ada" in texts and "Grace" in texts and "Player 0" not in texts and "Player 1" not in texts
    english = analysing_server.get(f"/api/games/{game_id}/replay?lang=xx")[1]
    assert english["frames"][-1]["events"] != body["frames"][-1]["events"]  # German, then English
    solo = _import(analysing_server, named_record("solo-draft-level3-greedy", ("Ada", "automaton")))
    status, body = analysing_server.get(f"/api/games/{solo}/replay?lang=de")
    assert status == 200 and body["players"] == ["Ada", "Automat"], body["players"]
