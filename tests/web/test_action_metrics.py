"""The actions' counter and latency histogram, kept as plain numbers (no lock per action), expose
exactly what a Prometheus ``Histogram`` with the same buckets would (web/metrics.py)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from clashofdecks.web.metrics import _ActionCounts


def _samples(registry: CollectorRegistry) -> list[str]:
    text = generate_latest(registry).decode()
    return [line for line in text.splitlines() if "latency" in line and not line.startswith("#")]


def test_the_latency_histogram_is_prometheus_s_own() -> None:
    reference = CollectorRegistry()
    histogram = Histogram(
        "clash_action_latency_seconds", "x", buckets=_ActionCounts.BUCKETS, registry=reference
    )
    counts = _ActionCounts()
    ours = CollectorRegistry()
    ours.register(counts)
    for seconds in (0.0004, 0.001, 0.003, 0.05, 0.2, 5.0, 7.5):  # on the bounds, between, above all
        histogram.observe(seconds)
        counts.observe(seconds)
    expected = [line for line in _samples(reference) if "_created" not in line]
    assert _samples(ours) == expected


def test_actions_accepted_is_a_counter_of_the_same_name() -> None:
    counts = _ActionCounts()
    counts.accepted += 3
    registry = CollectorRegistry()
    registry.register(counts)
    assert "clash_actions_accepted_total 3.0" in generate_latest(registry).decode().splitlines()
