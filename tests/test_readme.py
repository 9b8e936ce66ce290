"""The README's "From Python" example runs as printed, ends, and prints what it says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def from_python_example() -> str:
    text = README.read_text(encoding="utf-8")
    after = text.split("From Python:", 1)[1]
    match = re.search(r"```python\n(.*?)```", after, re.S)
    assert match, "the README has no python block after 'From Python:'"
    return match.group(1)


def test_the_readme_from_python_example_runs_to_the_end_of_a_game() -> None:
    code = from_python_example()
    assert "legal_actions()[0]" not in code.split("#")[0]  # that loop never ends (always `end`)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(re.match(r"R\d", line) for line in lines)  # events with their rule numbers
    assert any(line.startswith("Outcome(") for line in lines), lines[-3:]
    assert any("?" in line for line in lines[-2:])  # the view hides the opponent's cards
