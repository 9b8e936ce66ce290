"""``clash play``: placeholder until its implementation lands (owned by another engineer)."""

from __future__ import annotations

import sys

import click


@click.command()
def play() -> None:
    """(not implemented yet)"""
    click.echo("clash play: not implemented yet", err=True)
    sys.exit(2)
