"""The size of the code's rooms (issue 26): no Python function over 80 lines and no class over 500 in
``src/clashofdecks``, no C function over 80 lines in ``_native.c``.

A place still being split by other work may be allowed for a while (``ALLOWED``, empty now); the list
only shrinks.  The checkers themselves are tested on small made-up sources, so a new offender is caught.
"""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatch
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "src" / "clashofdecks"
NATIVE_C = PACKAGE_DIR / "_native.c"

MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 500

#: (path in the package, function or class name) patterns still over the limits, each with who splits it.
#: Remove an entry once its place is split (the lead shrinks this list after each merge).
ALLOWED: tuple[tuple[str, str], ...] = ()

#: The start of a C function definition at the left margin: a return type, then the name and "(".
_C_DEFINITION = re.compile(
    r"^(?!typedef|struct|enum|static const|#)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\("
)


def python_offenders(source: str, path: str) -> list[tuple[str, str, int]]:
    """``(path, name, lines)`` of every function over :data:`MAX_FUNCTION_LINES` lines and every class
    over :data:`MAX_CLASS_LINES` lines in ``source`` (nested ones too; decorators not counted)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
            if lines > limit:
                found.append((path, node.name, lines))
    return found


def c_functions(source: str) -> list[tuple[str, int]]:
    """``(name, lines)`` of every function defined in C ``source``, from the line that names it to its
    closing brace at the left margin (the project's C is formatted so: ``_native.c``)."""
    lines = source.split("\n")
    out = []
    start: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        if start is None:
            match = _C_DEFINITION.match(line)
            if not match:
                continue
            j = i
            while j < len(lines) and "{" not in lines[j] and ";" not in lines[j]:
                j += 1  # a signature over several lines: a body opens before any ";"
            if j < len(lines) and "{" in lines[j] and ";" not in lines[j].partition("{")[0]:
                start = (match.group(1), i)
        elif line.startswith("}"):
            out.append((start[0], i - start[1] + 1))
            start = None
    return out


def c_offenders(source: str, path: str) -> list[tuple[str, str, int]]:
    """``(path, name, lines)`` of every C function over :data:`MAX_FUNCTION_LINES` lines."""
    return [(path, name, n) for name, n in c_functions(source) if n > MAX_FUNCTION_LINES]


def _allowed(path: str, name: str) -> bool:
    return any(fnmatch(path, p) and fnmatch(name, n) for p, n in ALLOWED)


def test_no_python_function_over_80_lines_and_no_class_over_500() -> None:
    found = []
    for file in sorted(PACKAGE_DIR.rglob("*.py")):
        path = file.relative_to(PACKAGE_DIR).as_posix()
        found += python_offenders(file.read_text(encoding="utf-8"), path)
    wrong = [f"{p}: {name} has {n} lines" for p, name, n in found if not _allowed(p, name)]
    assert not wrong, "split these (functions <= 80 lines, classes <= 500):\n" + "\n".join(wrong)


def test_no_c_function_over_80_lines() -> None:
    found = c_offenders(NATIVE_C.read_text(encoding="utf-8"), "_native.c")
    wrong = [f"{p}: {name} has {n} lines" for p, name, n in found if not _allowed(p, name)]
    assert not wrong, "split these into static helpers (<= 80 lines):\n" + "\n".join(wrong)


def test_the_c_scanner_sees_the_core_s_functions() -> None:
    """The scanner finds the functions of the real file (not nothing), with plausible sizes."""
    functions = dict(c_functions(NATIVE_C.read_text(encoding="utf-8")))
    for name in ("core_load", "core_search", "l_features", "compute_legal", "dispatch"):
        assert name in functions, name
        assert 3 <= functions[name] <= MAX_FUNCTION_LINES, (name, functions[name])


def _python_function(name: str, body_lines: int) -> str:
    return f"def {name}() -> None:\n" + "    x = 1\n" * body_lines


def test_a_new_long_python_function_or_class_is_caught() -> None:
    fine = _python_function("short", MAX_FUNCTION_LINES - 1)
    long = _python_function("long", MAX_FUNCTION_LINES)
    assert python_offenders(fine, "probe.py") == []
    assert python_offenders(long, "probe.py") == [("probe.py", "long", MAX_FUNCTION_LINES + 1)]
    big_class = "class Big:\n" + "".join(
        f"    def m{i}(self) -> None:\n" + "        x = 1\n" * 9 for i in range(50)
    )
    assert [name for _, name, _ in python_offenders(big_class, "probe.py")] == ["Big"]
    assert not _allowed("probe.py", "long") and not _allowed("web/store.py", "Store")


def test_a_new_long_c_function_is_caught() -> None:
    def c_function(name: str, body_lines: int) -> str:
        signature = (
            f"static PyObject *{name}(CoreObject *self,\n                             PyObject *args) {{\n"
        )
        return signature + "    x++;\n" * body_lines + "}\n"

    source = "#define N 3\nstatic const int hi[2] = {1, 2};\nstatic int f(int a);\n"
    source += (
        c_function("fits", MAX_FUNCTION_LINES - 3) + "\n" + c_function("too_long", MAX_FUNCTION_LINES - 2)
    )
    assert c_functions(source) == [("fits", MAX_FUNCTION_LINES), ("too_long", MAX_FUNCTION_LINES + 1)]
    assert c_offenders(source, "_native.c") == [("_native.c", "too_long", MAX_FUNCTION_LINES + 1)]
    assert not _allowed("_native.c", "mod_batch_step") and not _allowed("_native.c", "too_long")


def test_every_method_a_room_declares_for_the_type_checker_exists() -> None:
    """``GameCore`` declares other rooms' methods under ``TYPE_CHECKING`` only: each must be defined by
    some room, or a call to it would fail at run time although mypy passes."""
    from clashofdecks.rules import Game
    from clashofdecks.rules.core import GameCore

    tree = ast.parse((PACKAGE_DIR / "rules" / "core.py").read_text(encoding="utf-8"))
    declared = [
        node.name
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.FunctionDef)
    ]
    assert len(declared) >= 10
    for name in declared:
        assert not hasattr(GameCore, name), f"{name} is only a declaration: GameCore must not define it"
        owners = [k.__name__ for k in Game.__mro__ if name in vars(k)]
        assert owners, f"GameCore declares {name} but no room defines it"


def test_the_web_server_is_composed_of_parts_not_mixins() -> None:
    """``GameServer`` (web/server.py) is made of parts passed their services by constructor (docs/web.md,
    "Code"): neither it nor a part inherits another's methods, and no web module declares another's
    methods for the type checker (the mixins' ``TYPE_CHECKING`` blocks of before)."""
    import pytest

    pytest.importorskip("starlette")
    from clashofdecks.web.server import GameServer, ServerConfig

    parts: list[type] = [GameServer, *{type(v) for v in vars(GameServer(ServerConfig())).values()}]
    for cls in parts:
        if cls.__module__.startswith("clashofdecks.web."):
            bases = [b for b in cls.__mro__[1:] if b.__module__.startswith("clashofdecks.web.")]
            assert not bases, f"{cls.__name__} inherits {bases[0].__name__}: compose it instead"
    for path in sorted((PACKAGE_DIR / "web").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for block in cls.body:
                assert not (isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"), (
                    f"{path.name}: {cls.name} declares methods of another class under TYPE_CHECKING"
                )
