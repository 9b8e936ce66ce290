"""Log the garbage collections of ``clash serve`` processes (docs/performance.md, "Where the p99
comes from"): put this folder on PYTHONPATH, and each server process started then writes
``$GCWATCH_DIR/gc-PID.log`` (default /tmp): every full collection, every collection over 20 ms
of CPU, and every 20th one, each with its generation, its CPU time (the thread's own clock, so a
loaded machine does not inflate it), the running totals per generation and the objects tracked.

    PYTHONPATH=tools/gcwatch python tools/bench_stalls.py 100
"""

import gc
import os
import sys
import time

if any("serve" in arg for arg in sys.argv[:3]):
    _path = os.path.join(os.environ.get("GCWATCH_DIR", "/tmp"), f"gc-{os.getpid()}.log")
    _log = open(_path, "a", buffering=1)  # noqa: SIM115 - open for the process's life
    _started = [0.0]
    _totals = [0.0, 0.0, 0.0]
    _counts = [0, 0, 0]

    def _watch(phase: str, info: dict) -> None:
        if phase == "start":
            _started[0] = time.thread_time()
            return
        gen, ms = info["generation"], (time.thread_time() - _started[0]) * 1000
        _totals[gen] += ms
        _counts[gen] += 1
        if gen == 2 or ms > 20 or _counts[0] % 20 == 0:
            _log.write(
                f"{time.time():.3f} gen{gen} {ms:.1f}ms collected={info['collected']} "
                f"totals_ms={[round(t) for t in _totals]} counts={_counts} frozen={gc.get_freeze_count()}\n"
            )

    gc.callbacks.append(_watch)
