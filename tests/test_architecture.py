"""The shape of the code: layers that import only downward, no import cycle, a standard-library core.

Every import of ``src/clashofdecks`` is read from the source (inside functions too, and
``importlib.import_module("clashofdecks....")`` with a literal name), so an import hidden in a
function cannot sneak a cycle or an upward dependency past this test (issue 9).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "clashofdecks"

#: Layers, lowest first: a module may import its own layer and the layers below, never above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("errors", "events", "cards", "options", "worker_processes")),
    # native: the optional compiled core's face; game_loop: the one step iterator over either engine
    ("rules", ("actions", "setup", "rules", "engine", "game_loop", "native")),
    # "" below is the package facade (clashofdecks/__init__.py).
    (
        "notation",
        ("position", "formats", "record", "scenario", "threat_text", "board_svg", ""),
    ),  # "": the facade
    # The observation encoder: above the core (it needs numpy), below both its readers, the agents
    # (the neural agent) and the environments.
    # Everything a player reads (catalogs, languages, action, event and prompt sentences, the plain-text
    # board): below the session, which says its sentences with it, and every front end.
    ("words", ("words",)),
    ("features", ("encoding",)),
    ("agents", ("agents",)),
    ("session and simulation", ("session", "simulation", "analyze", "bench", "native_check")),
    ("front ends", ("terminal", "cli", "web", "envs", "__main__")),
)
#: Front ends that never import one another's package: the web and the environments draw with the
#: words package, never with the terminal's (Rich) screens.
SEPARATE_FRONT_ENDS: tuple[tuple[str, str], ...] = (("web", "terminal"), ("envs", "terminal"))
#: The engine core: standard library only (engine.md; the README's architecture).
CORE_LAYERS = ("base", "rules", "notation")


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in (SRC / PACKAGE).rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> tuple[set[str], set[str]]:
    """(modules of this package imported, top-level names of other packages imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    internal: set[str] = set()
    external: set[str] = set()

    def add(module: str, names: list[str]) -> None:
        if module == PACKAGE or module.startswith(PACKAGE + "."):
            for n in names:
                full = f"{module}.{n}"
                internal.add(full if full in MODULES else module)
            if not names:
                internal.add(module)
        elif module:
            external.add(module.partition(".")[0])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, [])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            add(module, [a.name for a in node.names])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            add(node.args[0].value, [])
    internal.discard(name)
    return {m for m in internal if m in MODULES}, external


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    rest = module[len(PACKAGE) + 1 :] if module != PACKAGE else ""
    head = rest.partition(".")[0]
    for index, (_, prefixes) in enumerate(LAYERS):
        if head in prefixes:
            return index
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in {Path(__file__).name}")


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_every_name_in_the_layers_is_a_module() -> None:
    """A name in LAYERS that matches no module (``sim`` and ``arena`` stayed after they moved) is an error."""
    heads = {name[len(PACKAGE) + 1 :].partition(".")[0] if name != PACKAGE else "" for name in MODULES}
    stale = [prefix for _, prefixes in LAYERS for prefix in prefixes if prefix not in heads]
    assert not stale, f"no such module: {stale}"


def _front_end_crossings(graph: dict[str, tuple[set[str], set[str]]]) -> list[str]:
    def head(module: str) -> str:
        return module[len(PACKAGE) + 1 :].partition(".")[0]

    return sorted(
        f"{m} imports {d}"
        for m, (deps, _) in graph.items()
        for d in deps
        for importer, imported in SEPARATE_FRONT_ENDS
        if head(m) == importer and head(d) == imported
    )


def test_web_and_envs_never_import_the_terminal() -> None:
    """Issue 37, item 1: the words are neutral; the terminal's package is the terminal's alone."""
    crossings = _front_end_crossings(GRAPH)
    assert not crossings, "\n".join(crossings)
    # The checker itself can fail: an import of the terminal from the web or the envs is found.
    probe = {
        f"{PACKAGE}.web.games": ({f"{PACKAGE}.terminal.render", f"{PACKAGE}.words"}, set()),
        f"{PACKAGE}.envs.gym_env": ({f"{PACKAGE}.terminal"}, set()),
        f"{PACKAGE}.cli.play_cmd": ({f"{PACKAGE}.terminal.start"}, set()),
    }
    assert _front_end_crossings(probe) == [
        f"{PACKAGE}.envs.gym_env imports {PACKAGE}.terminal",
        f"{PACKAGE}.web.games imports {PACKAGE}.terminal.render",
    ]


def test_imports_point_down_the_layers() -> None:
    wrong = [
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
        for m, (deps, _) in GRAPH.items()
        for d in deps
        if layer_of(d) > layer_of(m)
    ]
    assert not wrong, "upward imports:\n" + "\n".join(sorted(wrong))


def test_no_import_cycle() -> None:
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(GRAPH[m][0]):
            if state.get(d) == 1:
                cycle = [*stack[stack.index(d) :], d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)


def test_the_core_uses_only_the_standard_library() -> None:
    core = {LAYERS.index(next(entry for entry in LAYERS if entry[0] == n)) for n in CORE_LAYERS}
    offenders = {
        m: sorted(ext - set(sys.stdlib_module_names) - {"__future__"})
        for m, (_, ext) in GRAPH.items()
        if layer_of(m) in core
    }
    assert not {m: e for m, e in offenders.items() if e}


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    """The walker itself can fail: an import in a function body is found."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from .rules import Game\n    import importlib\n", encoding="utf-8")
    deps, _ = _imports(f"{PACKAGE}.probe", probe)
    assert f"{PACKAGE}.rules" in deps


def test_nothing_outside_the_engine_writes_private_fields_of_other_objects() -> None:
    """Positions, setup and front ends build a game through ``Game(state)``, never field by field."""
    poking: list[str] = []
    for name, path in MODULES.items():
        if name == f"{PACKAGE}.rules" or name.startswith(f"{PACKAGE}.rules."):  # the engine package's rooms
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr.startswith("_")
                    and not target.attr.startswith("__")
                    and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))
                ):
                    poking.append(f"{name}:{node.lineno} writes .{target.attr}")
    assert not poking, "\n".join(poking)


def _session_game_reads(source: str) -> list[int]:
    """Lines of ``source`` that read the ``game`` of something named ``session`` (``session.game``,
    ``live.session.game``, ``self.session.game``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "game":
            base = node.value
            name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if name == "session":
                lines.append(node.lineno)
    return sorted(lines)


def test_the_web_does_not_reach_into_the_session_s_game() -> None:
    """Issue 26, item 5: the web goes through ``GameSession`` for every check, fact and sentence
    (the session's own sentence methods, issue 37, item 3); it never holds the game."""
    reads = [
        f"{name}:{line}"
        for name, path in MODULES.items()
        if name.startswith(f"{PACKAGE}.web.")
        for line in _session_game_reads(path.read_text(encoding="utf-8"))
    ]
    assert not reads, "the web reads session.game at:\n" + "\n".join(reads)
    # The checker itself can fail: it sees each way of reaching the game, and nothing else.
    probe = "a = session.game\nb = live.session.game.clone()\nc = self.session.game\nd = replay.game\n"
    assert _session_game_reads(probe) == [1, 2, 3]
