"""``clash bench --attack``: an honest player's figures beside the same under each attack of issue 33
(web/loadtest/attack.py; docs/web.md, "Threats")."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from .common import missing_loadtest_modules, missing_web_modules


def attack_bench(seconds: float, tiny: bool, as_json: bool) -> None:
    """Run the attack bench and print its table (or JSON)."""
    if missing_web_modules() or missing_loadtest_modules():
        raise click.UsageError(
            "clash bench --attack needs the loadtest extra: pip install -e '.[web,loadtest]'"
        )
    from ..web.loadtest.attack import AttackSizes, run_attack_bench

    try:
        result = run_attack_bench(AttackSizes.tiny() if tiny else AttackSizes(), seconds)
    except RuntimeError as exc:  # a server that did not start: its log's end says why
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    title = (
        f"clash bench --attack ({seconds:g} s a phase, loopback; load average "
        f"{result.load_before:.1f} before, {result.load_after:.1f} after)"
    )
    table = Table(title=title)
    for name in ("attack", "actions", "p50 ms", "p99 ms", "AI moves", "AI p50 ms", "AI max ms"):
        table.add_column(name, justify="left" if name == "attack" else "right")
    for name in ("attacker's requests", "refused", "dropped", "timed out"):
        table.add_column(name, justify="right")
    for p in result.phases:
        table.add_row(
            p.attack,
            str(p.actions),
            f"{p.p50_ms:.1f}",
            f"{p.p99_ms:.1f}",
            str(p.ai_moves),
            f"{p.ai_p50_ms:.1f}",
            f"{p.ai_max_ms:.1f}",
            f"{p.attack_requests:,}",
            f"{p.refused:g}",
            f"{p.dropped:g}",
            f"{p.timed_out:g}",
        )
    Console(width=200).print(table)
    for p in result.phases:
        for error in p.errors:
            click.echo(f"{p.attack}: {error}", err=True)
