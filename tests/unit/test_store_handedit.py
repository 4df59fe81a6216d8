"""Issue 16: a save a GM reads and mends by hand — the fight as sparse TOML tables, hand edits
accepted after their checks as one undoable step, everything else refused with its line."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.session import Session
from facility_tui.model.codec import encode, encode_sparse
from facility_tui.systems import ids
from tests.paths import SAVES


def demo_fight() -> Session:
    s = Session(demo_encounter())
    for line in ["start", "hit blanc 30", "next", "roll 2d6"]:
        s.execute(line)
    return s


def saved(tmp_path: Path, session: Session | None = None) -> Path:
    path = tmp_path / "deck.toml"
    store.save(session or demo_fight(), path)
    store.forget(path)  # read back as another run of the app would
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, 1))


def state_part(text: str) -> str:
    return text.split("\n", 1)[1].split(store.SEPARATOR)[0]


def same(a: Session, b: Session) -> None:
    assert a.encounter == b.encounter
    assert a.undo_steps == b.undo_steps
    assert a.redo_steps == b.redo_steps
    assert a.base == b.base


# -- reading ------------------------------------------------------------------------------------


def test_the_fight_reads_as_toml_tables_only_what_differs(tmp_path: Path) -> None:
    s = demo_fight()
    text = saved(tmp_path, s).read_text()
    state = state_part(text)
    doc = tomllib.loads(state)
    assert doc["encounter"]["round"] == 1 and doc["encounter"]["name"] == s.encounter.name
    assert [c["name"] for c in doc["combatants"]] == [c.name for c in s.encounter.combatants]
    blanc = next(c for c in doc["combatants"] if c["id"] == "sgt-blanc")
    assert blanc["sheet"]["hlt"] == 32
    assert blanc["sheet"]["weapons"][0] == {
        "name": "FAM-90",
        "damage": "5d6+1",
        "modes": ["SA", "BF", "AF"],
        "ammo": 60,
        "capacity": 60,
    }
    assert "[[combatants.sheet.injuries]]" in state and "[[combatants.sheet.effects]]" in state
    assert "'''" not in state and '{"' not in state  # no JSON in the fight's part
    assert "dead = false" not in state and "refocus" not in state  # defaults are left out
    cassart = next(c for c in doc["combatants"] if c["id"] == "aspirant-cassart")
    assert "hlt" not in cassart["sheet"]  # 20: a fresh sheet's
    assert text.endswith(store.END_LINE + "\n")


def test_two_autosaves_differ_only_where_the_fight_did(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    before = state_part(path.read_text()).splitlines()
    s.execute("hit boarder-2 40")
    store.save(s, path)
    after = state_part(path.read_text()).splitlines()
    import difflib

    changed = [
        line for line in difflib.unified_diff(before, after, lineterm="", n=0) if line[:1] in "+-"
    ]
    changed = [line for line in changed if not line.startswith(("+++", "---"))]
    assert changed and all(
        re.match(
            r"[+-](rolls|damage|fatigue|next_id|stun|\[\[combatants\.sheet\.|id|level|"
            r"inflicted|round|kind|label|amount|first|last|rounds|source|counts_from|$)",
            line,
        )
        for line in changed
    ), changed
    assert len(changed) < 40


# -- save -> load is the identity -----------------------------------------------------------------

LINES = st.sampled_from(
    [
        "next",
        "roll 2d6",
        "hit #1 8",
        "hit #2 25",
        "prev",
        "undo",
        "redo",
        'add "Odd \\"name\\" \'\'\' ü" init=1d6',
        "remove #3",
        "log \"a note with 'quotes' and ünïcode\"",
        "init #1 14",
        "start",
    ]
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINES, max_size=25), system=st.sampled_from(ids()))
def test_save_then_load_is_the_identity(lines: list[str], system: str) -> None:
    from facility_tui.commands.grammar import CommandError

    s = Session(demo_encounter(system))
    for line in lines:
        with contextlib.suppress(CommandError):
            s.execute(line)
    text = store.dumps(s)
    loaded = store.loads(text)
    same(loaded, s)
    assert store.dumps(loaded) == text  # stable: the same fight is the same text
    for c in s.encounter.combatants:  # sparse: a fresh value's fields are never written
        data = encode_sparse(c)
        assert all(
            v != getattr(type(c)(id=c.id, name=c.name), k)
            for k, v in data.items()
            if k not in ("id", "name")
        )


def test_every_field_of_a_combatant_survives_sparse_encoding() -> None:
    for system in ids():
        for c in demo_encounter(system).combatants:
            assert encode(
                store.loads(store.dumps(Session(demo_encounter(system)))).encounter.get(c.id)
            ) == encode(c)


# -- hand edits ---------------------------------------------------------------------------------


def test_health_name_and_ammo_edited_by_hand_open_as_one_undoable_step(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    machine = path.read_bytes()
    edit(path, "hlt = 32", "hlt = 36")  # Sgt. Blanc's Health
    edit(path, 'name = "Boarder 2"', 'name = "Boarder Two"')
    edit(path, "ammo = 8\n", "ammo = 3\n")  # the Boarding Chief's shotgun
    backups_before = set(store.backups(path))
    session, message = store.load_or_recover(path)
    assert message is not None and "\n" not in message
    assert message.startswith(f"{path} was edited outside facility-tui: ")
    for part in ("sheet.hlt 32 → 36", "'Boarder 2' → 'Boarder Two'", "ammo 8 → 3", "u undoes it"):
        assert part in message, message
    enc = session.encounter
    assert enc.get("sgt-blanc").sheet.hlt == 36
    assert enc.get("boarder-2").name == "Boarder Two"
    assert enc.get("boarding-chief").sheet.weapons[0].ammo == 3
    assert enc.log[-1].text.startswith("Edited outside facility-tui: ")
    assert len(session.undo_steps) == len(s.undo_steps) + 1
    # the version before the edit is kept as a backup, which opens as the fight was; and the
    # edit as taken, as the newest
    new = set(store.backups(path)) - backups_before
    assert len(new) == 2 and store.backups(path)[1].name in message
    assert store.load(store.backups(path)[1]).encounter == s.encounter
    assert store.load(store.backups(path)[0]).encounter.get("sgt-blanc").sheet.hlt == 36
    # one undo goes back to what facility-tui wrote; redo to the edit
    assert session.undo().message.startswith("Undid: the edit made outside facility-tui (")
    assert session.encounter == s.encounter
    session.redo()
    assert session.encounter == enc
    # written again, it is machine-written (no message) and loads as itself, edit step and all
    store.save(session, path)
    store.forget(path)
    again, note = store.load_or_recover(path)
    assert note is None
    same(again, session)
    again.undo()
    assert again.encounter == s.encounter
    assert path.read_bytes() != machine


def test_the_app_workspace_opens_a_hand_edit_and_saves_it(tmp_path: Path) -> None:
    from facility_tui.workspace import Workspace

    s = demo_fight()
    path = saved(tmp_path, s)
    edit(path, "hlt = 32", "hlt = 30")
    ws = Workspace(tmp_path)
    ws.autosave()
    try:
        messages = ws.open_initial(path)
        assert any("edited outside facility-tui" in m for m in messages), messages
        assert ws.flush()
        assert store.open_save(path, keep_aside=False).message is None  # rewritten by the app
        ws.execute("undo")
        assert ws.encounter == s.encounter
    finally:
        ws.close()


def test_only_comments_or_layout_changed_is_no_edit(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    edit(path, "hlt = 32", "hlt   =   32   # checked by the GM")
    session, message = store.load_or_recover(path)
    assert message is None
    same(session, s)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "hlt = 32",
            'hlt = "ten"',
            r"combatants\[1\]\.sheet\.hlt must be a whole number, got 'ten'",
        ),
        ("hlt = 32", "hp = 32", r"combatants\[1\]\.sheet\.hp is not a key facility-tui knows"),
        ("hlt = 32", "hlt = [32", r"unclosed array|invalid"),
        ("hlt = 32", "hlt = 10000", r"combatants\[1\]\.sheet\.hlt must be within ±9999"),
        ('name = "Sgt. Blanc"', 'name = "Sgt.\\u001b[31mBlanc"', r"control characters"),
        ('name = "Sgt. Blanc"', f'name = "{"x" * 41}"', r"at most 40 characters"),
        ("round = 1\n", "round = -1\n", r"encounter\.round must be 0 or more"),
        ('awareness = "partial"', 'awareness = "sleepy"', r"awareness: unknown value"),
        ('side = "pcs"', "side = 3", r"combatants\[0\]\.side must be text"),
    ],
)
def test_a_broken_edit_is_refused_with_file_line_and_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = saved(tmp_path)
    edit(path, old, new)
    text = path.read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if new.strip() in ln)
    with pytest.raises(store.InvalidSave) as caught:
        store.load(path)
    message = str(caught.value)
    assert "\n" not in message and re.search(expected, message), message
    m = re.match(rf"{re.escape(str(path))}:(\d+): ", message)
    assert m, message
    assert abs(int(m.group(1)) - line) <= 1, (m.group(1), line)  # a syntax error: the next line
    assert path.read_text() == text  # never overwritten


def test_a_refused_edit_offers_the_latest_backup_and_keeps_the_file(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    edit(path, "hlt = 32", 'hlt = "ten"')
    bad = path.read_bytes()
    with pytest.raises(store.InvalidSave, match=r": combatants\[1\]\.sheet\.hlt must be a whole"):
        store.load_or_recover(path)
    assert path.read_bytes() == bad and not list(tmp_path.glob("deck.toml.corrupt-*"))
    session, message = store.load_or_recover(path, from_backup=True)  # the GM's choice
    assert message is not None and "last wrote deck.toml" in message
    assert session.encounter == s.encounter
    aside = list(tmp_path.glob("deck.toml.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == bad


def test_the_log_and_history_are_not_editable(tmp_path: Path) -> None:
    path = saved(tmp_path)
    edit(path, '"Combat begins"', '"Combat began"')
    with pytest.raises(store.DamagedSave, match=r"log and history .* do not match"):
        store.load(path)


def test_a_truncated_edited_file_is_never_an_edit(tmp_path: Path) -> None:
    path = saved(tmp_path)
    edit(path, "hlt = 32", "hlt = 33")
    data = path.read_bytes()
    for cut in range(0, len(data) - 1, 97):
        path.write_bytes(data[:cut])
        with pytest.raises(store.DamagedSave) as caught:
            store.load(path)
        assert "edited outside" not in str(caught.value)


def test_adding_and_removing_combatants_by_hand(tmp_path: Path) -> None:
    s = Session(demo_encounter())  # in setup: no turn order to keep
    path = saved(tmp_path, s)
    text = path.read_text()
    block = text.split("[[combatants]]\n")[5]  # Boarder 1, as written
    extra = block.replace('id = "boarder-1"', 'id = "boarder-4"').replace(
        'name = "Boarder 1"', 'name = "Boarder 4"'
    )
    head, rest = text.split(store.SEPARATOR)
    path.write_text(
        head.rstrip("\n")
        + "\n\n[[combatants]]\n"
        + extra.rstrip("\n")
        + "\n\n"
        + store.SEPARATOR
        + rest
    )
    session, message = store.load_or_recover(path)
    assert message and "added Boarder 4" in message
    assert session.encounter.get("boarder-4").sheet == s.encounter.get("boarder-1").sheet
    # the copied block had Boarder 1's number: the new one gets the next, as add gives them
    handles = [c.handle for c in session.encounter.combatants]
    assert len(set(handles)) == len(handles) and all(handles)
    assert session.encounter.get("boarder-4").handle == s.encounter.handles + 1
    assert session.execute(f"hit #{s.encounter.handles + 1} 3 through").events
    assert session.encounter.get("boarder-4").sheet.total > 0
    session.undo()
    session.undo()
    assert session.encounter == s.encounter


def test_a_combatant_added_by_hand_without_a_number_gets_the_next(tmp_path: Path) -> None:
    s = Session(demo_encounter())
    path = saved(tmp_path, s)
    head, rest = path.read_text().split(store.SEPARATOR)
    path.write_text(
        head.rstrip("\n")
        + '\n\n[[combatants]]\nid = "stowaway"\nname = "Stowaway"\n\n'
        + store.SEPARATOR
        + rest
    )
    session, message = store.load_or_recover(path)
    assert message and "Stowaway" in message
    assert session.encounter.get("stowaway").handle == s.encounter.handles + 1
    assert session.encounter.handles == s.encounter.handles + 1
    store.save(session, path)
    again, _ = store.load_or_recover(path)
    assert again.encounter == session.encounter  # the numbered edit replays alike


def test_an_order_naming_no_one_is_refused(tmp_path: Path) -> None:
    path = saved(tmp_path)
    edit(path, 'id = "boarder-3"', 'id = "boarder-9"')
    with pytest.raises(store.InvalidSave, match=r"encounter\.order names 'boarder-3'"):
        store.load(path)


def test_crlf_line_ends_from_an_editor_are_the_same_file(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    session, message = store.load_or_recover(path)
    assert message is None
    same(session, s)


@pytest.mark.system  # (a process of its own)
def test_apply_on_a_hand_edited_save_keeps_the_version_before(tmp_path: Path) -> None:
    s = demo_fight()
    path = saved(tmp_path, s)
    edit(path, "hlt = 32", "hlt = 31")
    run = [sys.executable, "-m", "facility_tui", "apply", str(path), "-q"]
    bad = subprocess.run([*run, "bogus"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "edited outside facility-tui" in bad.stderr
    assert "hlt = 31" in path.read_text()  # nothing changed
    ok = subprocess.run([*run, "roll 1d6"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "kept the version before the edit as backup-" in ok.stderr
    store.forget(path)
    session, message = store.load_or_recover(path)
    assert message is None and session.encounter.get("sgt-blanc").sheet.hlt == 31
    session.undo()
    session.undo()
    assert session.encounter == s.encounter
    assert store.load(store.backups(path)[1]).encounter == s.encounter  # before the edit
    assert store.load(store.backups(path)[0]).encounter.get("sgt-blanc").sheet.hlt == 31


# -- older saves --------------------------------------------------------------------------------


def test_schema_2_fixture_migrates_and_nothing_is_lost(tmp_path: Path) -> None:
    shutil.copy(SAVES / "v2-2297-long.toml", tmp_path / "a.toml")
    shutil.copytree(SAVES / "v2-2297-long.d", tmp_path / "a.d")
    path = tmp_path / "a.toml"
    old = store.load(path)
    store.save(old, path)  # written as schema 3, the schema-2 file kept aside
    assert path.read_text().startswith("#facility-tui state-sha256=")
    kept = list((tmp_path / "a.d").glob("before-upgrade-*.toml"))
    assert len(kept) == 1 and kept[0].read_bytes() == (SAVES / "v2-2297-long.toml").read_bytes()
    store.forget(path)
    same(store.load(path), old)
    assert len(old.encounter.log) > 3 * store.CHUNK_MIN


@pytest.mark.parametrize("fixture", sorted(SAVES.glob("v3-*.toml")), ids=lambda p: p.stem)
def test_schema_3_fixtures_load(fixture: Path) -> None:
    session = store.load(fixture)
    assert store.loads(store.dumps(session)).encounter == session.encounter


def test_the_hand_edit_fixture_undoes_and_redoes() -> None:
    session = store.load(SAVES / "v3-2297-hand-edit.toml")
    assert session.can_redo()
    session.redo()
    session.undo()
    while session.undo_steps[-1].edit is None:
        session.undo()
    edited = session.encounter
    session.undo()
    assert edited.get("sgt-blanc").sheet.hlt == 34
    assert session.encounter.get("sgt-blanc").sheet.hlt == 32


def test_an_edit_made_while_the_app_writes_the_save_is_not_written_over(tmp_path: Path) -> None:
    s = demo_fight()
    path = tmp_path / "deck.toml"
    store.save(s, path)  # this process writes it, and remembers what it wrote
    edit(path, "hlt = 32", "hlt = 33")
    edited = path.read_bytes()
    s.execute("roll 1d6")
    with pytest.raises(store.ChangedOnDisk):  # the GM is asked first (test_recovery.py)
        store.save(s, path)
    assert path.read_bytes() == edited
