"""``clash stats DIR QUERY``: SQL (DuckDB) over a store of games written by ``clash simulate --out``.

The views ``games`` and ``cards`` read every Parquet file under DIR (see docs/simulation.md for
their columns).  Exit codes: 0 done, 2 a bad folder or query, or the analysis extra missing.
"""

from __future__ import annotations

import csv
import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from ..errors import ClashError


def _plain(value: Any) -> Any:
    """A value JSON can hold (DuckDB gives decimals, dates, …)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


@click.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as a JSON list of objects.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV with a header line.")
def stats(folder: str, query: str, as_json: bool, as_csv: bool) -> None:
    """Run the SQL QUERY over the store of games in FOLDER (views: games, cards).

    \b
    clash stats games/ "SELECT agent0, count(*) FROM games GROUP BY agent0"
    clash stats games/ "SELECT card, avg(won::int) AS win_rate, count(*) AS n
                        FROM cards WHERE mode = 'duel' GROUP BY card ORDER BY win_rate DESC"
    """
    from ..simulation.store import query as run_query

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    try:
        result = run_query(folder, query)
    except ClashError as exc:
        click.echo(f"clash stats: {exc}", err=True)
        sys.exit(2)
    if as_json:
        rows = [dict(zip(result.columns, map(_plain, row), strict=True)) for row in result.rows]
        click.echo(json.dumps(rows, indent=2))
        return
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows(result.rows)
        return
    table = Table(caption=f"{len(result.rows)} row(s)")
    for name in result.columns:
        table.add_column(name)
    for row in result.rows:
        table.add_row(*("" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
    Console().print(table)
