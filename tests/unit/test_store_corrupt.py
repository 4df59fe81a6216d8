"""Damaged saves (issue 5): refused with one line, never read as blank or partial; recovery."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from tests.conftest import fought as fight
from tests.paths import FIXTURES


@pytest.fixture(scope="module")
def small_save(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("small") / "f.toml"
    store.save(fight(1), path)
    return path.read_bytes()


def rejected(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "bad.toml"
    path.write_bytes(data)
    with pytest.raises(store.SaveError) as err:
        store.load(path)
    message = str(err.value)
    assert "\n" not in message and "bad.toml" in message
    assert path.read_bytes() == data  # left untouched
    return message


def test_empty_and_blank_files(tmp_path: Path) -> None:
    assert "empty" in rejected(tmp_path, b"")
    assert "empty" in rejected(tmp_path, b"  \n\n")


def test_truncated_at_every_line_boundary(tmp_path: Path, small_save: bytes) -> None:
    cuts = [i + 1 for i, b in enumerate(small_save) if b == ord("\n")][:-1]
    assert len(cuts) > 20
    for cut in [0, *cuts, len(small_save) - 2]:
        message = rejected(tmp_path, small_save[:cut])
        assert "edited" not in message  # never taken for a hand edit
    # Only the end line's newline gone: nothing is missing, and it loads as it was written.
    path = tmp_path / "f.toml"
    path.write_bytes(small_save[:-1])
    assert store.open_save(path, keep_aside=False).message is None


def test_a_cut_file_is_never_taken_for_an_edit(tmp_path: Path, small_save: bytes) -> None:
    """Cut inside the fight's own part (what a GM may edit) the file is still refused as cut,
    even where what is left parses and would pass its checks."""
    state_end = small_save.index(store.SEPARATOR.encode())
    for cut in range(60, state_end, 13):
        message = rejected(tmp_path, small_save[:cut])
        assert "cut short" in message or "checksum line" in message, message


def test_truncated_anywhere(tmp_path: Path, small_save: bytes) -> None:
    for cut in range(0, len(small_save), 37):
        rejected(tmp_path, small_save[:cut])


def test_flipped_bytes(tmp_path: Path, small_save: bytes) -> None:
    """A flipped bit is refused, or (in the fight's part, where it reads as a fight) opens as an
    edit that says what changed and that undo takes back to exactly what was saved."""
    original = store.loads(small_save.decode("utf-8"))
    state_end = small_save.index(store.SEPARATOR.encode())
    taken = 0
    for pos in range(0, len(small_save), 11):
        for bit in (0x01, 0x20):
            data = bytearray(small_save)
            data[pos] ^= bit
            path = tmp_path / "bad.toml"
            path.write_bytes(bytes(data))
            try:
                opened = store.open_save(path, keep_aside=False)
            except store.SaveError as err:
                assert "\n" not in str(err) and path.read_bytes() == bytes(data)
                continue
            assert pos < state_end, pos  # never in the log, the history or the end line
            session = opened.session
            if opened.message is not None:
                taken += 1
                assert "edited outside facility-tui" in opened.message
                session.undo()
            assert session.encounter == original.encounter, pos
    assert taken  # a letter's case in a name, say: a change a GM could have made


def test_a_hand_edited_file_opens_as_one_undoable_step(tmp_path: Path, small_save: bytes) -> None:
    path = tmp_path / "f.toml"
    path.write_bytes(small_save.replace(b'name = "Test"', b'name = "Tess"'))
    session, message = store.load_or_recover(path)
    assert message is not None and "edited outside facility-tui: name 'Test' → 'Tess'" in message
    assert session.encounter.name == "Tess"
    session.undo()
    assert session.encounter == store.loads(small_save.decode("utf-8")).encounter


def test_not_a_save(tmp_path: Path) -> None:
    assert "schema_version" in rejected(tmp_path, b'title = "some other toml"\n')
    rejected(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00")
    rejected(tmp_path, b"schema_version = 2\n[encounter]\n")  # schema 2 needs its checksum
    rejected(tmp_path, b"schema_version = 0\n")
    rejected(tmp_path, b'schema_version = "1"\n')


def test_wrong_schema_1_shapes(tmp_path: Path) -> None:
    rejected(tmp_path, b"schema_version = 1\nencounter = 3\n")
    rejected(tmp_path, b'schema_version = 1\n[encounter]\nname = "x"\nsystem = "chess"\n')
    rejected(tmp_path, b'schema_version = 1\n[encounter]\nname = "x"\nsystem = "2297"\nlog = 5\n')


def test_recover_from_newest_backup(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = fight(0)
    states = []
    while s.encounter.round < store.BACKUPS_KEPT + 3:
        s.apply("next")
        store.save(s, path)
        states.append(s.encounter)
    backups = store.backups(path)
    assert len(backups) == store.BACKUPS_KEPT  # rotated: only the last few
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(store.DamagedSave):  # never opened unasked
        store.load_or_recover(path)
    assert path.read_bytes() == data[: len(data) // 2]
    session, message = store.load_or_recover(path, from_backup=True)  # the GM's choice
    last = store.BACKUPS_KEPT + 3
    assert message is not None and "\n" not in message
    assert "f.toml" in message and "backup" in message and f"round {last}" in message
    assert session.encounter.round == last
    assert session.encounter in states
    aside = list(tmp_path.glob("f.toml.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == data[: len(data) // 2]
    assert not path.exists()
    store.save(session, path)  # carries on from the backup
    assert store.load(path).encounter == session.encounter


def test_recover_skips_damaged_backups_and_says_so_when_none_is_good(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = fight(0)
    while s.encounter.round < 3:
        s.apply("next")
        store.save(s, path)
    backups = store.backups(path)
    backups[0].write_bytes(b"")
    path.write_bytes(b"garbage")
    session, message = store.load_or_recover(path, keep_aside=False, from_backup=True)
    assert session.encounter.round == 2 and message and backups[1].name in message
    assert path.read_bytes() == b"garbage"
    for b in backups:
        b.write_bytes(b"")
    with pytest.raises(store.DamagedSave, match="no good version"):
        store.load_or_recover(path, from_backup=True)
    assert path.read_bytes() == b"garbage"


def test_missing_file_is_not_recovered(tmp_path: Path) -> None:
    with pytest.raises(store.SaveError, match="does not exist"):
        store.load_or_recover(tmp_path / "nope.toml")


def test_fixture_copies_are_independent(tmp_path: Path) -> None:
    src = FIXTURES / "saves"
    shutil.copy(src / "v2-2297-long.toml", tmp_path / "a.toml")
    shutil.copytree(src / "v2-2297-long.d", tmp_path / "a.d")
    store.load(tmp_path / "a.toml")


# -- fuzzing ---------------------------------------------------------------------------------


def load_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_bytes(data)
    try:
        store.load(path)
    except store.SaveError as err:
        assert "\n" not in str(err)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=2000))
def test_fuzz_any_bytes(tmp_path: Path, data: bytes) -> None:
    load_bytes(tmp_path, data)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzz_mutated_saves_with_valid_checksum(
    tmp_path: Path, small_save: bytes, data: st.DataObject
) -> None:
    """Past the checksum, the parser and decoder get any shape: still a clean rejection."""
    body = bytearray(small_save.split(b"\n", 1)[1])
    for _ in range(data.draw(st.integers(1, 6))):
        pos = data.draw(st.integers(0, len(body) - 1))
        op = data.draw(st.sampled_from(["flip", "cut", "dup", "insert"]))
        if op == "flip":
            body[pos] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del body[pos : pos + data.draw(st.integers(1, 40))]
        elif op == "dup":
            body[pos:pos] = body[pos : pos + data.draw(st.integers(1, 40))]
        else:
            body[pos:pos] = data.draw(
                st.sampled_from([b"[", b"{", b"'''", b'"', b"\n[x]\n", b"-1", b"1e999"])
            )
    text = body.decode("utf-8", "replace")
    state, sep, rest = text.partition("\n" + store.SEPARATOR + "\n")
    if not sep:
        load_bytes(tmp_path, store.format.sign(text)[0].encode("utf-8"))
        return
    rest = rest.removesuffix(store.END_LINE + "\n")
    signed = store.format.sign3(state + "\n", rest)
    load_bytes(tmp_path, signed.encode("utf-8"))
    # and as a hand edit (the fight's checksum not matching): checked, then refused or taken
    unsigned = small_save.split(b"\n", 1)[0].decode() + "\n" + signed.split("\n", 1)[1]
    load_bytes(tmp_path, unsigned.encode("utf-8"))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=400))
def test_fuzz_schema_1_documents(tmp_path: Path, text: str) -> None:
    load_bytes(tmp_path, ("schema_version = 1\n" + text).encode("utf-8", "surrogatepass"))


@pytest.mark.system  # (a process of its own)
def test_cli_apply_recovers_only_when_the_commands_succeed(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "f.toml"
    s = fight(0)
    while s.encounter.round < 3:
        s.apply("next")
        store.save(s, path)
    path.write_bytes(path.read_bytes()[:300])
    run = [sys.executable, "-m", "facility_tui", "apply", str(path), "-q"]
    refused = subprocess.run([*run, "next"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--from-backup" in refused.stderr
    run.append("--from-backup")
    bad = subprocess.run([*run, "bogus"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "backup" in bad.stderr and "of round 3" in bad.stderr
    assert not list(tmp_path.glob("f.toml.corrupt-*"))  # nothing was changed
    ok = subprocess.run([*run, "next"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert list(tmp_path.glob("f.toml.corrupt-*")) and "f.toml kept as f.toml.corrupt-" in ok.stderr
    assert store.load(path).encounter.round >= 3
