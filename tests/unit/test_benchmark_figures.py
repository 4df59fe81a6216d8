"""Benchmark figures live in docs/benchmarks.md, dated with the run that measured them; the code
says why it does a thing, without the figure, which would go stale where no run updates it.

No docstring or comment of ``facility_tui/`` quotes a timing: a number followed by a unit of time
(``ms``, ``µs``, ``s``...) or by ``×``. ``screens/`` is not checked yet: its figures move with its
own rework (issue 37), and then this test covers it too."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator

from tests.paths import ROOT

CHECKED = ("facility_tui", "screens")

# A number standing alone (not the 6 of ``1d6``), then a unit of time, or ×, as a ratio (not the
# × of a size, 80×24).
TIMING = re.compile(
    r"(?<![\w.])~?\d+(?:[.,]\d+)?"
    r"(?:\s?(?:ms|µs|us|ns|secs?|seconds?|milliseconds?|microseconds?)\b|\s+s\b|\s?×(?!\s?\d))"
)


def prose(source: str) -> Iterator[tuple[int, str]]:
    """The docstrings (every string standing as a statement) and the comments of a module, each
    run of comment lines as one text (a figure may be cut across two), with its first line."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Constant):
            continue
        if isinstance(node.value.value, str):
            yield node.lineno, node.value.value
    start, run, last = 0, [], -1
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        if tok.start[0] != last + 1 and run:
            yield start, "\n".join(run)
            run = []
        if not run:
            start = tok.start[0]
        run.append(tok.string.lstrip("#: "))
        last = tok.start[0]
    if run:
        yield start, "\n".join(run)


def timings(source: str) -> list[tuple[int, str]]:
    return [
        (line + text.count("\n", 0, m.start()), " ".join(m.group().split()))
        for line, text in prose(source)
        for m in TIMING.finditer(text)
    ]


def test_a_timing_is_found_in_a_docstring_or_across_comment_lines() -> None:
    source = (
        '"""A module (~2 ms of a launch)."""\n'
        "def f():\n"
        '    """Twice as fast: 1.5× the keys."""\n'
        "    x = 1  # a tenth of a second, 8-13\n"
        "    # ms while the pool played\n"
        "    return '0.2 s'  # (a string that is a value, not prose: not read)\n"
    )
    assert timings(source) == [(1, "~2 ms"), (3, "1.5×"), (4, "13 ms")]


def test_rules_and_sizes_are_not_timings() -> None:
    source = (
        "# A9: fatigue −1s offered; 1d6 × 10 minutes; [sum]×10 (F12); 80×24; a Break (1 hour)\n"
        '"""50 % STA; 3d10kh2; 0.5 of it; 10 slots"""\n'
    )
    assert timings(source) == []


def test_no_docstring_or_comment_of_the_core_quotes_a_timing() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {figure}"
        for top in CHECKED
        for path in sorted((ROOT / top).rglob("*.py"))
        for line, figure in timings(path.read_text(encoding="utf-8"))
    ]
    assert not found, "move these figures to docs/benchmarks.md:\n" + "\n".join(found)


def test_each_pointer_to_docs_benchmarks_md_names_one_of_its_headings() -> None:
    """``(docs/benchmarks.md, 'The store')`` in the code leads to a heading of that name."""
    doc = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#+ (.+)$", doc, re.MULTILINE)
    lost = []
    for top in CHECKED:
        for path in sorted((ROOT / top).rglob("*.py")):
            for line, text in prose(path.read_text(encoding="utf-8")):
                flat = " ".join(text.split())
                for m in re.finditer(r"docs/benchmarks\.md, '", flat):
                    if not any(flat.startswith(h + "'", m.end()) for h in headings):
                        lost.append(f"{path.relative_to(ROOT)}:{line}: {flat[m.end() :][:40]}")
    assert not lost
