"""``clash replay``: placeholder until its implementation lands (owned by another engineer)."""

from __future__ import annotations

import sys

import click


@click.command()
def replay() -> None:
    """(not implemented yet)"""
    click.echo("clash replay: not implemented yet", err=True)
    sys.exit(2)
