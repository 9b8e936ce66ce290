"""The load test's driver (``python -m clashofdecks.web.loadtest``, docs/performance.md, "Capacity
with Locust"): start N ``clash serve`` processes on one database, run the Locust scenario
(``locustfile.py``) headless against them, optionally SIGKILL one server halfway, then check the
store — every action a client was acknowledged is stored, once, as it was sent — and write a
summary (``summary.json`` and ``summary.md`` in the output folder).

Locust runs in its own process (``python -m locust``: it patches the standard library with gevent,
which must not happen in this one); this module needs only the web extra.
"""

from __future__ import annotations

import csv
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from .serveprocs import (
    ServeProcess,
    cpu_seconds,
    kill,
    raise_open_file_limit,
    start_servers,
    stop_servers,
    wait_ready,
)
from .settings import ACKS_ENV, ADDRESSES_ENV, ASSIGN_ENV, ASSIGNMENTS, KILLED_ENV, PACE_ENV

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
#: The names of the scenario's measured events (its module docstring).
ACK, DELIVERY = "act→ack", "act→other seat"


@dataclass
class LoadConfig:
    games: int = 10
    processes: int = 1
    duration: float = 60.0
    kill: bool = False
    #: The servers' shared database; None: SQLite in the output folder (one process only).
    database: str | None = None
    assign: str = "split"
    pace: tuple[float, float] = (2.0, 8.0)
    #: New games (Locust users) started per second until ``games`` play at once.
    spawn_rate: float = 50.0
    #: Locust processes generating the load (Locust's ``--processes``).
    locust_processes: int = 1
    out: Path = field(default_factory=lambda: Path("loadtest-results"))

    def check(self) -> None:
        """ValueError naming the first bad setting."""
        if self.games < 1 or self.processes < 1 or self.locust_processes < 1:
            raise ValueError("games, processes and Locust processes must be at least 1")
        if self.duration <= 0 or self.spawn_rate <= 0:
            raise ValueError("the duration and the spawn rate must be positive")
        if self.assign not in ASSIGNMENTS:
            raise ValueError(f"the assignment must be one of {', '.join(ASSIGNMENTS)}")
        if not 0 <= self.pace[0] <= self.pace[1]:
            raise ValueError("the pace must be LOW,HIGH seconds with 0 <= LOW <= HIGH")
        if self.processes > 1 and not (self.database or "").startswith(("postgresql://", "postgres://")):
            raise ValueError("several server processes need a shared PostgreSQL database (--database)")
        if self.kill and self.processes < 2:
            raise ValueError("killing a server needs at least 2 processes (the players move to another)")


@dataclass
class AckCheck:
    """The store against what the clients were acknowledged."""

    acknowledged: int
    games: int
    finished_games: int
    #: Acknowledged actions missing from the store (game, index), at most 20 listed.
    lost: list[tuple[str, int]] = field(default_factory=list)
    lost_count: int = 0
    #: Acknowledged actions stored with another seat or action text, or more than once.
    mismatched: list[tuple[str, int]] = field(default_factory=list)
    mismatched_count: int = 0


def read_acks(path: Path) -> dict[tuple[str, int], tuple[int, str]]:
    """The acks file: (game, index) → (seat, action), without those taken back later (``void``); a
    torn last line (a killed writer) is skipped."""
    acks: dict[tuple[str, int], tuple[int, str]] = {}
    if not path.exists():
        return acks
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            key = (str(row["game"]), int(row["index"]))
            if row.get("void"):  # taken back: the seat's action there was refused as stale
                acks.pop(key, None)
                continue
            acks[key] = (int(row["seat"]), str(row["action"]))
        except (ValueError, KeyError, TypeError):
            continue
    return acks


def _chunks(items: list[str], size: int = 500) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def check_acknowledged(database_url: str, acks_path: Path) -> AckCheck:
    """Compare every acknowledged action with the store's ``actions`` rows (see :class:`AckCheck`)."""
    import sqlalchemy as sa

    from ..store import actions, games, normalize_url

    acks = read_acks(acks_path)
    game_ids = sorted({game for game, _ in acks})
    stored: dict[tuple[str, int], list[tuple[int, str]]] = {}
    finished = 0
    engine = sa.create_engine(normalize_url(database_url))
    try:
        with engine.connect() as conn:
            for chunk in _chunks(game_ids):
                query = sa.select(actions.c.game_id, actions.c.idx, actions.c.seat, actions.c.action)
                for game_id, idx, seat, action in conn.execute(query.where(actions.c.game_id.in_(chunk))):
                    stored.setdefault((game_id, idx), []).append((seat, action))
                over = sa.select(sa.func.count()).where(games.c.id.in_(chunk), games.c.status == "over")
                finished += int(conn.execute(over).scalar_one())
    finally:
        engine.dispose()
    result = AckCheck(acknowledged=len(acks), games=len(game_ids), finished_games=finished)
    for key, seen in sorted(acks.items()):
        rows = stored.get(key, [])
        if not rows:
            result.lost_count += 1
            if len(result.lost) < 20:
                result.lost.append(key)
        elif rows != [seen]:
            result.mismatched_count += 1
            if len(result.mismatched) < 20:
                result.mismatched.append(key)
    return result


def read_locust_stats(prefix: Path) -> tuple[dict[str, dict[str, str]], list[dict[str, str]]]:
    """Locust's ``--csv`` files: the stats rows by name, and the failures."""
    stats: dict[str, dict[str, str]] = {}
    failures: list[dict[str, str]] = []
    stats_file = prefix.with_name(prefix.name + "_stats.csv")
    failures_file = prefix.with_name(prefix.name + "_failures.csv")
    if stats_file.exists():
        with stats_file.open(encoding="utf-8", newline="") as f:
            stats = {row["Name"]: row for row in csv.DictReader(f)}
    if failures_file.exists():
        with failures_file.open(encoding="utf-8", newline="") as f:
            failures = list(csv.DictReader(f))
    return stats, failures


def _figure(row: dict[str, str] | None, column: str) -> float | None:
    if row is None or row.get(column) in (None, "", "N/A"):
        return None
    return float(row[column])


def _locust_command(config: LoadConfig, addresses: list[str], csv_prefix: Path) -> list[str]:
    cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--only-summary"]
    cmd += ["-u", str(config.games), "-r", f"{config.spawn_rate:g}", "--run-time", f"{config.duration:g}s"]
    cmd += ["--host", addresses[0], "--csv", str(csv_prefix), "--exit-code-on-error", "0"]
    if config.locust_processes > 1:
        cmd += ["--processes", str(config.locust_processes)]
    return cmd


def run_load(config: LoadConfig, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the load test (module docstring); returns the summary it also writes."""
    config.check()
    limits = raise_open_file_limit()
    out = config.out.resolve()
    (out / "servers").mkdir(parents=True, exist_ok=True)
    database = config.database or f"sqlite:///{out / 'servers' / 'web.sqlite3'}"
    for stale in (out / "acks.jsonl", out / "killed.txt"):
        stale.unlink(missing_ok=True)
    say(f"starting {config.processes} server process(es) on {_without_password(database)}")
    servers = start_servers(
        config.processes, out / "servers", database=database, extra=("--agent-workers", "0")
    )
    try:
        wait_ready(servers)
        facts = _run_locust(config, servers, out, say)
    finally:
        stop_servers(servers)
    facts.open_file_limit = limits[0]
    stats, failures = read_locust_stats(out / "locust")
    check = check_acknowledged(database, out / "acks.jsonl")
    summary = _summary(config, stats, failures, check, facts)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(summary_markdown(summary), encoding="utf-8")
    return summary


@dataclass
class RunFacts:
    """What the driver sees of a run besides Locust's statistics."""

    load_before: tuple[float, float, float]
    load_during: tuple[float, float, float] = (0.0, 0.0, 0.0)
    killed_at: float | None = None
    #: CPU seconds the servers used during the run (all together; None where the OS does not say).
    server_cpu_s: float | None = None
    #: CPU seconds the load generator (Locust and its worker processes) used.
    generator_cpu_s: float = 0.0
    open_file_limit: int = 0


def _run_locust(
    config: LoadConfig, servers: list[ServeProcess], out: Path, say: Callable[[str], None]
) -> RunFacts:
    addresses = [s.url for s in servers]
    env = {
        **os.environ,
        ADDRESSES_ENV: ",".join(addresses),
        ASSIGN_ENV: config.assign,
        PACE_ENV: f"{config.pace[0]:g},{config.pace[1]:g}",
        ACKS_ENV: str(out / "acks.jsonl"),
        KILLED_ENV: str(out / "killed.txt"),
    }
    facts = RunFacts(load_before=os.getloadavg())
    cpu_before = [cpu_seconds(s.proc.pid) for s in servers]
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    say(f"Locust: {config.games} games for {config.duration:g} s against {', '.join(addresses)}")
    with (out / "locust.log").open("wb") as log:
        cmd = _locust_command(config, addresses, out / "locust")
        locust = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        killed_cpu = _halfway(config, servers, locust, out / "killed.txt", facts, say)
        locust.wait(timeout=config.duration + 300)
    cpu_after = [killed_cpu if not s.alive() else cpu_seconds(s.proc.pid) for s in servers]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Reaped children since the start: Locust, and the killed server (whose CPU is known).
    facts.generator_cpu_s = (
        children.ru_utime + children.ru_stime - children_before.ru_utime - children_before.ru_stime
    ) - (killed_cpu or 0.0)
    if None not in cpu_before and None not in cpu_after:
        facts.server_cpu_s = sum(
            cast(float, a) - cast(float, b) for a, b in zip(cpu_after, cpu_before, strict=True)
        )
    if locust.returncode != 0:
        tail = (out / "locust.log").read_text(encoding="utf-8", errors="replace")[-500:]
        raise RuntimeError(f"Locust failed (exit {locust.returncode}): {tail}")
    return facts


def _halfway(
    config: LoadConfig,
    servers: list[ServeProcess],
    locust: subprocess.Popen[bytes],
    killed_file: Path,
    facts: RunFacts,
    say: Callable[[str], None],
) -> float | None:
    """Halfway through the run: read the load average and, with ``kill``, SIGKILL the last server
    (its address written to the killed file first, so the players know the drop is the kill's).
    Returns the killed server's CPU seconds (its whole life) or None."""
    started = time.monotonic()
    try:
        locust.wait(timeout=config.duration / 2)
        facts.load_during = os.getloadavg()
        return None  # Locust ended early: nothing to kill in
    except subprocess.TimeoutExpired:
        pass
    facts.load_during = os.getloadavg()
    if not config.kill:
        return None
    victim = servers[-1]
    killed_file.write_text(victim.url + "\n", encoding="utf-8")
    used = cpu_seconds(victim.proc.pid)
    kill(victim)
    say(f"killed {victim.url} (SIGKILL)")
    facts.killed_at = time.monotonic() - started
    return used


def _summary(
    config: LoadConfig,
    stats: dict[str, dict[str, str]],
    failures: list[dict[str, str]],
    check: AckCheck,
    facts: RunFacts,
) -> dict[str, Any]:
    ack, delivery = stats.get(ACK), stats.get(DELIVERY)
    per_action = 1000 / check.acknowledged if check.acknowledged else None
    errors = sum(int(row.get("Occurrences", 0) or 0) for row in failures)
    return {
        "games": config.games,
        "processes": config.processes,
        "assign": config.assign,
        "duration_s": config.duration,
        "pace_s": list(config.pace),
        "database": "PostgreSQL" if (config.database or "").startswith("postgres") else "SQLite",
        "open_file_limit": facts.open_file_limit,
        "actions_acknowledged": check.acknowledged,
        "actions_per_s": _figure(ack, "Requests/s"),
        "ack_p50_ms": _figure(ack, "50%"),
        "ack_p95_ms": _figure(ack, "95%"),
        "ack_p99_ms": _figure(ack, "99%"),
        "ack_max_ms": _figure(ack, "Max Response Time"),
        "delivery_p99_ms": _figure(delivery, "99%"),
        "deliveries": int(_figure(delivery, "Request Count") or 0),
        "reconnects_after_kill": int(_figure(stats.get("reconnect"), "Request Count") or 0),
        "reconnect_p99_ms": _figure(stats.get("reconnect"), "99%"),
        "games_played": check.games,
        "games_finished": check.finished_games,
        "errors": errors,
        "error_kinds": [
            {"name": r.get("Name"), "error": r.get("Error"), "occurrences": r.get("Occurrences")}
            for r in failures[:20]
        ],
        "killed_after_s": facts.killed_at,
        "lost_actions": check.lost_count,
        "lost_examples": check.lost,
        "mismatched_actions": check.mismatched_count,
        "server_cpu_ms_per_action": (
            None if per_action is None or facts.server_cpu_s is None else facts.server_cpu_s * per_action
        ),
        "generator_cpu_ms_per_action": None if per_action is None else facts.generator_cpu_s * per_action,
        "load_average_before": list(facts.load_before),
        "load_average_during": list(facts.load_during),
        "config": {**asdict(config), "out": str(config.out), "database": _without_password(config.database)},
    }


def _without_password(url: str | None) -> str | None:
    """A database URL fit for a summary someone may publish: its password replaced by ``***``."""
    if url is None or "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in credentials else url


def _ms2(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} ms"


def summary_markdown(s: dict[str, Any]) -> str:
    """The summary as a markdown table (what docs/performance.md quotes)."""

    def ms(value: Any) -> str:
        return "—" if value is None else f"{value:,.0f} ms"

    rows = [
        ("games at once", f"{s['games']:,} ({s['games_played']:,} played, {s['games_finished']:,} finished)"),
        ("server processes", f"{s['processes']} ({s['database']}, seats: {s['assign']})"),
        ("duration · pace", f"{s['duration_s']:g} s · {s['pace_s'][0]:g}–{s['pace_s'][1]:g} s a decision"),
        ("actions acknowledged", f"{s['actions_acknowledged']:,}"),
        ("actions/s", "—" if s["actions_per_s"] is None else f"{s['actions_per_s']:,.1f}"),
        (
            "act→ack p50 · p95 · p99 · max",
            " · ".join(ms(s[k]) for k in ("ack_p50_ms", "ack_p95_ms", "ack_p99_ms", "ack_max_ms")),
        ),
        ("act→other seat p99", f"{ms(s['delivery_p99_ms'])} ({s['deliveries']:,} deliveries)"),
        ("errors", str(s["errors"])),
        (
            "server killed",
            "no"
            if s["killed_after_s"] is None
            else f"after {s['killed_after_s']:.0f} s; {s['reconnects_after_kill']} seats reconnected "
            f"(p99 {ms(s['reconnect_p99_ms'])})",
        ),
        ("lost actions", f"{s['lost_actions']} (mismatched: {s['mismatched_actions']})"),
        (
            "CPU per action: servers · Locust",
            f"{_ms2(s['server_cpu_ms_per_action'])} · {_ms2(s['generator_cpu_ms_per_action'])}",
        ),
        (
            "load average (1 min) before · during",
            f"{s['load_average_before'][0]:.2f} · {s['load_average_during'][0]:.2f}",
        ),
        ("open-file limit", f"{s['open_file_limit']:,}"),
    ]
    lines = ["| figure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)]
    for kind in s["error_kinds"]:
        lines.append(f"\n- {kind['occurrences']}× {kind['name']}: {kind['error']}")
    return "\n".join(lines) + "\n"
