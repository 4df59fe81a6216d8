"""The rules the project cites are in the project: every rule id (C1, A7, F12...) that the code, the
screens, the tests or the docs cite is an item of docs/rules.md, and nothing points at a rules file
or a folder the project does not contain."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tests.paths import ROOT

REFERENCE = ROOT / "docs" / "rules.md"

# Where rule ids are cited: names of tests (test_A7_A8_...), docstrings, comments, messages and
# log lines (the golden saves' "(A6 skipped)"), catalogs, docs.
SEARCHED = (
    "facility_tui",
    "screens",
    "styles",
    "tests",
    "docs",
    "benchmarks",
    ".ci",
    "README.md",
    "pyproject.toml",
)
SKIPPED = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

CITED = re.compile(r"(?<![A-Za-z0-9])[ACF][0-9]{1,2}(?![A-Za-z0-9])")
DEFINED = re.compile(r"^### ([ACF][0-9]{1,2}) ", re.MULTILINE)
# Not rules: the C0 control characters (model/text.py escapes them; C1 names the other block, and
# is a rule id too).
NOT_RULES = {"C0"}

# A rules file or a folder outside the project (the company's shared contract and the texts it
# was drawn from), spelled with a class so that this file does not match itself.
ELSEWHERE = re.compile(r"\bRULE[S]\.md|/share[d]\b|\bseed[s]/")


def texts() -> Iterator[tuple[Path, str]]:
    for name in SEARCHED:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            if not path.is_file() or SKIPPED.intersection(path.parts):
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # (images and other binary files cite nothing)
                continue


def cited(text: str) -> set[str]:
    return set(CITED.findall(text)) - NOT_RULES


def test_the_scan_reads_a_citation_in_every_form_the_project_writes() -> None:
    text = (
        "def test_A7_A8_one_hit(): ...  # (A6 skipped) RULES F5, F1–F12;"
        " 1d6 #A1B2C3 3C4 C0 escapes AC12 A12b"
    )
    assert cited(text) == {"A7", "A8", "A6", "F5", "F1", "F12"}


def test_the_reference_defines_each_rule_once() -> None:
    ids = DEFINED.findall(REFERENCE.read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for letter, last in (("C", 6), ("A", 11), ("F", 12)):
        assert [i for i in ids if i[0] == letter] == [f"{letter}{n}" for n in range(1, last + 1)]


def test_every_rule_id_cited_is_defined_in_docs_rules_md() -> None:
    defined = set(DEFINED.findall(REFERENCE.read_text(encoding="utf-8")))
    where: dict[str, list[str]] = {}
    for path, text in texts():
        for rule in cited(text) - defined:
            where.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    assert not where, f"rule ids cited but not defined in docs/rules.md: {where}"


def test_nothing_points_at_a_rules_file_or_folder_outside_the_project() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}"
        for path, text in texts()
        for m in ELSEWHERE.finditer(text)
    ]
    assert not found, "\n".join(found)


def _anchors(doc: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_the_references_links_lead_somewhere() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)]+)\)", text):
        name, _, anchor = target.partition("#")
        doc = REFERENCE.parent / name if name else REFERENCE
        if not doc.is_file() or (anchor and anchor not in _anchors(doc)):
            broken.append(target)
    assert not broken
