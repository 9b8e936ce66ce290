"""One list of fields, kept in step: the undo snapshot (``GameCore._snapshot``) and its restore
(``_restore``) name the same fields in the same order, cover every field an action can change, and
``clone`` sets every field of the class.  The two lists stay written out by hand (a loop over names is
slower on the hot path of apply and undo: docs/architecture.md, "The engine's rooms"), so these tests
are what fails when a field is added to one place and not the other."""

from __future__ import annotations

import ast
import copy
import inspect
import random
import textwrap
from typing import Any

import pytest

from clashofdecks import actions as A
from clashofdecks.cards import N_CARDS
from clashofdecks.formats import new_game
from clashofdecks.options import Ruleset
from clashofdecks.rules import DecisionKind, Game
from clashofdecks.rules.core import GameCore

#: Fields an action never changes: the game's configuration, fixed when it is built.
CONFIGURATION = frozenset(
    {
        "_hidden_ids",
        "_max_turns",
        "_per_card",
        "_prot_any",
        "_rotated",
        "_ruleset",
        "_solo",
        "_threat",
        "_threat_bits",
        "_timing_combat",
        "origin",
    }
)
#: Fields of the undo machinery itself and the event buffer, which undo handles apart.
BOOKKEEPING = frozenset({"_actions", "_events", "_history", "_keep_undo", "_record"})
#: The legal actions' cache: snapshotted (an undo gives the list back without computing it), but
#: filled by a mere query, so it is no state an action changes.
CACHE = "_legal"
#: Local names the snapshot reads and the restore writes in place of a field (the hands, the lanes).
_LOCAL_ALIASES = {"h": "_hands", "la": "_lanes", "h0": "_hands", "h1": "_hands"} | {
    f"l{i}": "_lanes" for i in range(4)
}


def _method(name: str) -> ast.FunctionDef:
    source = textwrap.dedent(inspect.getsource(getattr(GameCore, name)))
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _field_of(node: ast.expr) -> str:
    """The field an element of the snapshot reads, or a target of the restore writes (of a
    conditional copy, ``x.copy() if cond else x``, the field both branches read)."""
    if isinstance(node, ast.IfExp):
        field = _field_of(node.body)
        assert _field_of(node.orelse) == field, f"{ast.unparse(node)} reads two fields"
        return field
    names = [
        n.attr if isinstance(n, ast.Attribute) else _LOCAL_ALIASES[n.id]
        for n in ast.walk(node)
        if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self")
        or (isinstance(n, ast.Name) and n.id in _LOCAL_ALIASES)
    ]
    assert len(set(names)) == 1, f"{ast.unparse(node)} reads {names}"
    return names[0]


def snapshot_fields() -> list[str]:
    returned = [n for n in ast.walk(_method("_snapshot")) if isinstance(n, ast.Return)]
    assert len(returned) == 1 and isinstance(returned[0].value, ast.Tuple)
    return [_field_of(e) for e in returned[0].value.elts]


def restore_fields() -> list[str]:
    unpacking = [
        n
        for n in ast.walk(_method("_restore"))
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Tuple)
    ]
    assert len(unpacking) == 1
    target = unpacking[0].targets[0]
    assert isinstance(target, ast.Tuple)
    return [_field_of(e) for e in target.elts]


def test_the_snapshot_and_the_restore_list_the_same_fields_in_the_same_order() -> None:
    assert snapshot_fields() == restore_fields()


def test_every_field_is_snapshotted_or_named_as_configuration_or_bookkeeping() -> None:
    slots = set(GameCore.__slots__)
    snapshotted = set(snapshot_fields())
    assert not CONFIGURATION & snapshotted and not BOOKKEEPING & snapshotted
    assert slots - snapshotted - CONFIGURATION - BOOKKEEPING == set()
    assert (snapshotted | CONFIGURATION | BOOKKEEPING) - slots == set()


def test_clone_sets_every_field() -> None:
    source = textwrap.dedent(inspect.getsource(Game.clone))
    written = {
        t.attr
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "g"
    }
    assert set(GameCore.__slots__) - written - set(snapshot_fields()) == set()


def test_a_mismatch_is_caught() -> None:
    """The checker of the two lists sees a field missing from one of them (the test can fail)."""
    elements = ["self._stage", "self._turn", "h[0].copy()", "self._solo and self._deck"]
    tree = ast.parse(f"({', '.join(elements)})", mode="eval").body
    assert isinstance(tree, ast.Tuple)
    assert [_field_of(e) for e in tree.elts[:3]] == ["_stage", "_turn", "_hands"]
    with pytest.raises(AssertionError, match="reads"):
        _field_of(tree.elts[3])


def _fields(game: Game) -> dict[str, Any]:
    return {
        name: copy.deepcopy(getattr(game, name))
        for name in GameCore.__slots__
        if name not in BOOKKEEPING and name != CACHE and hasattr(game, name)
    }


_STARTS = [
    {"mode": "duel", "format": "draft"},
    {"mode": "duel", "format": "custom"},
    {"mode": "duel", "format": "precon"},
    {"mode": "duel", "format": "draft", "external_chance": True},
    {"mode": "solo", "format": "draft"},
    {"mode": "solo", "format": "precon"},
]


@pytest.mark.parametrize("start", _STARTS, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_undo_gives_back_every_field_an_action_changed(start: dict[str, Any]) -> None:
    """From the setup to the end of a game, after every action: undo restores every field that is not
    the undo machinery's own, so no state escapes the snapshot."""
    rng = random.Random(7)
    for seed in range(4):
        game = new_game(seed=seed, ruleset=Ruleset(max_turns=40), **start)
        while not game.is_over():
            before = _fields(game)
            if game.decision_kind is DecisionKind.BUILD:  # C(32, 10) decks, not listed (R2.5)
                action = A.BUILD_BASE + A.build_rank(rng.sample(range(N_CARDS), A.DECK_SIZE_CUSTOM))
            else:
                legal = game.legal_actions()
                action = legal[rng.randrange(len(legal))]
            game.apply(action)
            game.undo()
            after = _fields(game)
            changed = sorted(name for name in before if after.get(name) != before[name])
            assert not changed, f"{start}, seed {seed}, {game.history} + {action}: {changed} not restored"
            game.apply(action)
