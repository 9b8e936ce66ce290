"""The ``mtgrules`` console script: runs the command line, which needs the ``cli`` extra (Click).

Kept apart from :mod:`mtgrules.cli` so that a core-only install (no Click) gets a clear message
instead of an import traceback.
"""

from __future__ import annotations

import importlib
import sys


def main() -> None:
    try:
        cli = importlib.import_module("mtgrules.cli")
    except ModuleNotFoundError as exc:
        if exc.name != "click":
            raise
        sys.stderr.write(
            "mtgrules: the command line needs Click, which comes with the 'cli' extra: "
            "pip install 'mtgrules[cli]'\n"
        )
        sys.exit(2)
    cli.main()
