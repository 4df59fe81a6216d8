"""Issues 22 and 28: a hand edit is held to what a command could make. Whatever ``set``, ``add``
or ``ppe`` would refuse is refused in an edited save too, naming the file's line, the key and
what was expected; the editor's own marks (a BOM, CRLF, blank lines after the end line) are not
damage; ``validate`` passes over an editor's leftovers in a folder."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import cli, store
from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import ENEMIES, PCS
from facility_tui.systems import rules_for
from facility_tui.systems.facility.demo import DEMO_FACILITY_FIGHT

V = store.SCHEMA_VERSION


def fight(system: str) -> Session:
    """The demo fight of ``system`` under way (``facility-tui --demo SYSTEM``, then a few
    turns), so its sheets have injuries, effects, marked PPE and a pending roll."""
    s = Session(demo_encounter(system))
    lines = DEMO_FACILITY_FIGHT if system == "facility" else ("start", "hit blanc 30", "next")
    for line in lines:
        s.execute(line)
    return s


def saved(tmp_path: Path, system: str) -> Path:
    path = tmp_path / "deck.toml"
    store.save(fight(system), path)
    store.forget(path)
    return path


def edit(path: Path, old: str, new: str) -> int:
    """Replace the first ``old`` by ``new``; the file's line number where ``new`` begins."""
    text = path.read_text()
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old) :])
    return text[:at].count("\n") + 1


def refused(path: Path, line: int, expected: str) -> str:
    with pytest.raises(store.InvalidSave) as caught:
        store.load(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: "), (message, line)
    assert re.search(expected, message), message
    return message


# -- issue 22 item 4, issue 28: the bounds of the commands -----------------------------------------

REFUSED_2297 = [
    ("sta = 30", "sta = -1", r"combatants\[1\]\.sheet\.sta must be at least 1, got -1"),
    ("sta = 30", "sta = 0", r"sheet\.sta must be at least 1, got 0"),
    ("hlt = 32", "hlt = 0", r"sheet\.hlt must be at least 1, got 0"),
    ("hlt = 32", "hlt = -1", r"sheet\.hlt must be at least 1"),
    ("fatigue = 5", "fatigue = -2", r"sheet\.fatigue must be at least 0, got -2"),
    ("damage = 15", "damage = -1", r"sheet\.damage must be at least 0"),
    ("edge = 2", "edge = -1", r"sheet\.edge must be at least 0"),
    ("pt = 25", "pt = -1", r"sheet\.armor\[0\]\.pt must be from 0 to 999, got -1"),
    ("dr = 40", "dr = 101", r"sheet\.armor\[0\]\.dr must be from 0 to 100, got 101"),
    ("ammo = 60", "ammo = 61", r"weapons\[0\]\.ammo must be from 0 to the capacity \(60\)"),
    ('damage = "5d6+1"', 'damage = "lots"', r"weapons\[0\]\.damage must be dice"),
    ('modes = ["SA", "BF", "AF"]', 'modes = ["XX"]', r"weapons\[0\]\.modes must be"),
    ("initiative = 11", "initiative = -1", r"combatants\[1\]\.initiative must be at least 0"),
    ("hlt = 32", "hlt = 10000", r"must be within ±9999, got 10000"),
    ('side = "pcs"', 'side = "goblins"', r"combatants\[\d\]\.side must be pcs or enemies"),
]


@pytest.mark.parametrize(("old", "new", "expected"), REFUSED_2297)
def test_a_2297_edit_a_command_would_refuse_is_refused_with_its_line(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = saved(tmp_path, "2297")
    line = edit(path, old, new)
    text = path.read_text()
    refused(path, line, expected)
    assert path.read_text() == text  # never overwritten


REFUSED_FACILITY = [
    (
        'name = "Lab Coat"',
        'name = "Renamed"',
        r"sheet\.ppe\[0\]\.name must be a PPE of the catalog",
    ),
    ('name = "Lab Coat"', 'name = ""', r"sheet\.ppe\[0\]\.name must be a PPE of the catalog"),
    ('name = "Lab Coat"', 'name = "lab coat"', r"must be a PPE of the catalog \('Lab Coat'"),
    ("marks = 1", "marks = -1", r"sheet\.ppe\[\d\]\.marks must be from 0 to 2, got -1"),
    ('weapons = ["improvised"]', 'weapons = ["laser"]', r"sheet\.weapons must be weapons"),
    ("bonus = 2", "bonus = 4", r"sheet\.adm\.bonus must be from -3 to 3, got 4"),
    ("wounds = 2", "wounds = -1", r"\.wounds must be at least 0, got -1"),
    ("track = 4", "track = -4", r"sheet\.track must be at least 0"),
    ("contaminants = 2", "contaminants = 100", r"contaminants must be from -99 to 99, got 100"),
]


@pytest.mark.parametrize(("old", "new", "expected"), REFUSED_FACILITY)
def test_a_facility_edit_a_command_would_refuse_is_refused_with_its_line(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = saved(tmp_path, "facility")
    line = edit(path, old, new)
    refused(path, line, expected)


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        ('state = { first = "pc" }', r"encounter\.state\.first must be pcs or enemies, got 'pc'"),
        ('state = { vanguard = "bob" }', r"encounter\.state\.vanguard must be a combatant's id"),
        ("state = { tn = 0 }", r"encounter\.state\.tn must be at least 1, got 0"),
    ],
)
def test_a_facility_state_no_command_makes_is_refused(
    tmp_path: Path, new: str, expected: str
) -> None:
    path = saved(tmp_path, "facility")
    line = edit(path, "state = {}", new)
    refused(path, line, expected)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("handle = 2", "handle = -1", r"combatants\[\d\]\.handle must be from 0 \(the next"),
        ("handles = 8", "handles = 10000", r"encounter\.handles must be from -1 .*, got 10000"),
        ("handles = 8", "handles = -2", r"encounter\.handles must be from -1 .*, got -2"),
        ('name = "Helmet"', 'name = ""', r"sheet\.armor\[1\]\.name must be the layer's name"),
        ("turns = 1", "turns = -1", r"sheet\.turns must be 0 or more, got -1"),
        ('app = "facility-tui 0.1.0"', "app = 3", r"app must be text"),
        ("round = 1\ndamage = 15", "round = 1\ndamage = -15", r"injuries\[0\]\.damage must be 0"),
    ],
)
def test_what_no_command_makes_of_2297_counts_is_refused(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = saved(tmp_path, "2297")
    line = edit(path, old, new)
    refused(path, line + old.count("\n"), expected)


def test_a_piece_worn_twice_is_refused_on_the_second(tmp_path: Path) -> None:
    path = saved(tmp_path, "facility")
    edit(path, 'name = "Lab Coat"', 'name = "Latex Gloves"')
    text = path.read_text()
    second = text.index('name = "Latex Gloves"', text.index('name = "Latex Gloves"') + 1)
    line = text[:second].count("\n") + 1
    refused(path, line, r"sheet\.ppe\[1\]\.name must not be 'Latex Gloves' again")


def test_a_deleted_ppe_name_is_refused_on_its_table(tmp_path: Path) -> None:
    path = saved(tmp_path, "facility")
    line = edit(path, 'name = "Lab Coat"\n', "")
    refused(path, line - 1, r"sheet\.ppe\[0\]\.name must be a PPE of the catalog, got ''")


@pytest.mark.parametrize("system", ["2297", "facility"])
@pytest.mark.parametrize(
    ("written", "taken"),
    [("pc", "pcs"), ("PCs", "pcs"), ("Player", "pcs"), ("enemy", "enemies"), ("NPC", "enemies")],
)
def test_a_side_as_a_gm_writes_it_is_taken_as_the_side_it_means(
    tmp_path: Path, system: str, written: str, taken: str
) -> None:
    s = fight(system)
    path = saved(tmp_path, system)
    first = s.encounter.combatants[0]
    text = path.read_text()
    block = text.index(f'id = "{first.id}"')
    at = text.index(f'side = "{first.side}"', block)
    path.write_text(text[:at] + f'side = "{written}"' + text[at + len(first.side) + 9 :])
    session, _ = store.load_or_recover(path, keep_aside=False)
    assert session.encounter.get(first.id).side == taken
    assert {c.side for c in session.encounter.combatants} <= {"pcs", "enemies"}


def test_a_side_line_deleted_is_the_side_add_gives(tmp_path: Path) -> None:
    """``add`` without ``side=`` makes an enemy: so does a combatant whose side line is gone."""
    path = saved(tmp_path, "2297")
    edit(path, 'side = "pcs"\n', "")
    session, message = store.load_or_recover(path, keep_aside=False)
    assert message and "side 'pcs' → 'enemies'" in message
    assert {c.side for c in session.encounter.combatants} == {"pcs", "enemies"}


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_a_refused_stamina_or_ppe_edit_never_reaches_show(
    tmp_path: Path, system: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22: ``show`` ended in a traceback (``tiredness``, ``ppe_impaired``); now the edit
    is refused with its line, whatever is then shown instead (recovery's choice)."""
    path = saved(tmp_path, system)
    if system == "2297":
        line = edit(path, "sta = 30", "sta = -1")
    else:
        line = edit(path, 'name = "Work Boots"', 'name = "Renamed"')
    cli.main(["show", str(path)])
    cli.main(["show", "--json", str(path)])
    err = capsys.readouterr().err
    assert f"{path}:{line}: combatants[" in err, err
    assert "Traceback" not in err


# -- issue 22: every refusal names its line --------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (f"schema_version = {V}\n", "", rf"schema_version is missing \(it must be {V}"),
        (f"schema_version = {V}", "schema_version = 2", rf"schema_version must be {V} .*, got 2"),
        (
            f"schema_version = {V}",
            'schema_version = "x"',
            rf"schema_version must be {V} .*, got 'x'",
        ),
        ('kind = "save"', 'kind = "log"', r"kind must be 'save' .*, got 'log'"),
        ("hlt = 32", "hp = 32", r"combatants\[1\]\.sheet\.hp is not a key facility-tui knows"),
        ('app = "', 'hp = 3\napp = "', r"hp is not a key facility-tui knows"),
    ],
)
def test_every_refusal_names_its_line(tmp_path: Path, old: str, new: str, expected: str) -> None:
    path = saved(tmp_path, "2297")
    line = edit(path, old, new)
    refused(path, line, expected)


def test_a_newer_schema_version_is_refused_as_newer_with_its_line(tmp_path: Path) -> None:
    """Never taken for a bad edit (that would set the file aside): a newer facility-tui may
    have written it; the GM is told to upgrade, and where the file says so."""
    path = saved(tmp_path, "2297")
    line = edit(path, f"schema_version = {V}", f"schema_version = {V + 1}")
    with pytest.raises(store.NewerSave) as caught:
        store.load(path)
    assert str(caught.value).startswith(f"{path}:{line}: schema {V + 1}: written by a newer")


def test_a_missing_key_is_named_where_the_fight_starts(tmp_path: Path) -> None:
    path = saved(tmp_path, "2297")
    edit(path, 'kind = "save"\n', "")
    refused(path, 4, r"kind is missing \(it must be 'save'")  # line 4: schema_version


def test_a_deleted_encounter_table_is_refused_where_it_was(tmp_path: Path) -> None:
    path = saved(tmp_path, "2297")
    line = edit(path, "[encounter]\n", "")
    refused(path, line, r"encounter is missing|not a key facility-tui knows")


def test_a_second_encounter_table_is_refused_with_its_line(tmp_path: Path) -> None:
    path = saved(tmp_path, "2297")
    text = path.read_text()
    at = text.index(store.SEPARATOR)
    path.write_text(text[:at] + '[encounter]\nname = "Two"\n\n' + text[at:])
    line = text[:at].count("\n") + 1
    refused(path, line, r"not TOML")


def test_a_table_pasted_onto_the_separator_line_names_that_line(tmp_path: Path) -> None:
    """Issue 22 found a second ``[encounter]`` reported as "separator line missing": pasted
    without its last newline, it joins the separator's line, which is named."""
    path = saved(tmp_path, "2297")
    text = path.read_text()
    at = text.index(store.SEPARATOR)
    path.write_text(text[:at] + '[encounter]\nname = "Two"' + text[at:])
    line = text[:at].count("\n") + 2
    with pytest.raises(store.DamagedSave) as caught:
        store.load(path)
    assert str(caught.value).startswith(f"{path}:{line}: the separator line"), str(caught.value)


# -- issue 28: the editor's marks -----------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b"\xef\xbb\xbf" + b,  # a UTF-8 BOM
        lambda b: b + b"\n",  # echo "" >> f.toml
        lambda b: b + b"\n\n   \n\t\n",
        lambda b: b[:-1],  # no final newline
        lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n") + b"\r\n",  # a Windows editor
    ],
)
def test_a_bom_crlf_and_blank_lines_after_the_end_are_the_editors(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    s = fight("2297")
    path = tmp_path / "deck.toml"
    store.save(s, path)
    store.forget(path)
    path.write_bytes(change(path.read_bytes()))
    session, message = store.load_or_recover(path, keep_aside=False)
    assert message is None
    assert session.encounter == s.encounter and session.undo_steps == s.undo_steps


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b + b"x\n",  # text after the end line
        lambda b: b.replace(b"'''\n\n[timeline]", b"'''\n\n\n[timeline]"),  # a blank line inside
        lambda b: b.replace(b"\n'''\n\n[timeline]", b" \n'''\n\n[timeline]"),  # a trailing space
    ],
)
def test_anything_else_outside_the_fight_is_still_damage(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = saved(tmp_path, "2297")
    data = path.read_bytes()
    changed = change(data)
    assert changed != data
    path.write_bytes(changed)
    with pytest.raises(store.DamagedSave) as caught:
        store.load(path)
    assert not isinstance(caught.value, store.InvalidSave)


# -- validate FOLDER ------------------------------------------------------------------------------


def test_validate_a_folder_passes_over_an_editors_leftovers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = saved(tmp_path, "2297")
    os.symlink("jean@laptop.4242:1700000000", tmp_path / ".#deck.toml")  # emacs: dangling
    (tmp_path / ".deck.toml.swp").write_bytes(b"b0VIM 9.0\x00\x00")
    (tmp_path / "deck.toml~").write_text("old")
    (tmp_path / "deck.toml.swp").write_bytes(b"\x00")
    (tmp_path / ".~lock.deck.toml#").write_text("x")
    assert cli.main(["validate", str(tmp_path)]) == 0, capsys.readouterr().out
    assert "1 file checked: no problem" in capsys.readouterr().out
    assert path.exists()


# -- the checks never refuse what the commands make ---------------------------------------------

_LINES = {
    "2297": [
        "next",
        "hit #{a} 25",
        "hit #{a} 9 stun",
        "hit #{a} 14 energy through",
        "soak #{a}",
        "aid #{a} 18",
        "stabilize #{a}",
        "heal #{a} 7",
        "fatigue #{a} 6",
        "fatigue #{a} -3",
        "rest #{a} short",
        "rest all long",
        "boost #{a}",
        "refocus #{a}",
        "major",
        "move",
        "full",
        "down major move",
        "react #{a}",
        "overwatch",
        "ext Hack 3",
        "ext",
        "stim #{a} 2",
        "grit #{a} 11",
        "recover #{a}",
        "cond #{a} Prone 2",
        "attack #{a} #{b}",
        "reload #{a}",
        "set #{a} injury critical",
        "set #{a} dead yes",
        "set #{a} rounds 2",
        "set #{a} amount 3",
        "prev",
        "undo",
        "remove #{a}",
        "add X count=2",
        "end",
        "resume",
    ],
    "facility": [
        "next",
        "strike #{a} #{b}",
        "deal #{a}",
        "crit #{a}",
        "miss #{a}",
        "salvage",
        "harm #{a} 2 weapons",
        "ablate #{a}",
        "suffer #{a}",
        "wound #{a} 3",
        "try #{a} phy",
        "save #{a} trauma",
        "rearm #{a}",
        "mark #{a} both",
        "break #{a} phy",
        "tend #{a} #{b} phy",
        "shift",
        "scar #{a} phy",
        "ppe #{a} mark hard hat",
        "fate #{a} dead",
        "fate #{a} alive",
        "tech #{a} barricade 1",
        "undo",
        "prev",
        "remove #{a}",
        "sheet #{a} phy_wounds=2",
        "vanguard #{a}",
        "add Y side=pc roll=yes",
    ],
}


@pytest.mark.parametrize("system", ["2297", "facility"])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_what_the_commands_make_passes_the_checks_of_a_hand_edit(
    system: str, data: st.DataObject
) -> None:
    """The checks hold an edit to the commands' bounds and no tighter: every combatant of a
    fight played by commands passes them (else a GM's harmless edit would be refused)."""
    s = Session(demo_encounter(system))
    s.execute("start")
    rules = rules_for(system)
    template = st.sampled_from(_LINES[system])
    for _ in range(data.draw(st.integers(5, 30), label="length")):
        line = data.draw(template).format(
            a=data.draw(st.integers(1, 9)), b=data.draw(st.integers(1, 9))
        )
        with contextlib.suppress(CommandError):
            s.execute(line)
        assert rules.validation.check_state(s.encounter) is None, line
        for c in s.encounter.combatants:
            assert rules.validation.check_combatant(s.encounter, c) is None, (line, c.name)
            assert c.side in (PCS, ENEMIES)
