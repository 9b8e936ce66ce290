"""A friend duel clicked through in Chromium with its two seats on two ``clash serve`` processes and a
spectator on a third, all on one PostgreSQL database (docs/web.md, "Several processes"): every page
ends at the same result with the same game log, so the spectator saw every move, not only the
last position.  Skipped without ``CLASH_TEST_PG_URL``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from test_direct_play import DESKTOP, GAME_OVER, index_of, new_context, play_directly

from conftest import ServerProcess


@pytest.fixture(scope="module")
def cluster(pg_processes: Callable[..., list[ServerProcess]]) -> list[ServerProcess]:
    """Three processes on the module's database."""
    return pg_processes(3, "--rate", "200")


def log_lines(page: Any) -> list[str]:
    return [str(t) for t in page.locator("[data-testid=log] li").all_text_contents()]


def test_a_duel_with_its_seats_on_two_processes_and_a_spectator_on_a_third(
    cluster: list[ServerProcess], browser: Any
) -> None:
    host_proc, guest_proc, watch_proc = cluster
    contexts = [new_context(browser, "en", viewport=DESKTOP) for _ in range(3)]
    host, guest, watcher = (c.new_page() for c in contexts)
    errors: list[str] = []
    for p in (host, guest, watcher):
        p.on("pageerror", lambda e: errors.append(str(e)))
    host.goto(host_proc.url + "/")
    host.select_option("#friend-format", "precon")
    host.click("[data-testid=new-duel-friend]")
    invite = host.locator("[data-testid=invite-link]")
    invite.wait_for()
    link = invite.input_value()
    assert link.startswith(host_proc.url)
    guest.goto(guest_proc.url + link[len(host_proc.url) :])  # the balancer sent the friend elsewhere
    guest.wait_for_selector("[data-testid=to-move]")
    game_path = link[len(host_proc.url) :].split("#")[0]
    watcher.goto(watch_proc.url + game_path)
    watcher.wait_for_selector("#game")
    play_directly([host, guest], random.Random(12))
    final = index_of(host)
    assert final > 10 and index_of(guest) == final
    watcher.wait_for_selector(GAME_OVER, timeout=30000)
    watcher.wait_for_function(f"document.querySelector('#game').dataset.index === '{final}'", timeout=30000)
    winners = {p.locator(GAME_OVER).get_attribute("data-winner") for p in (host, guest, watcher)}
    assert len(winners) == 1 and winners <= {"0", "1"}, winners
    lines = log_lines(host)
    assert len(lines) > 10 and log_lines(guest) == lines and log_lines(watcher) == lines
    assert not errors, errors
    for c in contexts:
        c.close()
