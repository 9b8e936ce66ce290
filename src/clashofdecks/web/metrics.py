"""Prometheus metrics of ``clash serve`` (``--metrics-port``, ``--metrics-allow``; docs/web.md,
"Operating").

The instrumentation points are one-line calls, named here so they are easy to find (and to put back
if a change of the action path drops one):

* :func:`action_accepted` — in ``LiveGame.apply``, once an action is stored and applied (players'
  and the AI's alike: ``rate(clash_actions_accepted_total[1m])`` is actions per second);
* :func:`observe_action` — in the socket route, from the receipt of an ``act`` message to its
  acknowledgement (the ``state`` frame) queued for that socket (web/connection.py sends it);
* :func:`caught_up` — in ``GameSync`` (web/sync.py), each time a copy catches up with a change
  another process stored, by how (from the notification, an incremental read, a whole read);
* :func:`socket_opened` / :func:`socket_closed` — in the socket route;
* :func:`worker_job` — in ``WorkerPool`` (web/workers.py), each job run, by lane (``ai``: agent
  decisions, on workers of their own; ``optional``: hints and analyses) and kind;
* :func:`work_refused` — where optional work is refused (a second hint of one game in flight).

Connected players, games in progress and the queue are read from the server when Prometheus asks
(:class:`ServerGauges`, made by ``routes_ops.py``), so the game code holds no gauge to keep right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST

# Not registered anywhere on creation: each app's registry adds them (one process, one app in
# production; tests may start several apps in one process, and they share these counts).
ACTIONS_ACCEPTED = Counter(
    "clash_actions_accepted", "Actions accepted, stored and applied (players' and the AI's)", registry=None
)
ACTION_LATENCY = Histogram(
    "clash_action_latency_seconds",
    "From the receipt of an act message to its acknowledgement frame queued for that socket",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=None,
)
CATCH_UPS = Counter(
    "clash_catch_ups",
    "Copies of games brought to a change another process stored: applied from the notification "
    "(no read), read from the copy's last action on, or read whole (an undo elsewhere)",
    ["how"],
    registry=None,
)
WORKER_JOBS = Counter(
    "clash_worker_jobs",
    "Jobs run off the event loop, by lane (ai: agent decisions, on workers of their own; "
    "optional: hints and analyses) and kind",
    ["lane", "kind"],
    registry=None,
)
WORK_REFUSED = Counter(
    "clash_work_refused", "Optional work refused, by kind and reason", ["kind", "why"], registry=None
)
OPEN_SOCKETS = Gauge(
    "clash_open_sockets", "Game WebSockets open (players, spectators, the lobby)", registry=None
)


def action_accepted() -> None:
    ACTIONS_ACCEPTED.inc()


def observe_action(seconds: float) -> None:
    ACTION_LATENCY.observe(seconds)


def caught_up(how: str) -> None:
    """``how``: ``notified``, ``read`` or ``whole`` (web/sync.py)."""
    CATCH_UPS.labels(how).inc()


def worker_job(lane: str, kind: str) -> None:
    WORKER_JOBS.labels(lane, kind).inc()


def work_refused(kind: str, why: str) -> None:
    WORK_REFUSED.labels(kind, why).inc()


def socket_opened() -> None:
    OPEN_SOCKETS.inc()


def socket_closed() -> None:
    OPEN_SOCKETS.dec()


@dataclass(frozen=True)
class ServerGauges(Collector):
    """Gauges read from the server's memory at each scrape (this process's games and queue)."""

    connected_players: Callable[[], int]
    games_in_progress: Callable[[], int]
    queue_length: Callable[[], int]

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "clash_connected_players",
            "Identities with a seat's socket open on this process",
            value=self.connected_players(),
        )
        yield GaugeMetricFamily(
            "clash_games_in_progress",
            "Unfinished games held in this process's memory",
            value=self.games_in_progress(),
        )
        yield GaugeMetricFamily(
            "clash_queue_length", "Identities waiting in the play-now queue", value=self.queue_length()
        )


def registry_with(gauges: ServerGauges) -> CollectorRegistry:
    """A registry of this app's metrics and the process's (CPU, memory, open files, GC)."""
    registry = CollectorRegistry(auto_describe=True)
    for collector in (
        PROCESS_COLLECTOR,
        PLATFORM_COLLECTOR,
        GC_COLLECTOR,
        ACTIONS_ACCEPTED,
        ACTION_LATENCY,
        CATCH_UPS,
        WORKER_JOBS,
        WORK_REFUSED,
        OPEN_SOCKETS,
        gauges,
    ):
        registry.register(collector)
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The text Prometheus scrapes."""
    return generate_latest(registry)
