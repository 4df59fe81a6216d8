"""Issue 11: only regular files of a sane size are read as saves; never a hang or a huge read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from facility_tui import cli, store
from tests.conftest import fought, within


def special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "fight.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "dev-null":
        path.symlink_to("/dev/null")
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":
        with path.open("wb") as fh:  # sparse: costs no disk
            fh.truncate(store.MAX_SAVE_BYTES + 1)
    return path


KINDS = {
    "fifo": "named pipe",
    "dev-zero": "device",
    "dev-null": "device",
    "folder": "folder",
    "huge": "more than a save can be",
}


@pytest.mark.parametrize("kind", KINDS)
def test_load_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path = special(tmp_path, kind)
    for load in (store.load, store.load_or_recover):
        with pytest.raises(store.SaveError) as caught:
            within(10, lambda load=load: load(path))
        message = str(caught.value)
        assert KINDS[kind] in message and str(path) in message and "\n" not in message
    assert os.path.lexists(path) and not list(tmp_path.glob("*.corrupt-*"))


@pytest.mark.parametrize("kind", KINDS)
def test_cli_refuses_it_in_one_line_and_changes_nothing(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = special(tmp_path, kind)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert within(10, lambda: cli.main(["show", str(path)])) == 2
    assert within(10, lambda: cli.main(["apply", str(path), "add X"])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and KINDS[kind] in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_save_of_the_limit_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    store.save(fought(1), path)
    data = path.read_bytes()
    limit = len(data)
    assert store.read_regular(path, limit)[0] == data
    with pytest.raises(store.SaveError, match="more than a save can be"):
        store.read_regular(path, limit - 1)


def test_a_log_file_that_is_a_pipe_is_damage_not_a_hang(tmp_path: Path) -> None:
    """A log file read as the save opens (the last: its length) or later (its lines wanted),
    or by the recovery (which checks every file a backup needs), that is a pipe: damage said
    in a line, never a hang."""
    from facility_tui.model import log as logseq
    from tests.unit.test_store_format import long_fight

    path = tmp_path / "fight.toml"
    s = long_fight(20)  # long enough to seal several log files
    store.save(s, path)
    store.forget(path)
    chunks = sorted((tmp_path / "fight.d").glob("log-*.toml"))
    assert len(chunks) >= 2
    chunks[0].unlink()
    os.mkfifo(chunks[0])
    logseq._PAGES.clear()
    opened = within(10, lambda: store.load(path))
    line = within(10, lambda: opened.encounter.log[0])
    assert "could not be read again" in line.text and "named pipe" in line.text
    chunks[-1].unlink()
    os.mkfifo(chunks[-1])
    with pytest.raises(store.DamagedSave, match="named pipe"):
        within(10, lambda: store.load(path))
    with pytest.raises(store.DamagedSave, match="named pipe"):  # every backup needs it
        within(10, lambda: store.recover(path, keep_aside=False))
