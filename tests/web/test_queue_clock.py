"""The queue's AI offer end to end, on the server's injected clock (``ServerConfig.clock``, test-only):
the app runs in this process (uvicorn in a thread), time moves by setting the clock, not by
sleeping.  Before 30 s no AI is offered and ``queue_ai`` is refused; at 30 s the page is offered one
of about its strength, and taking it opens an unrated game against that AI."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed")

import uvicorn
from websockets.sync.client import ClientConnection, connect

from clashofdecks.web.app import create_app
from clashofdecks.web.server import ServerConfig
from conftest import free_port


class FakeClock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock_server(tmp_path: Path) -> Iterator[tuple[FakeClock, int]]:
    clock = FakeClock()
    config = ServerConfig(
        database_url=f"sqlite:///{tmp_path / 'q.sqlite3'}",
        agent_workers=0,
        watch_interval=0.02,  # how often the server looks at the queue (not how long anyone waits)
        clock=clock,
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:  # start-up, not a timed assertion
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    yield clock, port
    server.should_exit = True
    thread.join(timeout=30)


def _recv(ws: ClientConnection) -> dict[str, Any]:
    return dict(json.loads(ws.recv(timeout=30)))


def test_the_ai_is_offered_after_30_seconds_of_the_queue_clock(clock_server: tuple[FakeClock, int]) -> None:
    clock, port = clock_server
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/identities",
        data=b'{"bearer": true}',
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        session = json.loads(r.read())["session"]
    headers = {"Authorization": f"Bearer {session}"}
    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers=headers) as ws:
        ws.send(json.dumps({"type": "queue", "format": "draft"}))
        assert _recv(ws) == {"type": "queue", "status": "waiting", "format": "draft", "rating": 1000}
        clock.now += 29.0
        ws.send(json.dumps({"type": "queue_ai"}))  # not offered yet: refused, still waiting
        assert _recv(ws)["code"] == "not_queued"
        clock.now += 1.0  # 30 s: the server's next look at the queue offers the AI
        assert _recv(ws) == {"type": "queue", "status": "ai_offer", "ai": "casual"}
        ws.send(json.dumps({"type": "queue_ai"}))
        matched = _recv(ws)
        assert matched["type"] == "matched" and matched["rated"] is False and matched["ai"] == "casual"
        game = matched["game"]
    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers=headers) as ws:
        ws.send(json.dumps({"type": "hello", "game": game, "tokens": []}))
        state = _recv(ws)
        assert state["type"] == "state" and state["kind"] == "ai" and state["rated"] is False
        assert len(state["seats"]) == 1
