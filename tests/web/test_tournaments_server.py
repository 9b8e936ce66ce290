"""Tournaments run by real ``clash serve`` processes sharing PostgreSQL, driven through the API
and the game sockets, with the test clock (``CLASH_TEST_CLOCK_FILE``): an arena of four players over
two processes to its end with its standings, a Swiss of five rounds with byes and a withdrawal,
and a Swiss whose director's process is killed, the survivor going on without losing a round or
pairing anyone twice.  Skipped without
``CLASH_TEST_PG_URL`` (in CI its absence is an error)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_clocks import T0, FileClock
from test_handover import _holder
from test_identity import server_session
from test_several_processes import act, wait_index
from test_work_once import _sql, _until

from clashofdecks.tournaments import arena
from conftest import Client, ServerProcess, pg_url, reset_pg

LEASE = "2"


@pytest.fixture
def database() -> Iterator[str]:
    url = pg_url()
    if not url:
        pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server for the tournament tests)")
    reset_pg(url)
    yield url
    reset_pg(url)


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FileClock:
    c = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(c.path))
    return c


def _servers(tmp_path: Path, database: str, n: int = 2) -> list[ServerProcess]:
    args = ("--rate", "200", "--agent-workers", "0", "--lease-seconds", LEASE)
    return [ServerProcess(tmp_path / f"p{i}", *args, database=database).start() for i in range(n)]


def _organiser(proc: ServerProcess) -> str:
    guest = proc.guest()
    body = {"username": "organiser", "password": "correct horse battery"}
    assert proc.post("/api/account/register", body, session=guest)[0] == 200
    return server_session(proc, "organiser", "correct horse battery")


def _create(proc: ServerProcess, session: str, **body: Any) -> str:
    status, answer = proc.post(
        "/api/tournaments", {"name": "Sunday", "starts_in": 60, **body}, session=session
    )
    assert status == 200, answer
    return str(answer["id"])


def _next_game(proc: ServerProcess, tid: str, session: str, done: set[str]) -> str:
    def probe() -> str | None:
        you = proc.get(f"/api/tournaments/{tid}", session=session)[1]["you"]
        game = (you["next"] or {}).get("game")
        return game if game and game not in done else None

    return str(_until("the player's next pairing", probe, 90))


def _through_first_turns(a: Client, b: Client) -> None:
    """Both players make their setup decisions and end a first turn (the game then counts: the
    abort rule); the frames of either process are awaited before each decision."""
    while a.state.get("can_abort") or b.state.get("can_abort"):
        index = max(a.state["index"], b.state["index"])
        wait_index(a, index)
        wait_index(b, index)
        mover = a if a.state["legal"] else b
        legal = mover.state["legal"]
        act(mover, "end" if "end" in legal else legal[0])


def _games_of_round(
    procs: list[ServerProcess], tid: str, sessions: dict[str, str], done: set[str]
) -> list[tuple[str, Client, Client, str, str]]:
    """Each running game of the players: (game, both clients, their names), players connected to
    alternate processes."""
    by_game: dict[str, list[tuple[str, Client]]] = {}
    for i, (name, session) in enumerate(sessions.items()):
        proc = procs[i % len(procs)]
        game = _next_game(proc, tid, session, done)
        by_game.setdefault(game, []).append((name, Client(proc, game, [], session=session)))
    out = []
    for game, [(na, a), (nb, b)] in by_game.items():
        out.append((game, a, b, na, nb))
    return out


def _standings(proc: ServerProcess, tid: str) -> dict[str, Any]:
    return dict(proc.get(f"/api/tournaments/{tid}")[1])


def _finished(proc: ServerProcess, tid: str) -> dict[str, Any]:
    return dict(
        _until("the tournament's end", lambda: (b := _standings(proc, tid))["status"] == "finished" and b, 90)
    )


def test_an_arena_of_four_over_two_processes_to_its_end(
    tmp_path: Path, database: str, clock: FileClock
) -> None:
    procs = _servers(tmp_path, database)
    try:
        organiser = _organiser(procs[0])
        assert (
            procs[0].post("/api/tournaments", {"name": "x", "kind": "arena"}, session=procs[0].guest())[0]
            == 403
        )
        tid = _create(procs[0], organiser, kind="arena", minutes=10, time_control="3+2")
        listed = procs[1].get("/api/tournaments")[1]["tournaments"]
        assert [(t["id"], t["kind"], t["status"]) for t in listed] == [(tid, "arena", "created")]
        sessions: dict[str, str] = {}
        for i in range(4):
            proc = procs[i % 2]
            session = proc.guest()
            handle = proc.get("/api/me", session=session)[1]["identity"]
            assert proc.post(f"/api/tournaments/{tid}/join", {}, session=session)[0] == 200
            sessions[handle] = session
        assert (
            procs[0].post(f"/api/tournaments/{tid}/join", {}, session=sessions[handle])[1]["code"]
            == "already_joined"
        )
        assert _standings(procs[1], tid)["players"] == 4
        clock.set(T0 + 61)  # past the start (the file clock began at T0; the start is 60 s after)
        outcomes: dict[str, list[arena.Outcome]] = {h: [] for h in sessions}
        done: set[str] = set()
        # Round 1: after the first turns the player to move resigns.
        for game, a, b, na, nb in _games_of_round(procs, tid, sessions, done):
            _through_first_turns(a, b)
            loser, winner = ((a, na), (b, nb)) if a.state["legal"] else ((b, nb), (a, na))
            loser[0].send({"type": "resign"})
            outcomes[loser[1]].append(arena.Outcome.LOSS)
            outcomes[winner[1]].append(arena.Outcome.WIN)
            done.add(game)
            a.close()
            b.close()
        # Round 2 (paired at once): after the first turns the window ends and both clocks run out
        # (a loss on time is a loss); nobody is paired after the end.
        second = _games_of_round(procs, tid, sessions, done)
        for _game, a, b, na, nb in second:
            _through_first_turns(a, b)
            late = na if a.state["legal"] else nb
            for h in (na, nb):
                outcomes[h].append(arena.Outcome.LOSS if h == late else arena.Outcome.WIN)
        clock.set(T0 + 60 + 600 + 1)
        final = _finished(procs[1], tid)
        for _game, a, b, _na, _nb in second:
            a.close()
            b.close()
        scores = {row["handle"]: row["score"] for row in final["standings"]}
        assert scores == {h: arena.arena_score(o).points for h, o in outcomes.items()}
        assert [row["score"] for row in final["standings"]] == sorted(scores.values(), reverse=True)
        assert len(final["games"]) == 4 and all(g["url"].startswith("/r/") for g in final["games"])
        rows = _sql(database, "SELECT round, player FROM tournament_pairings")
        assert len(rows) == len({(r.round, r.player) for r in rows}) == 8
    finally:
        for proc in procs:
            proc.stop()


def test_killing_the_director_loses_no_round_and_pairs_nobody_twice(
    tmp_path: Path, database: str, clock: FileClock
) -> None:
    procs = _servers(tmp_path, database)
    try:
        organiser = _organiser(procs[0])
        tid = _create(procs[0], organiser, kind="swiss", rounds=2, time_control="3+2")
        sessions: dict[str, str] = {}
        for _ in range(4):
            session = procs[0].guest()
            sessions[procs[0].get("/api/me", session=session)[1]["identity"]] = session
            assert procs[0].post(f"/api/tournaments/{tid}/join", {}, session=session)[0] == 200
        clock.set(T0 + 61)
        _until(
            "round 1 paired",
            lambda: (
                len(_sql(database, "SELECT game_id FROM tournament_pairings WHERE game_id IS NOT NULL")) == 4
            ),
        )
        held, survivor = _holder(database, "tournaments", procs)
        held.stop(kill=True)  # the director dies with round 1's games going on
        done: set[str] = set()
        for game, a, b, _na, _nb in _games_of_round([survivor], tid, sessions, done):
            _through_first_turns(a, b)
            (a if a.state["legal"] else b).send({"type": "resign"})
            done.add(game)
            a.close()
            b.close()
        second = _games_of_round([survivor], tid, sessions, done)  # paired by the survivor
        assert len(second) == 2
        clock.set(T0 + 61 + 3600)  # round 2's clocks run out before the first turns: aborted
        final = _finished(survivor, tid)
        for _game, a, b, _na, _nb in second:
            a.close()
            b.close()
        rows = _sql(database, "SELECT round, player, game_id FROM tournament_pairings")
        assert sorted({r.round for r in rows}) == [1, 2]
        assert len(rows) == len({(r.round, r.player) for r in rows}) == 8
        assert len({r.game_id for r in rows}) == 4
        assert final["round"] == 2 and sum(row["score"] for row in final["standings"]) == 2
        # Round 2's players to move missed their pairing (their clock ran out before a first turn):
        # withdrawn, the aborted games scoring nothing.
        assert sum(row["withdrawn"] for row in final["standings"]) == 2
        assert [g["results"] for g in final["games"] if g["round"] == 2] == [["aborted", "aborted"]] * 2
    finally:
        for proc in procs:
            proc.stop()


def _round_games(proc: ServerProcess, tid: str, round_: int) -> list[dict[str, Any]]:
    """The games of round ``round_``, once it is paired and every one of them is made."""

    def probe() -> list[dict[str, Any]] | None:
        games = [g for g in _standings(proc, tid)["games"] if g["round"] == round_]
        return games if games and all(g["game"] for g in games) else None

    return list(_until(f"round {round_} paired", probe, 90))


def test_a_swiss_of_five_rounds_with_byes_and_a_withdrawal_over_two_processes(
    tmp_path: Path, database: str, clock: FileClock
) -> None:
    procs = _servers(tmp_path, database)
    try:
        organiser = _organiser(procs[0])
        tid = _create(procs[1], organiser, kind="swiss", rounds=5, time_control="5+3")
        sessions: dict[str, str] = {}
        for i in range(5):
            proc = procs[i % 2]
            session = proc.guest()
            sessions[proc.get("/api/me", session=session)[1]["identity"]] = session
            assert proc.post(f"/api/tournaments/{tid}/join", {}, session=session)[0] == 200
        clock.set(T0 + 61)
        wins = dict.fromkeys(sessions, 0)
        gone = None
        for round_ in range(1, 6):
            games = _round_games(procs[round_ % 2], tid, round_)
            assert len(games) == 2  # five players: a bye in rounds 1-2; four after the withdrawal
            if round_ == 2:  # withdrawn during a game: it counts, and no pairing follows
                gone = games[0]["players"][0]
                assert procs[0].post(f"/api/tournaments/{tid}/withdraw", {}, session=sessions[gone])[0] == 200
            for i, g in enumerate(games):
                a_name, b_name = g["players"]
                a = Client(procs[i % 2], g["game"], [], session=sessions[a_name])
                b = Client(procs[(i + 1) % 2], g["game"], [], session=sessions[b_name])
                _through_first_turns(a, b)
                loser = a if a.state["legal"] else b
                wins[b_name if loser is a else a_name] += 1
                loser.send({"type": "resign"})
                _until(
                    "the game's end",
                    lambda g=g: _sql(
                        database, "SELECT 1 FROM games WHERE id = :g AND status = 'over'", g=g["game"]
                    ),
                )
                a.close()
                b.close()
        final = _finished(procs[0], tid)
        byes = _sql(
            database,
            "SELECT i.handle, p.round FROM tournament_pairings p JOIN identities i ON i.id = p.player"
            " WHERE p.result = 'bye'",
        )
        assert sorted(r.round for r in byes) == [1, 2] and len({r.handle for r in byes}) == 2
        by_handle = {row["handle"]: row for row in final["standings"]}
        bye_count = {h: sum(r.handle == h for r in byes) for h in sessions}
        assert {h: row["score"] for h, row in by_handle.items()} == {
            h: wins[h] + bye_count[h] for h in sessions
        }
        assert by_handle[gone]["withdrawn"] and by_handle[gone]["games"] <= 2
        assert final["round"] == 5 and len(final["games"]) == 10
        assert sorted(b["round"] for b in final["byes"]) == [1, 2]
        assert [r["rank"] for r in final["standings"]] == [1, 2, 3, 4, 5]
    finally:
        for proc in procs:
            proc.stop()


def test_the_server_s_own_schedule_is_listed_only_when_set(tmp_path: Path) -> None:
    plain = ServerProcess(tmp_path / "plain", "--agent-workers", "0").start()
    hourly = ServerProcess(
        tmp_path / "hourly", "--agent-workers", "0", "--tournament-schedule", "hourly-arena"
    ).start()
    try:
        listed = _until("the hourly arena", lambda: hourly.get("/api/tournaments")[1]["tournaments"], 60)
        assert [(t["kind"], t["name"], t["scheduled"], t["status"]) for t in listed] == [
            ("arena", "Hourly arena", True, "created")
        ]
        assert listed[0]["starts_at"] % 3600 == 0 and listed[0]["minutes"] == 45
        assert plain.get("/api/tournaments")[1] == {"tournaments": []}
    finally:
        plain.stop()
        hourly.stop()
