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
* :func:`work_refused` — where optional work is refused (a second hint of one game in flight, a
  hint asked within ``hint_interval_seconds`` of the identity's last);
* :func:`work_dropped` — where work is let go: a hint whose socket closed before its answer (unrun
  if no worker had taken it yet), or whose game moved on before a worker was free;
* :func:`work_timed_out` / :func:`work_over_memory` — in ``WorkerPool``, a job stopped at its time
  budget or its memory limit (web/limits.py, ``job_seconds``, ``job_memory_mb``).

The cost counters (:func:`count_statements`, :func:`frame_sent`, :func:`sentences_rendered`,
:func:`position_dumped`) count the work an action costs -- SQL statements, frames and their bytes,
sentences rendered, positions dumped for the seats' views -- so that
tests can pin them per action without timing anything (tests/web/test_cost_counters.py) and
``clash bench --web`` reports them per action.

Connected players, games in progress and the queue are read from the server when Prometheus asks
(:class:`ServerGauges`, made by ``routes_ops.py``), so the game code holds no gauge to keep right.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import event
from sqlalchemy.engine import Engine

CONTENT_TYPE = CONTENT_TYPE_LATEST


# Not registered anywhere on creation: each app's registry adds them (one process, one app in
# production; tests may start several apps in one process, and they share these counts).
class _ActionCounts(Collector):
    """Actions accepted and their latency histogram, as plain numbers bumped on the hot path (a
    Prometheus ``Counter`` or ``Histogram`` takes a lock per update: about 2 % of the event loop
    under ``clash bench --web``), read at each scrape; the same metrics as before."""

    BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

    def __init__(self) -> None:
        self.accepted = 0
        self.latency_counts = [0] * (len(self.BUCKETS) + 1)  # the last: above every bucket
        self.latency_sum = 0.0

    def observe(self, seconds: float) -> None:
        self.latency_counts[bisect.bisect_left(self.BUCKETS, seconds)] += 1
        self.latency_sum += seconds

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "clash_actions_accepted",
            "Actions accepted, stored and applied (players' and the AI's)",
            value=self.accepted,
        )
        cumulative, buckets = 0, []
        for bound, count in zip((*map(str, self.BUCKETS), "+Inf"), self.latency_counts, strict=True):
            cumulative += count
            buckets.append((bound, cumulative))
        yield HistogramMetricFamily(
            "clash_action_latency_seconds",
            "From the receipt of an act message to its acknowledgement frame queued for that socket",
            buckets=buckets,
            sum_value=self.latency_sum,
        )


ACTIONS = _ActionCounts()
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
WORK_DROPPED = Counter(
    "clash_work_dropped",
    "Work let go (its socket closed before the answer, its game moved on before a worker took it)",
    ["kind", "why"],
    registry=None,
)
WORK_TIMED_OUT = Counter(
    "clash_work_timed_out", "Worker jobs stopped at their time budget, by kind", ["kind"], registry=None
)
WORK_OVER_MEMORY = Counter(
    "clash_work_over_memory",
    "Worker jobs stopped at their memory limit (the worker is replaced), by kind",
    ["kind"],
    registry=None,
)


class CostCounters(Collector):
    """The cost counters: plain integers bumped on the hot path (a Prometheus ``Counter`` takes a
    lock per increment), read at each scrape."""

    def __init__(self) -> None:
        self.sql_statements = 0
        self.frames_sent = 0
        self.frame_bytes_sent = 0
        self.sentence_renders = 0
        self.position_dumps = 0

    def collect(self) -> Iterator[Metric]:
        for name, documentation in _COST_DOCS.items():
            yield CounterMetricFamily(f"clash_{name}", documentation, value=getattr(self, name))


_COST_DOCS: Final = {
    "sql_statements": "SQL statements the store sent to its database (an executemany counts once)",
    "frames_sent": "Frames sent on game WebSockets",
    "frame_bytes_sent": "Bytes (UTF-8) of the frames sent on game WebSockets",
    "sentence_renders": "Sentences rendered for frames: events, legal actions' labels, prompt lines",
    "position_dumps": "Positions dumped for the frames' views (one per change, whoever reads it)",
}
#: This process's cost counters (tests started in one process share them, as the counters above).
COSTS = CostCounters()
OPEN_SOCKETS = Gauge(
    "clash_open_sockets", "Game WebSockets open (players, spectators, the lobby)", registry=None
)


def action_accepted() -> None:
    ACTIONS.accepted += 1


def observe_action(seconds: float) -> None:
    ACTIONS.observe(seconds)


def caught_up(how: str) -> None:
    """``how``: ``notified``, ``read`` or ``whole`` (web/sync.py)."""
    CATCH_UPS.labels(how).inc()


def worker_job(lane: str, kind: str) -> None:
    WORKER_JOBS.labels(lane, kind).inc()


def work_refused(kind: str, why: str) -> None:
    WORK_REFUSED.labels(kind, why).inc()


def work_dropped(kind: str, why: str) -> None:
    WORK_DROPPED.labels(kind, why).inc()


def work_timed_out(kind: str) -> None:
    WORK_TIMED_OUT.labels(kind).inc()


def work_over_memory(kind: str) -> None:
    WORK_OVER_MEMORY.labels(kind).inc()


def count_statements(engine: Engine) -> None:
    """Count every statement ``engine`` sends (SQLAlchemy's ``before_cursor_execute``)."""
    event.listen(engine, "before_cursor_execute", _statement)


def _statement(*_args: Any) -> None:
    COSTS.sql_statements += 1


def frame_sent(text: str) -> None:
    COSTS.frames_sent += 1
    # A compact str knows whether it is ASCII without a scan: then its length is its byte count.
    COSTS.frame_bytes_sent += len(text) if text.isascii() else len(text.encode())


def sentences_rendered(n: int) -> None:
    COSTS.sentence_renders += n


def position_dumped() -> None:
    COSTS.position_dumps += 1


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
        ACTIONS,
        CATCH_UPS,
        WORKER_JOBS,
        WORK_REFUSED,
        WORK_DROPPED,
        WORK_TIMED_OUT,
        WORK_OVER_MEMORY,
        COSTS,
        OPEN_SOCKETS,
        gauges,
    ):
        registry.register(collector)
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The text Prometheus scrapes."""
    return generate_latest(registry)
