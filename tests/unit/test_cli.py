"""The headless CLI: ``apply`` and ``show`` (issue 2's scripted fight)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from facility_tui.cli import COMMANDS, main
from tests.paths import ROOT


def show_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["show", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_scripted_fight_matches_show_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "fight.toml"
    lines = [
        "new 2297 Deck",
        "add A side=pc init=20",
        "add B init=15",
        "add C init=10",
        "add D side=pc init=5",
        "start",
        *["next"] * 6,
        "undo",
        "undo",
        "redo",
    ]
    assert main(["apply", str(save), "--seed", "9", *lines]) == 0
    state = show_json(save, capsys)
    # 6 nexts from round 1 turn 0 over 4 combatants = round 2 turn 2; undo x2 then redo = turn 1
    assert (state["phase"], state["round"], state["turn"]) == ("active", 2, 1)
    assert state["order"] == ["a", "b", "c", "d"]
    assert state["current"] == "b" and state["next"] == "c"
    assert state["history"] == {"undo": 11, "redo": 1}
    assert [c["name"] for c in state["combatants"]] == ["A", "B", "C", "D"]


def test_apply_is_all_or_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "f.toml"
    assert main(["apply", str(save), "--seed", "1", "new 2297 T", "add A init=3"]) == 0
    before = save.read_bytes()
    assert main(["apply", str(save), "add B", "init b 2d", "add C"]) == 1
    err = capsys.readouterr().err
    assert "bad dice" in err and "nothing was saved" in err
    assert len(err.strip().splitlines()) == 1
    assert save.read_bytes() == before


def test_history_survives_between_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "f.toml"
    main(["apply", str(save), "--seed", "1", "new 2297 T", "add A init=2d6", "add B init=2d6"])
    main(["apply", str(save), "start", "next"])
    main(["apply", str(save), "undo", "undo", "undo"])
    state = show_json(save, capsys)
    assert [c["name"] for c in state["combatants"]] == ["A"]
    assert state["history"]["redo"] == 3
    main(["apply", str(save), "redo", "redo", "redo"])
    state = show_json(save, capsys)
    assert (state["round"], state["turn"]) == (1, 1)


def test_seeded_runs_are_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = []
    for name in ("a.toml", "b.toml"):
        save = tmp_path / name
        main(["apply", str(save), "--seed", "77", "new 2297 T", "add A init=3d6", "roll 4d10"])
        results.append(show_json(save, capsys)["log"])
    assert results[0] == results[1]


def test_apply_seed_is_the_seed_logged_and_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seed 7``: a ``new`` line without its own seed= makes an encounter of seed 7, logged
    so; a line's own seed= is kept."""
    save = tmp_path / "f.toml"
    assert main(["apply", str(save), "--seed", "7", "new 2297 T", "roll 4d10"]) == 0
    state = show_json(save, capsys)
    assert state["seed"] == 7
    assert state["log"][0]["text"] == "New 2297 encounter 'T' (seed 7)"
    again = tmp_path / "g.toml"
    assert main(["apply", str(again), "new 2297 T seed=7", "roll 4d10"]) == 0
    assert show_json(again, capsys)["log"] == state["log"]  # the same dice as seed=7's
    own = tmp_path / "h.toml"
    assert main(["apply", str(own), "--seed", "7", "new 2297 T seed=3"]) == 0
    assert show_json(own, capsys)["seed"] == 3


def test_a_typo_of_a_command_is_refused_with_the_nearest_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``facility-tui shwo`` and ``hti`` (no such command, no such save) are refused in one line
    naming the nearest command, and create nothing; a typo'd line in ``apply`` is told the
    nearest command of the rules. Headless, no message speaks of keys."""
    monkeypatch.chdir(tmp_path)
    save = tmp_path / "f.toml"
    assert main(["apply", str(save), "new 2297 T seed=1", "add A init=3", "add B init=2"]) == 0
    capsys.readouterr()
    there = sorted(tmp_path.iterdir())
    assert main(["shwo", str(save)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown command 'shwo' (did you mean show?)" in err
    assert main(["hti"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown command 'hti'" in err and ".toml" in err
    assert "(did you mean facility-tui apply SAVE 'hit …'?)" in err  # a command of the fight
    assert sorted(tmp_path.iterdir()) == there  # nothing created
    assert main(["apply", str(save), "hti b 3"]) == 1
    err = capsys.readouterr().err
    assert "unknown command 'hti' (did you mean hit?)" in err and "facility-tui commands" in err
    assert not re.search(r"\bpress\b|\bkeys?\b", err), err


def test_show_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "f.toml"
    main(["apply", str(save), "--seed", "1", "new 2297 Deck", "add Blanc side=pc init=9", "start"])
    capsys.readouterr()
    assert main(["show", str(save)]) == 0
    out = capsys.readouterr().out
    assert "Deck" in out and "Round 1" in out and "Blanc" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("schema_version = 999\n", "newer facility-tui"),
        ("this is = = not toml", "not a readable save"),
    ],
)
def test_bad_saves_are_refused_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    save = tmp_path / "bad.toml"
    save.write_text(content)
    assert main(["apply", str(save), "add X"]) == 2
    assert message in capsys.readouterr().err
    assert save.read_text() == content
    assert main(["show", str(save)]) == 2


@pytest.mark.system  # (a process of its own)
def test_python_dash_m_runs_the_cli(tmp_path: Path) -> None:
    save = tmp_path / "m.toml"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "facility_tui",
            "apply",
            str(save),
            "--seed",
            "2",
            "new facility X",
            "add Ann side=pc",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Added Ann" in out.stdout


def test_commands_lists_the_grammar(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["commands"]) == 0
    out = capsys.readouterr().out
    for verb in ("add NAME", "start", "next", "undo"):
        assert verb in out


def test_docs_dice_md_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/dice.md is generated; regenerate with `facility-tui commands --dice`."""
    assert main(["commands", "--dice"]) == 0
    generated = capsys.readouterr().out
    doc = ROOT / "docs" / "dice.md"
    assert doc.read_text(encoding="utf-8") == generated
    for verb in ("hit", "next", "attack", "strike", "tech", "crit"):
        assert f"| `{verb}` |" in generated


def test_docs_commands_md_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/commands.md is generated; regenerate with `facility-tui commands --markdown`."""
    assert main(["commands", "--markdown"]) == 0
    generated = capsys.readouterr().out
    doc = ROOT / "docs" / "commands.md"
    assert doc.read_text(encoding="utf-8") == generated


def test_the_docs_name_the_key_a_palette_entry_has() -> None:
    """Where the README or a doc says "`K` in the tracker (or "ENTRY" in the palette)", K is the
    key of that entry's binding (the export is E: e filters the log)."""
    import re

    from facility_tui.screens.main import MainScreen
    from textual.binding import Binding

    keys = {b.description: b.key for b in MainScreen.BINDINGS if isinstance(b, Binding)}
    root = ROOT
    said = re.compile(r'`([^`]+)` in the tracker \(or "([^"]+)" in the palette\)')
    found = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for key, entry in said.findall(doc.read_text(encoding="utf-8").replace("\n  ", " ")):
            found.append((doc.name, entry, key))
            assert key in keys[entry].split(","), (doc.name, entry, key)
    assert ("README.md", "Export a report", "E") in found


def test_readme_keys_table_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's table of the rules' keys comes from the rule systems' quick keys;
    regenerate it with `facility-tui commands --keys`."""
    assert main(["commands", "--keys"]) == 0
    table = capsys.readouterr().out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme


def test_a_launch_builds_only_its_own_commands_parser_and_help_lists_them_all() -> None:
    """``apply``'s start-up pays for ``apply``'s arguments, not the other nine's."""
    from facility_tui.arguments import parser

    def commands(p: argparse.ArgumentParser) -> list[str]:
        return [name for a in p._actions if a.dest == "cmd" for name in a.choices]  # type: ignore[union-attr]

    assert commands(parser("apply")) == ["apply"] and commands(parser("run")) == ["run"]
    assert commands(parser()) == list(COMMANDS) == commands(parser("--help"))


@pytest.mark.parametrize("command", ["show", "apply", "forecast", "export"])
def test_a_sub_commands_mistake_shows_its_own_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``facility-tui show`` alone: the usage of ``show`` and one line of what is missing."""
    with pytest.raises(SystemExit) as done:
        main([command] if command != "forecast" else [command, "--runs", "x"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: facility-tui {command} [-h]")
    assert f"facility-tui {command}: error: " in err and "[run] [FILE]" not in err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_commands_help_prints(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each command's --help formats (a bare % in a help text stopped ``tune --help``)."""
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: ")


def test_the_progress_on_a_terminal_is_plain_text_and_cleared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the CLI counts on a terminal as plays finish (forecast, a day, tune's rosters) names
    combatants from the save: shown as plain text, no control character reaching the terminal
    but the line's own return and clear."""
    import io

    from facility_tui.cli import counting

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert counting(["Boss\x1b[2J", "Goon\x07"], lambda name: f"{name}: 40 plays") == "Goon\x07"
    shown = err.getvalue()
    assert shown.endswith("\r\x1b[K")
    assert "\x1b[2J" not in shown and "\x07" not in shown
    assert "Goon" in shown and "40 plays" in shown
    assert counting([], str) is None
