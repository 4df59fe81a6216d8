"""The house's shape: imports run one way (the import-linter contracts in ``pyproject.toml`` hold:
the core's layers, rule systems independent of each other, the layers inside each system and
its commands, no Textual below the screens); no class or module grows past what a newcomer can
read; every rule system has the same skeleton, its parts behind the interfaces of
``systems.base``; and a third one is a package of its own: a toy one, written here, runs through
the common commands untouched."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.paths import ROOT


def test_import_contracts_hold() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports; exit(lint_imports())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert "BROKEN" not in out.stdout
    assert out.stdout.count("KEPT") == len(contracts["contracts"])


# The most methods a class may have, and lines a module, in the project's code.
MAX_METHODS = 40
MAX_LINES = 900


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_class_or_module_past_what_a_newcomer_can_read() -> None:
    """Each class of ``facility_tui/`` and ``screens/`` holds at most ``MAX_METHODS`` methods of
    its own (the ``def``s of its body) and each module at most ``MAX_LINES`` lines: past that, a
    class does several jobs (a rule system's five) and a module holds several concerns."""
    too_big = []
    for path in [*_modules(ROOT / "facility_tui"), *_modules(ROOT / "screens")]:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if (lines := len(text.splitlines())) > MAX_LINES:
            too_big.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                defs = [
                    b for b in node.body if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                if len(defs) > MAX_METHODS:
                    too_big.append(f"{where}: class {node.name} has {len(defs)} methods")
    assert too_big == []


# Every rule system's package has these modules (``facility_tui.systems`` says what each holds),
# and each part the core talks to is the class of its own module.
SKELETON = (
    "info", "sheet", "rules", "engine", "catalogs", "choices", "turns", "view", "tactics",
    "carry", "validation", "system", "demo", "commands", "commands.helpers",
)  # fmt: skip
PARTS = ("turns", "choices", "view", "tactics", "carry", "validation")


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_every_rule_system_has_the_same_skeleton(system: str) -> None:
    from facility_tui.systems import _PACKAGES, base, rules_for

    package = _PACKAGES[system]
    for name in SKELETON:
        importlib.import_module(f"{package}.{name}")  # (a ModuleNotFoundError names the gap)
    assert (ROOT / package.replace(".", "/") / "catalog").is_dir()
    rules = rules_for(system)
    assert type(rules).__module__ == f"{package}.system"
    for part in PARTS:
        made = getattr(rules, part)
        interface = getattr(base, part.capitalize())
        assert isinstance(made, interface) and type(made) is not interface, part
        assert type(made).__module__ == f"{package}.{part}", part


# A third rule system, as a newcomer would write it: a package beside the two, with the files of
# their skeleton that it needs (the other parts keep ``systems.base``'s defaults).
TOY = {
    "__init__.py": """
        from facility_tui.systems.base import RuleSystem
        from toy_rules.info import INFO

        def load() -> RuleSystem:
            from facility_tui.commands.spec import commands_in
            from toy_rules.commands import luck
            from toy_rules.system import ToyRules

            return ToyRules(commands_in(luck))
    """,
    "info.py": """
        from facility_tui.systems.base import QuickKey, SystemInfo

        INFO = SystemInfo("toy", "Toy", (QuickKey("l", "Luck", "luck {who}"),))
    """,
    "sheet.py": """
        from attrs import frozen

        @frozen
        class ToySheet:
            luck: int = 3
    """,
    "turns.py": """
        from attrs import evolve
        from facility_tui.systems.base import Turns

        class ToyTurns(Turns):
            def round_order(self, enc, dice):
                return evolve(enc, order=tuple(c.id for c in self.listed(enc)))
    """,
    "view.py": """
        from facility_tui.model.text import Detail
        from facility_tui.model.view import Pane
        from facility_tui.systems.base import View

        class ToyView(View):
            columns = ("Luck",)

            def summary(self, enc, c):
                return {"Luck": c.sheet.luck}

            def panes(self, enc, c):
                return [Pane("Luck", (Detail("Luck", f"{c.sheet.luck} left"),))]
    """,
    "validation.py": """
        from facility_tui.systems.base import Validation

        class ToyValidation(Validation):
            def check_combatant(self, enc, c):
                luck = c.sheet.luck
                return ("sheet.luck", f"must be 0 or more, got {luck}") if luck < 0 else None
    """,
    "system.py": """
        from facility_tui.systems.base import RuleSystem
        from toy_rules.info import INFO
        from toy_rules.sheet import ToySheet
        from toy_rules.turns import ToyTurns
        from toy_rules.validation import ToyValidation
        from toy_rules.view import ToyView

        class ToyRules(RuleSystem):
            info = INFO
            sheet_type = ToySheet
            turns_type = ToyTurns
            view_type = ToyView
            validation_type = ToyValidation
    """,
    "commands/__init__.py": "",
    "commands/luck.py": """
        from facility_tui.commands.grammar import CommandError
        from facility_tui.commands.spec import command

        @command("luck", "luck WHO", "Spend a point of luck")
        def luck(call):
            c = call.combatant(call.arg(0, "who"))
            if c.sheet.luck < 1:
                raise CommandError(f"{c.name} has no luck left")
            return call.enc.update_sheet(c.id, luck=c.sheet.luck - 1)
    """,
}


def test_a_third_rule_system_is_a_package_of_its_own(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A toy system (a sheet, one command, one key, its order, its list column and pane, its
    hand-edit bound), written as a package and registered by id, is found as the two are and
    runs through the common commands, the dispatch, the report and a save: no change to the
    core."""
    from facility_tui import report, store, systems
    from facility_tui.commands import dispatch
    from facility_tui.commands.grammar import CommandError
    from facility_tui.commands.session import Session

    for name, text in TOY.items():
        path = tmp_path / "toy_rules" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(systems, "_PACKAGES", dict(systems._PACKAGES))
    monkeypatch.setattr(systems, "_SYSTEMS", dict(systems._SYSTEMS))
    monkeypatch.setattr(systems, "_INFOS", dict(systems._INFOS))
    systems.register("toy", "toy_rules")

    assert systems.ids() == ["2297", "facility", "toy"]
    assert systems.info("toy").quick_keys[0].template == "luck {who}"
    s = Session(store.blank())
    for line in ("new toy Den seed=1", "add Ann init=3", "add Bo init=5", "start", "luck ann"):
        s.execute(line)
    enc = s.encounter
    assert enc.system == "toy" and enc.get("ann").sheet.luck == 2
    assert enc.current == "bo"
    assert ("luck WHO", "Spend a point of luck") in dispatch.help_lines("toy")
    assert "Luck=2" in report.render_text(enc)
    rules = systems.rules_for("toy")
    assert [p.title for p in rules.view.panes(enc, enc.get("ann"))] == ["Luck"]
    assert rules.choices.open(enc) == () and rules.tactics.next_line(enc, "bo", None) is None
    with pytest.raises(CommandError, match="no luck left"):
        for _ in range(3):
            s.execute("luck ann")
    assert store.loads(store.dumps(s)).encounter == s.encounter
    broken = s.encounter.update_sheet("ann", luck=-1)
    assert rules.validation.check_combatant(broken, broken.get("ann")) == (
        "sheet.luck",
        "must be 0 or more, got -1",
    )
