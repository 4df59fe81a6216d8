"""Imports run one way: the import-linter contracts in ``pyproject.toml`` hold (the core's layers,
rule systems independent of each other, no Textual below the screens); and a rule system is a
package of its own: a toy one, written here, runs through the common commands untouched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports; exit(lint_imports())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and out.stdout.count("KEPT") == 3
