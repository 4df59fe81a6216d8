"""The core runs without Textual: importing it, and running the headless CLI, never loads it."""

from __future__ import annotations

import subprocess
import sys

CORE = [
    "facility_tui.model",
    "facility_tui.dice",
    "facility_tui.grammar",
    "facility_tui.call",
    "facility_tui.dispatch",
    "facility_tui.verbs",
    "facility_tui.rounds",
    "facility_tui.session",
    "facility_tui.store",
    "facility_tui.codec",
    "facility_tui.workspace",
    "facility_tui.demo",
    "facility_tui.report",
    "facility_tui.text",
    "facility_tui.cli",
    "facility_tui.systems",
]


def test_core_imports_no_textual() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE)
        + "import facility_tui.systems as s; list(s.all_systems())\n"
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'd20'))\n"
        + "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # d20 is imported on first roll, not at import time (it costs ~0.2 s to build its grammar)
    assert out.stdout.strip() == ""


def test_headless_apply_and_show_never_import_textual(tmp_path) -> None:
    save = tmp_path / "f.toml"
    code = (
        "import sys\n"
        "from facility_tui.cli import main\n"
        f"assert main(['apply', {str(save)!r}, '--seed', '1', 'new 2297 T', 'add A init=2d6',"
        " 'start']) == 0\n"
        f"assert main(['show', {str(save)!r}, '--json']) == 0\n"
        "print('TEXTUAL' if any(m.startswith('textual') for m in sys.modules) else 'PURE')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("PURE")


def test_only_the_rules_in_use_are_loaded() -> None:
    """A 2297 fight never pays for importing the Facility rules (start-up budget, issue 6)."""
    code = (
        "import sys\n"
        "from facility_tui.demo import demo_encounter\n"
        "from facility_tui.session import Session\n"
        "s = Session(demo_encounter())\n"
        "s.execute('start'); s.execute('hit blanc 5'); s.execute('undo')\n"
        "print('facility_tui.systems.facility.system' in sys.modules)\n"
        "s.execute('new facility X')\n"
        "print('facility_tui.systems.facility.system' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
