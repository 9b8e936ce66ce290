"""The size of the kernel's rooms (issue 36): no function over 80 lines and no class over 500 in
``mtgrules``, as ``tests/test_code_shape.py`` asks of the main package. The checker is tested on small
made-up sources, so a new offender is caught."""

from __future__ import annotations

import ast
from pathlib import Path

import mtgrules

PACKAGE_DIR = Path(mtgrules.__file__).parent
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 500


def offenders(source: str, path: str) -> list[tuple[str, str, int]]:
    """``(path, name, lines)`` of every function over :data:`MAX_FUNCTION_LINES` lines and every class over
    :data:`MAX_CLASS_LINES` lines in ``source`` (nested ones too; decorators not counted)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
            if lines > limit:
                found.append((path, node.name, lines))
    return found


def test_no_function_over_80_lines_and_no_class_over_500() -> None:
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        found += offenders(path.read_text(), str(path.relative_to(PACKAGE_DIR)))
    assert not found, f"split these: {found}"


def test_the_checker_finds_a_long_function_and_a_long_class() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    long_function = f"def f() -> None:\n{body}\n"
    assert offenders(long_function, "m.py") == [("m.py", "f", 81)]
    assert offenders("def g() -> None:\n    pass\n", "m.py") == []
    methods = "\n".join(f"    def m{i}(self) -> None:\n        pass\n" for i in range(170))
    assert [(n, lines > 500) for _, n, lines in offenders(f"class C:\n{methods}", "m.py")] == [("C", True)]
