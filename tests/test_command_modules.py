"""Command modules are thin (issue 26, item 8): no ``clash`` command module imports another; what
two commands share is in ``cli/common.py`` or the library (docs/architecture.md, "Command modules")."""

from __future__ import annotations

from test_architecture import GRAPH

PACKAGE = "clashofdecks.cli."


def _command_modules() -> list[str]:
    return sorted(m for m in GRAPH if m.startswith(PACKAGE) and m.endswith("_cmd"))


def command_imports(graph: dict[str, tuple[set[str], set[str]]]) -> list[tuple[str, str]]:
    """(importer, imported) for each command module importing another command module."""
    return sorted(
        (name, imported)
        for name, (internal, _external) in graph.items()
        if name.startswith(PACKAGE) and name.endswith("_cmd")
        for imported in internal
        if imported.startswith(PACKAGE) and imported.endswith("_cmd")
    )


def test_no_command_module_imports_another() -> None:
    assert len(_command_modules()) >= 10  # the checker sees the commands
    assert command_imports(GRAPH) == []


def test_a_command_importing_another_is_caught() -> None:
    graph = {
        "clashofdecks.cli.arena_cmd": ({"clashofdecks.cli.simulate_cmd", "clashofdecks.cli.common"}, set()),
        "clashofdecks.cli.simulate_cmd": ({"clashofdecks.simulation"}, set()),
    }
    assert command_imports(graph) == [("clashofdecks.cli.arena_cmd", "clashofdecks.cli.simulate_cmd")]
