"""Issue 22 (items 2, 3, 5): a refused save is a question, never a silent rollback; the newest
good version is the one just before the refused edit; an edit made while the app has the save
open is never written over unasked."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui import cli, store
from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.session import Session
from facility_tui.workspace import Workspace


def demo_fight() -> Session:
    s = Session(demo_encounter())
    for line in ["start", "hit blanc 30", "next", "roll 2d6"]:
        s.execute(line)
    return s


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def blanc_hlt(session: Session) -> int:
    hlt = session.encounter.get("sgt-blanc").sheet.hlt  # type: ignore[attr-defined]
    assert isinstance(hlt, int)
    return hlt


def accepted_edit_then_bad_one(tmp_path: Path) -> Path:
    """The issue's steps: a hand edit accepted (32 → 36) and saved by the app, which closes;
    then the same line edited to a value the checks refuse."""
    path = tmp_path / "deck.toml"
    store.save(demo_fight(), path)
    store.forget(path)
    edit(path, "hlt = 32", "hlt = 36")
    ws = Workspace(tmp_path)
    ws.autosave()
    messages = ws.open_initial(path)
    assert any("edited outside facility-tui" in m for m in messages), messages
    assert blanc_hlt(ws.session) == 36
    assert ws.close()
    store.forget(path)  # another run of the app
    edit(path, "hlt = 36", 'hlt = "ten"')
    return path


def test_a_refused_edit_is_not_replaced_by_an_older_backup(tmp_path: Path) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    bad = path.read_bytes()
    with pytest.raises(store.InvalidSave, match=r"deck\.toml:\d+: combatants\[1\]\.sheet\.hlt"):
        store.open_save(path)
    assert path.read_bytes() == bad and not list(tmp_path.glob("*.corrupt-*"))  # untouched
    good = store.newest_good(path)
    assert blanc_hlt(good.session) == 36  # the accepted edit, never Health 32 again
    assert "last wrote deck.toml" in good.describe and "ago" in good.describe
    assert "only the refused edit" in good.lacks
    opened = store.recover(path)
    assert blanc_hlt(opened.session) == 36
    aside = list(tmp_path.glob("deck.toml.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == bad
    assert opened.message is not None and aside[0].name in opened.message


def test_the_newest_backup_holds_the_accepted_edit_and_the_close(tmp_path: Path) -> None:
    """When the refused file cannot be rebuilt (cut short), the newest backup is still no older
    than the last thing the GM saw: one is taken when an edit is accepted and at close."""
    path = accepted_edit_then_bad_one(tmp_path)
    assert blanc_hlt(store.load(store.backups(path)[0])) == 36  # the accepted edit's backup
    path.write_bytes(path.read_bytes()[:400])  # and now the file is cut short too
    good = store.newest_good(path)
    assert good.source == store.backups(path)[0] and blanc_hlt(good.session) == 36
    assert "round 1" in good.describe and "cannot be told" in good.lacks
    # the app's close keeps the last state it showed
    store.forget(path)
    path.unlink()
    ws = Workspace(tmp_path)
    ws.autosave()
    ws.open_initial(path)  # a new file now
    ws.execute("new 2297 Fresh")
    assert ws.flush()  # its first write: a backup of round 0
    ws.execute("add Vlad hlt=40")
    assert ws.close()
    assert store.load(store.backups(path)[0]).encounter == ws.session.encounter


def test_a_backup_lacking_the_last_lines_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "deck.toml"
    s = demo_fight()
    store.save(s, path)  # a backup of round 1
    s.execute("roll 1d6")
    s.execute("roll 1d8")
    store.save(s, path)
    store.forget(path)
    path.write_bytes(path.read_bytes().replace(b"[encounter]", b"[encounter"))  # no longer TOML
    # a history that does not replay
    monkeypatch.setattr(store.recovery, "_as_written", lambda *_: None)
    good = store.newest_good(path)
    assert good.source.name.startswith("backup-")
    assert "last 2 log line(s)" in good.lacks and "1d8" in good.lacks


def test_an_edit_made_while_the_save_is_open_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "deck.toml"
    s = demo_fight()
    store.save(s, path)
    edit(path, "hlt = 32", "hlt = 33")
    edited = path.read_bytes()
    s.execute("roll 1d6")
    with pytest.raises(store.ChangedOnDisk):
        store.save(s, path)
    assert path.read_bytes() == edited
    store.expect(path, store.file_signature(path))  # the GM chose: this version wins
    store.save(s, path)
    assert store.load(path).encounter == s.encounter


# -- headless -----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["show"], ["show", "--json"], ["export", "--log"]])
def test_show_and_export_refuse_with_status_2_unless_from_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    bad = path.read_bytes()
    assert cli.main([command[0], str(path), *command[1:]]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "combatants[1].sheet.hlt must be a whole number" in err and "--from-backup" in err
    assert cli.main([command[0], str(path), *command[1:], "--from-backup"]) == 0
    out, err = capsys.readouterr()
    assert "last wrote deck.toml" in err and err.count("\n") == 1
    assert "36" in out or command[0] == "export"
    assert path.read_bytes() == bad  # a reader never moves it


def test_apply_refuses_with_status_2_and_goes_on_from_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    bad = path.read_bytes()
    assert cli.main(["apply", str(path), "-q", "roll 1d6"]) == 2
    _, err = capsys.readouterr()
    assert "sheet.hlt must be a whole number" in err and "--from-backup" in err
    assert path.read_bytes() == bad
    assert cli.main(["apply", str(path), "-q", "--from-backup", "bogus"]) == 1
    assert path.read_bytes() == bad  # a refused command: nothing changed, nothing moved
    capsys.readouterr()
    assert cli.main(["apply", str(path), "-q", "--from-backup", "roll 1d6"]) == 0
    _, err = capsys.readouterr()
    assert "last wrote deck.toml" in err and "kept as deck.toml.corrupt-" in err
    aside = list(tmp_path.glob("deck.toml.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == bad
    store.forget(path)
    session = store.load(path)
    assert blanc_hlt(session) == 36 and "1d6" in session.encounter.log[-1].text


def test_closing_while_an_outside_edit_waits_keeps_both(tmp_path: Path) -> None:
    """The app closed before the GM chose (the terminal shut): the edit stays in the file, and
    the window's fight is kept beside it, never lost."""
    path = tmp_path / "deck.toml"
    store.save(demo_fight(), path)
    store.forget(path)
    changes: list[Path] = []
    ws = Workspace(tmp_path)
    ws.autosave(changed=changes.append)
    ws.open_initial(path)
    assert ws.flush()
    edit(path, "hlt = 32", "hlt = 33")
    edited = path.read_bytes()
    ws.execute("roll 1d6")
    assert not ws.flush(2.0) and changes == [path]
    ws.execute("roll 1d8")  # still taken in memory
    assert not ws.close(2.0)
    assert path.read_bytes() == edited
    kept = list((tmp_path / "deck.d").glob("unsaved-*.toml"))
    assert len(kept) == 1 and store.load(kept[0]).encounter == ws.encounter


def test_a_backup_refers_to_the_write_once_files_beside_it(tmp_path: Path) -> None:
    """Issue 38: a long fight's backup refers to the sealed log and step files beside it (never
    rewritten), so it costs what a save does; the save cut short, the newest good version has
    every step of every branch."""
    from tests.unit.test_store_format import long_fight

    path = tmp_path / "f.toml"
    s = long_fight(12)
    s.undo()
    s.undo()
    s.execute("roll 1d20")
    old_tip = s.timeline.tips()[0]
    s.execute("next")  # (the round's end: a backup)
    store.save(s, path)
    assert list((tmp_path / "f.d").glob("steps-*.toml"))
    assert store.backups(path)[0].read_bytes() == path.read_bytes()  # the save, not inlined
    path.write_bytes(path.read_bytes()[:-40])
    session, note = store.load_or_recover(path, keep_aside=False, from_backup=True)
    assert note is not None and "backup" in note and "newer" not in note
    tl = session.timeline
    assert len(tl) == len(s.timeline) and old_tip in tl.tips()
    assert session.state_at(old_tip) == s.state_at(old_tip)
    assert session.state_at(1) == s.state_at(1)


@pytest.mark.parametrize("damage", ["step file cut short", "log file missing"])
def test_a_backup_whose_sealed_file_is_damaged_gives_the_next_older_one(
    tmp_path: Path, damage: str
) -> None:
    """A sealed file the newest backup needs is missing or damaged: the recovery says so in
    one line and offers the next older backup, which does not need it."""
    from tests.unit.test_store_format import long_fight

    path = tmp_path / "f.toml"
    folder = tmp_path / "f.d"
    s = long_fight(6)
    store.save(s, path)
    older = s.encounter
    kind = "steps" if damage.startswith("step") else "log"
    before = {p.name for p in folder.glob(f"{kind}-*.toml")}
    while {p.name for p in folder.glob(f"{kind}-*.toml")} == before or s.encounter == older:
        s.apply("roll 2d6")
        s.apply("next")
        store.save(s, path)  # (each round's end writes a backup)
    if s.encounter.turn:  # (the newest backup: the fight as saved)
        while s.encounter.turn:
            s.apply("next")
        store.save(s, path)
    new = max(p for p in folder.glob(f"{kind}-*.toml") if p.name not in before)
    if kind == "steps":
        new.write_bytes(new.read_bytes()[:-30])
    else:
        new.unlink()
    path.write_bytes(path.read_bytes()[:-40])
    good = store.newest_good(path)
    assert "\n" not in good.describe
    newest = store.backups(path)[0].name
    assert f"(the newer backup {newest} is incomplete: its log file" in good.describe or (
        f"(the newer backup {newest} cannot be read whole: its step file" in good.describe
    )
    assert f"{new.name} is missing" in good.describe or "damaged" in good.describe
    assert good.source != store.backups(path)[0]
    assert good.session.encounter.round < s.encounter.round
    assert new.name not in good.source.read_text()
