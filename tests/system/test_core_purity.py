"""The core runs without Textual: importing it, and running the headless CLI, never loads it."""

from __future__ import annotations

import os
import subprocess
import sys

CORE = [
    "facility_tui.model.encounter",
    "facility_tui.commands.dice",
    "facility_tui.commands.grammar",
    "facility_tui.commands.spec",
    "facility_tui.commands.dispatch",
    "facility_tui.commands.verbs",
    "facility_tui.commands.rounds",
    "facility_tui.commands.session",
    "facility_tui.store",
    "facility_tui.model.codec",
    "facility_tui.workspace",
    "facility_tui.campaign.summaries",
    "facility_tui.campaign.files",
    "facility_tui.campaign.demo",
    "facility_tui.report",
    "facility_tui.model.text",
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
        "from facility_tui.campaign.demo import demo_encounter\n"
        "from facility_tui.commands.session import Session\n"
        "s = Session(demo_encounter())\n"
        "s.execute('start'); s.execute('hit blanc 5'); s.execute('undo')\n"
        "print('facility_tui.systems.facility.system' in sys.modules)\n"
        "s.execute('new facility X')\n"
        "print('facility_tui.systems.facility.system' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_importing_the_cli_and_the_app_leaves_the_garbage_collector_alone() -> None:
    """Only the launcher (``facility-tui``, ``python -m facility_tui``) holds the collector."""
    code = (
        "import gc\n"
        "import facility_tui.cli, facility_tui.app, facility_tui.launch\n"
        "print(gc.isenabled(), gc.get_freeze_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "0"]


def test_the_launcher_imports_without_collecting_and_the_app_runs_with_it(tmp_path) -> None:
    """The launch imports with the cyclic collector off, then freezes what it imported and turns
    the collector back on before the app runs; while the main screen is shown its own collector
    (screens/collector.py) holds it for quiet moments, and gives it back when the app ends."""
    code = (
        "import gc, sys\n"
        "seen = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'facility_tui.app':\n"
        "            seen.append(('importing', gc.isenabled()))\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from textual.app import App\n"
        "run = App.run\n"
        "async def first_frame(pilot):\n"
        "    await pilot.pause()\n"
        "    seen.append(('shown', gc.isenabled()))\n"
        "    pilot.app.exit()\n"
        "def headless(self, *args, **kwargs):\n"
        "    seen.append(('running', gc.isenabled(), gc.get_freeze_count() > 10_000))\n"
        "    return run(self, headless=True, size=(80, 24), auto_pilot=first_frame)\n"
        "App.run = headless\n"
        f"sys.argv = ['facility-tui', '--saves', {str(tmp_path)!r}, '--seed', '1']\n"
        "from facility_tui.launch import main\n"
        "code = main()\n"
        "seen.append(('ended', gc.isenabled(), code))\n"
        "print(seen)\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip().splitlines()[-1] == str(
        [("importing", False), ("running", True, True), ("shown", False), ("ended", True, 0)]
    )


def test_a_headless_command_through_the_launcher(tmp_path) -> None:
    """``python -m facility_tui apply`` runs its commands with the collector held: same result."""
    save = tmp_path / "f.toml"
    cmd = [sys.executable, "-m", "facility_tui", "apply", str(save), "--seed", "1", "-q"]
    subprocess.run([*cmd, "add A init=2d6", "add B init=2d6", "start"], check=True)
    out = subprocess.run(
        [sys.executable, "-m", "facility_tui", "show", str(save), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    import json

    state = json.loads(out.stdout)
    assert (state["phase"], state["round"]) == ("active", 1)
    assert sorted(c["name"] for c in state["combatants"]) == ["A", "B"]


def test_apply_pays_for_no_module_it_does_not_use(tmp_path) -> None:
    """``apply`` is budgeted at half a bare Textual start-up: it writes atomically without
    tempfile, and argparse is given the terminal's width, so neither imports shutil (with zlib,
    bz2 and lzma); JSON output is imported by the commands that print it."""
    save = tmp_path / "f.toml"
    code = (
        "import sys\n"
        "from facility_tui.cli import main\n"
        f"assert main(['apply', {str(save)!r}, '--seed', '1', '-q', 'add A init=2d6']) == 0\n"
        f"assert main(['apply', {str(save)!r}, '-q', 'start']) == 0\n"
        "print(sorted({'shutil', 'tempfile', 'bz2', 'lzma'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_help_fits_the_terminal_width_it_is_given(tmp_path) -> None:
    env = {**os.environ, "COLUMNS": "44"}
    cmd = [sys.executable, "-m", "facility_tui", "apply", "--help"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    assert "save file (created if missing)" in " ".join(out.split())
    assert out.startswith("usage: facility-tui apply [-h]")  # (its own usage, wrapped too)
    assert max(len(line) for line in out.splitlines()) <= 44


def test_the_launcher_leaves_the_objects_to_the_exit(tmp_path) -> None:
    """Python's shutdown walks every object in a last collection; the launcher freezes them
    first (a headless command pays ~9 ms less) and the command has done all its work by then."""
    save = tmp_path / "f.toml"
    code = (
        "import gc, sys\n"
        "from facility_tui.launch import main\n"
        f"sys.argv = ['facility-tui', 'apply', {str(save)!r}, '--seed', '1', 'add A init=2d6']\n"
        "code = main()\n"
        "print(code, gc.get_freeze_count() > 10_000, len(gc.get_objects()) < 1_000)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[0] == "> add A init=2d6"
    assert out.stdout.splitlines()[-1] == "0 True True"


def test_a_launch_compiles_the_code_libraries_write_once_for_the_next(tmp_path) -> None:
    """The first launches keep the code attrs, dataclasses and typing compiled beside the
    bytecode (the second reads a fight, whose classes' annotations the first did not); the next
    doing the same compile none (their classes read back, the file left as it was), though
    each process salts its classes' hashes with another number."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pyc")
    save = tmp_path / "f.toml"

    def apply(line: str) -> None:
        cmd = [sys.executable, "-m", "facility_tui", "apply", str(save), "-q", line]
        subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)

    apply("add A init=2d6")
    apply("add B init=2d6")
    [kept] = list((tmp_path / "pyc").rglob("compiled-apply.marshal"))
    written = kept.stat().st_mtime_ns, kept.read_bytes()
    apply("add C init=2d6")
    apply("add D init=2d6")
    assert (kept.stat().st_mtime_ns, kept.read_bytes()) == written
    from facility_tui import store

    assert [c.name for c in store.load(save).encounter.combatants] == ["A", "B", "C", "D"]
