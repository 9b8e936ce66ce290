"""Each seat's presence, shown to the other seat and to spectators (docs/web.md, "Fair play in rated
games"): a ``presence`` message, apart from the state frames, sent to the pages that ask for it in
``hello`` whenever a seat's page opens or closes.  It is read from the presence table every process
shares, so a seat connected to one process shows as connected to a watcher on another, and as away
once it has left.  Real ``clash serve`` processes on a real PostgreSQL; skipped without
``CLASH_TEST_PG_URL``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conftest import Client, ServerProcess


@pytest.fixture(scope="module")
def pair(pg_processes: Callable[..., list[ServerProcess]]) -> list[ServerProcess]:
    return pg_processes(2, "--rate", "200", "--agent-workers", "0")


def next_presence(client: Client, timeout: float = 30) -> dict[str, Any]:
    while True:
        frame = client.recv(timeout)
        if frame["type"] == "presence":
            return frame


def presence_until(client: Client, seats: list[Any]) -> dict[str, Any]:
    """The client's presence messages until one says ``seats``."""
    while True:
        frame = next_presence(client)
        if frame["seats"] == seats:
            return frame


@pytest.mark.parametrize("clocked", [False, True])
def test_a_seat_on_one_process_is_connected_then_away_for_a_watcher_on_another(
    pair: list[ServerProcess], clocked: bool
) -> None:
    a_proc, b_proc = pair
    options: dict[str, Any] = {"time_control": "5+3"} if clocked else {}
    body = a_proc.new_game(kind="friend", format="precon", **options)
    creator = body["seat"]
    watcher = Client(b_proc, body["id"], [], presence=True)
    try:
        # The watcher's own page opened: told at once, the creator not there yet.
        first = next_presence(watcher)
        assert first["game"] == body["id"] and first["seats"] == ["away", "away"]
        player = Client(a_proc, body["id"], body["tokens"], presence=True)
        seats: list[Any] = ["away", "away"]
        seats[creator] = "connected"
        presence_until(watcher, seats)  # the creator's page on process A, seen from process B
        assert next_presence(player)["seats"] == seats  # and by the player itself
        player.close()
        presence_until(watcher, ["away", "away"])  # gone: away
    finally:
        watcher.close()


def test_pages_that_do_not_ask_get_no_presence_messages(pair: list[ServerProcess]) -> None:
    a_proc, _b = pair
    body = a_proc.new_game(kind="friend", format="precon")
    old = Client(a_proc, body["id"], [])  # a page of a former release: no "presence" in its hello
    player = Client(a_proc, body["id"], body["tokens"], presence=True)
    try:
        next_presence(player)
        old.send({"type": "ping", "id": 5})
        while (frame := old.recv())["type"] != "pong":
            assert frame["type"] != "presence", frame
    finally:
        player.close()
        old.close()
