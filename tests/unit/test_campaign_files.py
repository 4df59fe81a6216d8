"""The campaign browser's files (issue 24): what each encounter is, read from its save's head and
never raising; duplicate, rename, archive and restore, each undone, nothing ever deleted."""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign import files
from facility_tui.campaign.folder import ARCHIVE
from facility_tui.campaign.summaries import Summary, summaries, summary, when
from facility_tui.commands.session import Session
from tests.paths import SAVES


def make(folder: Path, file: str, *lines: str, at: float | None = None) -> Path:
    session = store.fresh_session()
    for line in lines:
        session.apply(line)
    path = folder / file
    store.save(session, path)
    store.forget(path)
    if at is not None:
        os.utime(path, (at, at))
    return path


def campaign(folder: Path) -> dict[str, Path]:
    now = time.time()
    return {
        "ambush": make(
            folder,
            "ambush.toml",
            'new 2297 "Cargo bay ambush" seed=1',
            "add Ana side=pc init=12",
            "add Bo side=pc init=10",
            "add Boarder count=3 init=8",
            at=now - 600,
        ),
        "lockdown": make(
            folder,
            "lockdown.toml",
            'new facility "Lockdown" seed=2',
            "add Dale side=pc",
            "add Guard count=2",
            "start",
            "next",
            "next",
            at=now - 60,
        ),
        "done": make(
            folder,
            "done.toml",
            'new 2297 "Old fight" seed=3',
            "add Ana side=pc init=3",
            "start",
            "end",
            at=now - 3 * 86400,
        ),
    }


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file of the campaign but its archive, by its path (the write locks aside: a lock
    file holds nothing of a fight)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != store.LOCK_NAME and ARCHIVE not in p.relative_to(folder).parts
    }


# -- summaries ----------------------------------------------------------------------------------


def test_each_encounter_in_words_newest_first(tmp_path: Path) -> None:
    campaign(tmp_path)
    (tmp_path / "party.toml").write_text("[party]\n")  # the roster, not an encounter
    got = [(s.system, s.name, s.state, s.combatants) for s in summaries(tmp_path)]
    lockdown_round = store.load(tmp_path / "lockdown.toml").encounter.round
    assert got == [
        ("facility", "Lockdown", f"round {lockdown_round}", "1 PC, 2 enemies"),
        ("2297", "Cargo bay ambush", "prepared", "2 PCs, 3 enemies"),
        ("2297", "Old fight", "ended", "1 PC, 0 enemies"),
    ]


def test_a_summary_reads_only_the_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log and history are never parsed: the TOML read stops at the separator line."""
    path = campaign(tmp_path)["lockdown"]
    import tomllib

    read: list[str] = []
    real = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: read.append(text) or real(text))
    assert summary(path) is not None
    assert len(read) == 1 and "[history]" not in read[0] and store.SEPARATOR not in read[0]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty"),
        (b"\n  \n", "empty"),
        (b"\x00\xff garbage", "damaged"),
        (b"#facility-tui state-sha256=00 history-sha256=00\nschema_version = 3\n", "damaged"),
        (b'schema_version = 9\nkind = "save"\n', "newer version"),
        (b"[encounter\nname = 'x'\n", "damaged"),
    ],
)
def test_a_file_that_is_no_readable_save_is_listed_with_its_problem(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    (tmp_path / "bad.toml").write_bytes(content)
    (s,) = summaries(tmp_path)
    assert (s.name, s.state, s.combatants) == ("bad", problem, "")


def test_a_save_cut_short_or_with_a_broken_head_is_damaged(tmp_path: Path) -> None:
    path = campaign(tmp_path)["ambush"]
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 40])
    assert summary(path).problem == "damaged"  # type: ignore[union-attr]
    path.write_bytes(whole.replace(b'phase = "setup"', b"phase = 3"))
    assert summary(path).problem == "damaged"  # type: ignore[union-attr]
    path.write_bytes(whole.replace(b"schema_version = 4", b"schema_version = 5"))
    assert summary(path).problem == "newer version"  # type: ignore[union-attr]


def test_a_folder_or_a_pipe_named_like_a_save_is_not_listed(tmp_path: Path) -> None:
    (tmp_path / "folder.toml").mkdir()
    os.mkfifo(tmp_path / "pipe.toml")
    assert summaries(tmp_path) == []


def test_saves_of_older_versions_are_summed_up_too() -> None:
    got = {s.path.name: s for s in summaries(SAVES)}
    for name in ("v1-2297-history.toml", "v1-facility.toml", "v2-2297-long.toml"):
        s = got[name]
        enc = store.load(s.path).encounter
        assert (s.name, s.system, s.problem) == (enc.name, enc.system, None)


def test_a_filter_matches_name_rules_state_and_file(tmp_path: Path) -> None:
    campaign(tmp_path)
    found = summaries(tmp_path)

    def names(words: str) -> list[str]:
        return [s.name for s in found if s.matches(words)]

    assert names("cargo") == ["Cargo bay ambush"]
    assert names("FACILITY") == ["Lockdown"]
    assert names("prepared") == ["Cargo bay ambush"]
    assert names("done.toml") == ["Old fight"]
    assert names("2297 ended") == ["Old fight"]
    assert names("nothing") == []


def test_when_in_a_gms_words() -> None:
    now = time.mktime((2026, 12, 1, 18, 0, 0, 0, 0, -1))
    assert when(now - 10, now) == "just now"
    assert when(now - 5 * 60, now) == "5 min ago"
    assert when(now - 3 * 3600, now) == "3 h ago"
    assert when(now - 20 * 3600, now) == "yesterday"
    assert when(now - 3 * 86400, now) == "3 days ago"
    assert when(time.mktime((2026, 11, 12, 9, 0, 0, 0, 0, -1)), now) == "12 Nov"
    assert when(time.mktime((2025, 11, 12, 9, 0, 0, 0, 0, -1)), now) == "12 Nov 2025"


# -- operations ---------------------------------------------------------------------------------


def test_duplicate_makes_a_copy_with_its_history(tmp_path: Path) -> None:
    path = campaign(tmp_path)["ambush"]
    before = files_of(tmp_path)
    done = files.duplicate(path)
    assert done.path == tmp_path / "cargo-bay-ambush-copy.toml"
    copy = store.load(done.path)
    assert copy.encounter.name == "Cargo bay ambush (copy)"
    assert [c.name for c in copy.encounter.combatants] == [
        c.name for c in store.load(path).encounter.combatants
    ]
    copy.undo()
    assert copy.encounter.name == "Cargo bay ambush"  # the name's change is a step of its own
    again = files.duplicate(path)
    assert store.load(again.path).encounter.name == "Cargo bay ambush (copy 2)"
    assert {k: v for k, v in files_of(tmp_path).items() if k in before} == before


def test_rename_changes_the_name_and_the_file_and_moves_its_folder(tmp_path: Path) -> None:
    path = campaign(tmp_path)["lockdown"]
    kept = sorted(p.name for p in store.sidecar_for(path).iterdir())
    done = files.rename(path, "Locked in")
    assert done.path == tmp_path / "locked-in.toml" and not path.exists()
    assert not store.sidecar_for(path).exists()
    assert set(kept) <= {p.name for p in store.sidecar_for(done.path).iterdir()}
    session = store.load(done.path)
    assert session.encounter.name == "Locked in"
    assert session.undo_steps[-1].title.endswith("(name 'Lockdown' → 'Locked in')")


def test_a_rename_onto_another_encounters_file_is_refused(tmp_path: Path) -> None:
    saves = campaign(tmp_path)
    before = files_of(tmp_path)
    with pytest.raises(files.CampaignError, match=r"^done\.toml is called Old fight already"):
        files.rename(saves["ambush"], "old FIGHT")
    make(tmp_path, "night-raid.toml", 'new 2297 "Raid" seed=5')
    before = files_of(tmp_path)
    with pytest.raises(files.CampaignError, match=r"^night-raid\.toml is another encounter's"):
        files.rename(saves["ambush"], "Night raid")
    for bad, why in [("", "a name"), ("a\x1bb", "control"), ("x" * 61, "at most 60")]:
        with pytest.raises(files.CampaignError, match=why):
            files.rename(saves["ambush"], bad)
    assert files_of(tmp_path) == before


def test_a_rename_within_its_own_file_name_keeps_the_file(tmp_path: Path) -> None:
    path = campaign(tmp_path)["lockdown"]
    before = path.read_bytes()
    done = files.rename(path, "LOCKDOWN!")
    assert done.path == path and store.load(path).encounter.name == "LOCKDOWN!"
    files.undo(done)
    assert path.read_bytes() == before


def test_archive_moves_the_save_and_its_folder_and_restore_brings_them_back(
    tmp_path: Path,
) -> None:
    path = campaign(tmp_path)["done"]
    before = files_of(tmp_path)
    inside = {p.name: p.read_bytes() for p in store.sidecar_for(path).iterdir()}
    done = files.archive(path)
    assert done.path == tmp_path / "archive" / "done.toml"
    assert not path.exists() and not store.sidecar_for(path).exists()
    assert {p.name: p.read_bytes() for p in store.sidecar_for(done.path).iterdir()} == inside
    assert [s.name for s in summaries(tmp_path / "archive")] == ["Old fight"]
    assert "Old fight" not in [s.name for s in summaries(tmp_path)]
    back = files.restore(done.path)
    assert back.path == path and files_of(tmp_path) == before
    assert store.load(path).encounter.name == "Old fight"


def test_archiving_a_second_save_of_one_name_keeps_both(tmp_path: Path) -> None:
    path = campaign(tmp_path)["done"]
    first = files.archive(path)
    make(tmp_path, "done.toml", 'new 2297 "Other" seed=9')
    second = files.archive(path)
    assert second.path == tmp_path / "archive" / "done-2.toml" and first.path.exists()
    assert files.undo(second).path == path
    with pytest.raises(files.CampaignError, match=r"done\.toml is there already"):
        files.restore(first.path)  # a clash: refused, nothing moved
    assert first.path.exists() and store.load(path).encounter.name == "Other"


def test_a_held_save_is_neither_renamed_nor_archived(tmp_path: Path) -> None:
    path = campaign(tmp_path)["ambush"]
    before = files_of(tmp_path)
    with store.lock_save(path, "facility-tui app"):
        for act in (lambda: files.rename(path, "New"), lambda: files.archive(path)):
            with pytest.raises(files.CampaignError, match=r"ambush\.toml is open in this window"):
                act()
    assert files_of(tmp_path) == before


class ReadOnly:
    """The campaign folder on a read-only disk: every write under it fails (EROFS); reads work.
    (Tests run as root, which chmod does not stop.)"""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
        self.folder = str(folder)
        writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT
        self._guard(monkeypatch, "open", lambda path, flags, *a, **k: bool(flags & writes))
        for name in ("mkdir", "rename", "replace", "unlink", "rmdir"):
            self._guard(monkeypatch, name, lambda *a, **k: True)

    def _guard(
        self, monkeypatch: pytest.MonkeyPatch, name: str, writes: Callable[..., bool]
    ) -> None:
        real = getattr(os, name)

        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if os.path.abspath(path).startswith(self.folder) and writes(path, *args, **kwargs):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, call)


def test_in_a_read_only_folder_each_operation_says_why_and_nothing_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saves = campaign(tmp_path)
    archived = files.archive(make(tmp_path, "extra.toml", 'new 2297 "Extra" seed=4'))
    before = files_of(tmp_path)
    shelved = {p.name: p.read_bytes() for p in (tmp_path / "archive").rglob("*") if p.is_file()}
    with monkeypatch.context() as patch:
        ReadOnly(patch, tmp_path)
        for act in (
            lambda: files.duplicate(saves["ambush"]),
            lambda: files.rename(saves["ambush"], "Renamed"),
            lambda: files.archive(saves["done"]),
            lambda: files.restore(archived.path),
        ):
            with pytest.raises(files.CampaignError) as refused:
                act()
            message = str(refused.value)
            assert "\n" not in message and "read-only" in message.lower(), message
    assert files_of(tmp_path) == before
    assert {
        p.name: p.read_bytes() for p in (tmp_path / "archive").rglob("*") if p.is_file()
    } == shelved


def test_undo_of_a_rename_refuses_a_save_changed_since(tmp_path: Path) -> None:
    path = campaign(tmp_path)["ambush"]
    done = files.rename(path, "Renamed")
    session = store.load(done.path)
    session.apply("add Late init=1")
    store.save(session, done.path)
    store.forget(done.path)
    with pytest.raises(files.CampaignError, match="changed since it was renamed"):
        files.undo(done)
    assert store.load(done.path).encounter.name == "Renamed"


OPS = st.lists(
    st.tuples(
        st.sampled_from(["duplicate", "rename", "archive", "restore"]),
        st.integers(0, 5),
        st.sampled_from(["Cargo bay ambush", "Night raid", "Lockdown", "Old fight", "Fight!"]),
    ),
    max_size=8,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_any_operations_undone_leave_the_campaign_as_it_was(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int, str]]
) -> None:
    """Whatever was done (refusals included), undoing it all, the last first, gives every file
    of the campaign back as it was; what was made meanwhile (copies) is in the archive, and
    every save there still loads."""
    folder = tmp_path_factory.mktemp("campaign")
    campaign(folder)
    before = files_of(folder)
    done: list[files.Done] = []
    for what, pick, name in ops:
        shelf = folder / ARCHIVE
        pool = [s.path for s in summaries(shelf if what == "restore" else folder)]
        if not pool:
            continue
        path = pool[pick % len(pool)]
        with contextlib.suppress(files.CampaignError):  # refused (a clash...): no change
            if what == "rename":
                done.append(files.rename(path, name))
            else:
                done.append(getattr(files, what)(path))
    for each in reversed(done):
        files.undo(each)
    after = files_of(folder)
    # what the saves wrote meanwhile in their own folders (a backup) stays: never deleted
    assert {k: v for k, v in after.items() if k in before} == before
    assert all(k.split("/")[-1].startswith("backup-") for k in after if k not in before)
    for s in summaries(folder / ARCHIVE):
        assert isinstance(s, Summary) and s.problem is None
        assert isinstance(store.load(s.path), Session)


def test_an_undone_copy_never_takes_the_name_an_earlier_undo_moves_back_to(
    tmp_path: Path,
) -> None:
    """Copies, an archive, a restore, an archive and a copy of the same name, undone last
    first: the copy undone goes to the archive under a name of its own, and the restore's undo
    still moves its encounter back where it was (it once found the copy's name in its way)."""
    campaign(tmp_path)
    before = files_of(tmp_path)
    lockdown = next(s.path for s in summaries(tmp_path) if s.path.stem == "lockdown")
    done = [files.duplicate(lockdown), files.duplicate(lockdown)]
    done.append(files.archive(done[1].path))
    done.append(files.restore(done[2].path))
    done.append(files.archive(done[0].path))
    done.append(files.duplicate(lockdown))
    assert done[-1].path.name == done[0].path.name  # (the name the archive freed)
    for each in reversed(done):
        files.undo(each)
    after = files_of(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert all(k.split("/")[-1].startswith("backup-") for k in after if k not in before)


def test_a_long_fight_renamed_and_back_keeps_its_log_files(tmp_path: Path) -> None:
    """A fight whose log fills several log files in its folder: they move with it, and the
    rename undone gives a save that loads with its whole log and history."""
    from tests.conftest import fought

    session = fought(12)
    for _ in range(60):
        session.apply("next")
    path = tmp_path / "long.toml"
    store.save(session, path)
    store.forget(path)
    assert any(p.name.startswith("log-") for p in store.sidecar_for(path).iterdir())
    before = files_of(tmp_path)
    done = files.rename(path, "Long haul")
    assert store.load(done.path).encounter.log[: len(session.encounter.log)] == (
        session.encounter.log
    )
    files.undo(done)
    assert {k: v for k, v in files_of(tmp_path).items() if k in before} == before
    back = store.load(path)
    assert back.encounter == session.encounter and back.undo_steps == session.undo_steps
