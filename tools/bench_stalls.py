"""``clash bench --web``'s own run (``run_web_bench``) with each action's latency kept beside the
moment it was sent: prints the run's figures, then per quarter second the actions sent, their
median and largest latency and how many reached the run's p99 -- a p99 made of one window is a
stall, one spread over the run is queueing (docs/performance.md, "Where the p99 comes from").

    python tools/bench_stalls.py [DUELS]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from clashofdecks.web.loadtest import bench

WINDOW = 0.25


def main() -> None:
    duels = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    bots: list[Any] = []
    made = bench.BotProtocol.__init__

    def keep(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        bots.append(self)

    bench.BotProtocol.__init__ = keep  # type: ignore[method-assign]
    wall = time.time() - time.perf_counter()
    result = bench.run_web_bench(duels=duels)
    latencies, sent = bots[0].latencies, bots[0].sent_times  # shared by every bot
    print(
        f"actions {result.actions}, {result.actions_per_s:.0f}/s, p50 {result.p50_ms:.1f} ms, "
        f"p99 {result.p99_ms:.1f} ms, server CPU {result.server_cpu_ms_per_action:.2f} ms/action, "
        f"load {result.load_before:.2f}-{result.load_after:.2f}"
    )
    start, p99 = min(sent), sorted(latencies)[int(0.99 * len(latencies))]
    print(f"windows of {WINDOW} s from {start + wall:.3f} (epoch seconds): sent, p50 ms, max ms, at p99")
    windows: dict[int, list[float]] = defaultdict(list)
    for seconds, at in zip(latencies, sent, strict=True):
        windows[int((at - start) / WINDOW)].append(seconds)
    for w in sorted(windows):
        v = windows[w]
        slow = sum(1 for x in v if x >= p99)
        print(
            f"{w * WINDOW:6.2f} {len(v):4d} {statistics.median(v) * 1000:7.1f} {max(v) * 1000:7.1f} {slow:4d}"
        )


if __name__ == "__main__":
    main()
