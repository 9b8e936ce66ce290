"""``clash analyze``: placeholder until its implementation lands (owned by another engineer)."""

from __future__ import annotations

import sys

import click


@click.command()
def analyze() -> None:
    """(not implemented yet)"""
    click.echo("clash analyze: not implemented yet", err=True)
    sys.exit(2)
