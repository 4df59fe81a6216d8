"""Imports run one way: the import-linter contracts in ``pyproject.toml`` hold (the core's layers,
rule systems independent of each other, the layers inside each system and its commands, no
Textual below the screens); and a rule system is a package of its own: a toy one, written here,
runs through the common commands untouched."""

from __future__ import annotations

import subprocess
import sys
import tomllib
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
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert "BROKEN" not in out.stdout
    assert out.stdout.count("KEPT") == len(contracts["contracts"])


def test_a_third_rule_system_is_a_package_of_its_own(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A toy system (a sheet, one command, one key), declared here and registered by id, runs
    through the common commands, the dispatch and a save without a change to the core."""
    from attrs import frozen

    from facility_tui import store, systems
    from facility_tui.commands import dispatch
    from facility_tui.commands.session import Session
    from facility_tui.commands.spec import Call, command, commands_in
    from facility_tui.model.encounter import Encounter

    monkeypatch.setattr(systems, "_SYSTEMS", dict(systems._SYSTEMS))
    monkeypatch.setattr(systems, "_INFOS", dict(systems._INFOS))

    @frozen
    class ToySheet:
        luck: int = 3

    @command("luck", "luck WHO", "Spend a point of luck")
    def luck(call: Call) -> Encounter:
        c = call.combatant(call.arg(0, "who"))
        return call.enc.update_sheet(c.id, luck=c.sheet.luck - 1)

    class Toy(systems.RuleSystem):
        info = systems.SystemInfo("toy", "Toy", (systems.QuickKey("l", "Luck", "luck {who}"),))
        system, title, sheet_type = "toy", "Toy", ToySheet

        def round_order(self, enc: Encounter, dice: object) -> Encounter:
            from attrs import evolve

            return evolve(enc, order=tuple(c.id for c in self.listed(enc)))

    module = type(sys)("toy_commands")
    module.luck = luck
    luck.__module__ = "toy_commands"
    systems.register(Toy(commands_in(module)))

    s = Session(store.blank())
    for line in ("new toy Den seed=1", "add Ann init=3", "add Bo init=5", "start", "luck ann"):
        s.execute(line)
    assert s.encounter.system == "toy" and s.encounter.get("ann").sheet.luck == 2
    assert s.encounter.current == "bo"
    assert ("luck WHO", "Spend a point of luck") in dispatch.help_lines("toy")
    assert store.loads(store.dumps(s)).encounter == s.encounter
