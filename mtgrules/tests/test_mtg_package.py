"""The package on its own: rule citations, the docs tables, package data, dependencies."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import mtgrules
from mtg_helpers import SCENARIO_DIR
from mtgrules.citations import CITED_RULES, RULE_TEXTS, RULES_EDITION

PACKAGE_DIR = Path(mtgrules.__file__).parent
PROJECT_DIR = PACKAGE_DIR.parents[1]  # mtgrules/ (src/mtgrules -> src -> mtgrules)
DOCS = PROJECT_DIR.parent / "docs" / "mtgrules.md"  # present in the repository, not in a bare package
SCHEMA = json.loads((PACKAGE_DIR / "schemas" / "scenario.schema.json").read_text())
SCENARIOS = sorted(SCENARIO_DIR.glob("*.json"))

RULE = re.compile(r"\b([1-9][0-9]{2}\.[0-9]+)([a-z])?(?:[–-]([a-z]))?\b")


def _numbers(text: str) -> set[str]:
    """Rule numbers in ``text``; a range like 702.22j-k stands for each rule in it."""
    found = set()
    for base, first, last in RULE.findall(text):
        if not first:
            found.add(base)
        else:
            found |= {base + chr(c) for c in range(ord(first), ord(last or first) + 1)}
    return found


def _cited_in_code() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        if path.name == "citations.py":
            continue
        for number in _numbers(path.read_text()):
            cited.setdefault(number, set()).add(path.name)
    for path in SCENARIOS:
        for number in _numbers(" ".join(json.loads(path.read_text())["rules"])):
            cited.setdefault(number, set()).add(path.name)
    return cited


# ---------------------------------------------------------------- citations


def test_every_cited_rule_number_is_on_the_checked_list() -> None:
    unknown = {n: sorted(where) for n, where in _cited_in_code().items() if n not in CITED_RULES}
    assert not unknown, f"rule numbers cited but not on the list in citations.py / docs: {unknown}"


def _cited_in_docs() -> set[str]:
    return _numbers(DOCS.read_text().split("## Cited rules", 1)[0]) if DOCS.exists() else set()


@pytest.mark.skipif(not DOCS.exists(), reason="docs/mtgrules.md is part of the repository, not the package")
def test_every_rule_number_in_the_docs_is_on_the_checked_list() -> None:
    unknown = sorted(_cited_in_docs() - set(CITED_RULES))
    assert not unknown, f"docs/mtgrules.md cites numbers not on the list: {unknown}"


def test_the_list_has_no_stale_numbers() -> None:
    unused = sorted(set(CITED_RULES) - set(_cited_in_code()) - _cited_in_docs())
    if DOCS.exists():
        assert not unused, f"listed but cited nowhere: {unused}"
    else:  # without the docs, only numbers the docs alone cite may be unused
        assert set(unused) <= {"500.5", "702.19", "704.5c", "704.5e", "704.5h", "704.5i"}, unused


def test_outdated_numbers_are_not_cited() -> None:
    """702.19e (the trampler without blockers is 702.19d), 702.19c, 111.12 (cited as 608.3f instead)."""
    cited = _cited_in_code()
    assert "702.19e" not in cited and "702.19c" not in cited and "111.12" not in cited
    # 500.4 is effects that last until a step begins; mana empties by 500.5 (RULES_EDITION)
    assert "500.4" not in CITED_RULES and "500.5" in CITED_RULES


def test_haste_numbers_follow_the_edition() -> None:
    """702.10b lets a hasty creature attack; its {T} and {Q} abilities are 702.10c (RULES_EDITION)."""
    for scenario in ("EX3", "FX4"):  # a hasty creature pays {T}; a creature's {T} mana ability
        path = next(SCENARIO_DIR.glob(f"{scenario}_*.json"))
        rules = json.loads(path.read_text())["rules"]
        assert "702.10c" in rules and "702.10b" not in rules, path.name


def test_number_extraction_finds_ranges() -> None:
    assert _numbers("(702.22j-k, 510.1c–d; 116.2m)") == {"702.22j", "702.22k", "510.1c", "510.1d", "116.2m"}


@pytest.mark.skipif(not DOCS.exists(), reason="docs/mtgrules.md is part of the repository, not the package")
def test_docs_citation_table_matches_the_list() -> None:
    text = DOCS.read_text()
    section = text.split("## Cited rules", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d{3}\.\d+[a-z]?) \| (.+?) \|$", section, flags=re.M)
    assert dict(rows) == CITED_RULES
    assert [n for n, _ in rows] == list(CITED_RULES)


@pytest.mark.skipif(not DOCS.exists(), reason="docs/mtgrules.md is part of the repository, not the package")
def test_docs_print_the_schema_file() -> None:
    section = DOCS.read_text().split("## JSON Schema of scenario files", 1)[1]
    printed = section.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(printed) == SCHEMA


# ---------------------------------------------------------------- the package


def test_package_data_names_only_folders_that_exist() -> None:
    config = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["mtgrules"]
    for pattern in patterns:
        assert list(PACKAGE_DIR.glob(pattern)), f"package-data {pattern!r} matches no file"


def test_core_imports_neither_click_nor_rich_nor_clashofdecks() -> None:
    core = [p.stem for p in PACKAGE_DIR.glob("*.py") if p.stem not in ("cli", "__init__")]
    code = (
        "import sys\n"
        + "".join(f"import mtgrules.{m}\n" for m in core)
        + "bad = [m for m in ('click', 'rich', 'clashofdecks') if m in sys.modules]\n"
        + "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    imports_of = re.compile(r"^\s*(?:from|import)\s+(\w+)", re.M)
    for path in PACKAGE_DIR.rglob("*.py"):
        assert "clashofdecks" not in imports_of.findall(path.read_text()), path
    # and the reverse, when the repository's other package is next to this one
    for path in (PROJECT_DIR.parent / "src" / "clashofdecks").rglob("*.py"):
        assert "mtgrules" not in imports_of.findall(path.read_text()), path


def test_console_script_without_click_says_which_extra_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['click'] = None  # as if Click were not installed\n"
        "from mtgrules.entry import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert "pip install 'mtgrules[cli]'" in out.stderr and "Traceback" not in out.stderr


def test_quoted_rules_are_cited_and_printed_in_the_docs() -> None:
    assert set(RULE_TEXTS) <= set(CITED_RULES)
    if DOCS.exists():
        section = DOCS.read_text().split("## Quoted rules", 1)[1].split("\n## ", 1)[0]
        quotes = dict(re.findall(r"^\* \*\*(\d{3}\.\d+[a-z]?)\*\* (.+)$", section, flags=re.M))
        assert quotes == RULE_TEXTS
        assert " ".join(RULES_EDITION.split()) in " ".join(section.split())


def test_quotes_keep_the_rules_own_typography() -> None:
    """The CR prints curly apostrophes and quotation marks; a straight one means a quote was not copied
    from RULES_EDITION."""
    retyped = {n: t for n, t in RULE_TEXTS.items() if "'" in t or '"' in t}
    assert not retyped, f"quotes not copied from {RULES_EDITION}: {sorted(retyped)}"
