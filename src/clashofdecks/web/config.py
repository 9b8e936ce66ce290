"""The options of ``clash serve`` (docs/web.md), one value every part of the server is given."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .limits import Caps


@dataclass
class ServerConfig:
    """Options of ``clash serve`` (see ``docs/web.md``)."""

    database_url: str | None = None
    #: The address players use (``https://cards.example.org``): invite links and allowed Origins.
    public_url: str | None = None
    #: Messages per second per connection, and the burst allowed above that pace.
    rate: float = 20.0
    burst: float = 40.0
    #: Games a client address may create per minute over HTTP (new games and imports), and the
    #: burst allowed above that pace; more get 429 and create nothing.
    create_rate: float = 20.0
    create_burst: float = 20.0
    #: A duel seat whose player is away on their turn this long loses (the other seat is told).
    abandon_seconds: float = 600.0
    #: Worker processes for agents and hints (0: a thread in this process, for tests and small machines).
    agent_workers: int = 1
    #: Worker processes that hints and analyses share; agent decisions have ``agent_workers`` of
    #: their own, so an AI move never waits behind optional work (with ``agent_workers`` 0: a
    #: thread for each).
    optional_workers: int = 1
    hint_seconds: float = 1.0
    #: Further Origins allowed to open game sockets (besides the page's own host and the public URL).
    extra_origins: tuple[str, ...] = ()
    watch_interval: float = 1.0
    #: The server's own tournaments (web/tournament_schedule.py; ``clash serve --tournament-schedule
    #: hourly-arena``): none by default.
    tournament_schedule: tuple[str, ...] = ()
    #: Search iterations per decision of a game's analysis (``clash analyze --iterations``): about
    #: 2-3 CPU-seconds for a game of 50-70 actions (docs/web.md, "Analyses").
    analysis_iterations: int = 1000
    #: Analyse every finished game at once (in the worker pool); off: a game is analysed when its
    #: replay page first asks for it (``clash serve --no-auto-analysis``).
    auto_analysis: bool = True
    #: Analyses that run in the worker pool at once, and analyses that may wait for a slot.  A request
    #: beyond both is answered "busy" and queues nothing, so a flood of imports cannot queue CPU work.
    analysis_running: int = 1
    analysis_waiting: int = 8
    #: Longer records are not analysed here (kept as "failed", pointing to ``clash analyze``): the
    #: cost grows with the actions, and an imported record may hold thousands (about 20 CPU-seconds
    #: at 400 actions and the default iterations).
    analysis_max_actions: int = 400
    #: Login attempts a client address may make per minute (bursts up to the same number), and
    #: attempts on one account per 15 minutes (bursts up to the same number); more get 429.
    login_rate_address: float = 10.0
    login_rate_account: float = 5.0
    #: The server's clock for game clocks, deadlines and the "play now" queue (waiting times, the AI
    #: offer), in seconds since the epoch.  Settable in tests only, so they move time without
    #: sleeping (``clash serve`` reads it from the test-only ``CLASH_TEST_CLOCK_FILE``); nothing a
    #: client sends about time is ever used.
    clock: Callable[[], float] = time.time
    #: Seconds a lease lasts unless renewed (docs/web.md, "Leases"): how long the work of a killed
    #: process (an AI move, the clock and queue scans) waits before another process takes it over.
    lease_seconds: float = 10.0
    #: The caps against abuse (web/limits.py; ``clash serve --limit NAME=VALUE``).
    caps: Caps = field(default_factory=Caps)
    #: ``Host`` names answered (DNS rebinding; web/http_guard.py): ``clash serve`` sets this
    #: machine's names, the bound address and ``--public-url``'s host; ``*`` answers any.
    allowed_hosts: tuple[str, ...] = ("*",)
    #: Frames a socket may have waiting unsent; a page that reads slower than that is closed with
    #: code 4008 (docs/web.md, "Protocol"), never buffered without end.
    send_queue_frames: int = 256
    #: Seconds a game that no page follows, no agent thinks for and no message changes stays in a
    #: process's memory; then it is let go (the store keeps it) and reloaded when asked for.
    idle_game_seconds: float = 600.0
