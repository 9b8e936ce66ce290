"""``clash scenario FILE...``: run scenario files, PASS/FAIL each with the first difference."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (one JSON object).")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
def scenario(files: tuple[Path, ...], as_json: bool, quiet: bool) -> None:
    """Run scenario FILES (a directory runs every *.json in it).  Exit status 0 only if all pass.

    ERROR marks a malformed scenario (it checks nothing, an action does not parse, ...): it fails.
    """
    from ..scenario import run_file

    paths: list[Path] = []
    for f in files:
        paths.extend(sorted(f.rglob("*.json")) if f.is_dir() else [f])
    results = [r for p in paths for r in run_file(p)]
    passed = sum(r.passed for r in results)
    failed = len(results) - passed
    malformed = sum(r.error for r in results)  # counted in "failed" too
    if as_json:
        report = {"passed": passed, "failed": failed, "malformed": malformed}
        click.echo(json.dumps({**report, "results": [r.to_dict() for r in results]}, indent=2))
    else:
        for r in results:
            if r.passed and quiet:
                continue
            status = "PASS" if r.passed else ("ERROR" if r.error else "FAIL")
            line = f"{status} {r.name}"
            if r.rules:
                line += f" [{' '.join(r.rules)}]"
            if not r.passed:
                line += f" ({r.path}): {r.message}"
            click.echo(line)
        summary = f"{passed} passed, {failed} failed"
        click.echo(summary + (f" ({malformed} malformed)" if malformed else ""))
    sys.exit(0 if failed == 0 and results else 1)
