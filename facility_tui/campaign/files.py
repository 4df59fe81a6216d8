"""The campaign browser's file operations: duplicate, rename, archive and restore an encounter,
each undoable (``undo``), none deleting anything.

An encounter is its save, ``fight.toml``, and its folder ``fight.d/`` (log files, backups, the
write lock): they move together. Archiving moves both into the campaign's ``archive/``;
restoring moves them back. A rename changes the encounter's name as one undoable step of its
history (as a hand edit would) and moves the save to the new name's file; its undo puts the file
back as it was, byte for byte. A duplicate is a new save, ``NAME (copy)``; its undo archives it.

A save another writer holds (an open window, ``apply``) is never renamed or moved: its write
lock is taken first, and the refusal says who holds it. Every refusal is a ``CampaignError``
with one line for the GM, and leaves the folder as it was.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import NamedTuple

from attrs import evolve

from facility_tui import store
from facility_tui.campaign.folder import ARCHIVE, Campaign
from facility_tui.commands.session import Session, Step
from facility_tui.model.text import MAX_TITLE, control_in

ROLE = "facility-tui campaign browser"
COPY = " (copy)"


class CampaignError(Exception):
    """An operation refused or failed; the message is one line, and nothing was changed."""


class Done(NamedTuple):
    """An operation done: what, where the encounter is now (``path``) and was (``was``; none
    for a copy), and for a rename the save as it was before (``before``), put back by undo."""

    what: str  # "duplicate", "rename", "archive", "restore"
    path: Path
    was: Path | None
    message: str
    before: bytes | None = None
    after: bytes | None = None  # for a rename, the save as it left it (undo checks it still is)


def in_archive(path: Path) -> bool:
    return path.parent.name == ARCHIVE


def _campaign_of(path: Path) -> Path:
    return path.parent.parent if in_archive(path) else path.parent


# -- the operations -----------------------------------------------------------------------------


def duplicate(path: Path) -> Done:
    """A copy of the encounter at ``path`` as a new save of the campaign, named ``NAME (copy)``
    (``NAME (copy 2)``... when that is taken), with its history."""
    session = _load(path, "copied")
    folder = path.parent
    n = 1
    while True:
        name = copy_name(session.encounter.name, n)
        target = store.path_for(folder, name)
        if not store.in_use(target):
            break
        n += 1
    _named(session, name)
    try:
        store.save(session, target)
    except store.SaveError as err:
        raise CampaignError(f"{path.name} was not copied: {err}") from None
    finally:
        store.forget(target)
    return Done("duplicate", target, None, f"Copied as {name}")


def copy_name(name: str, n: int = 1) -> str:
    """The name of a copy: ``NAME (copy)``, then ``NAME (copy 2)``..., within the bounds."""
    suffix = COPY if n == 1 else f" (copy {n})"
    return name[: MAX_TITLE - len(suffix)].rstrip() + suffix


def check_name(name: str) -> str:
    """An encounter's new name as typed, stripped; ``CampaignError`` if it cannot be one."""
    name = name.strip()
    if not name:
        raise CampaignError("Give the encounter a name")
    bad = control_in(name)
    if bad is not None:
        raise CampaignError(f"A name cannot hold a control character ({bad})")
    if len(name) > MAX_TITLE:
        raise CampaignError(f"A name is at most {MAX_TITLE} characters (this one: {len(name)})")
    return name


def rename(path: Path, name: str) -> Done:
    """Call the encounter at ``path`` ``name``: a step of its history, and the file of that
    name. Refused if another encounter's file has that name, or the save is held."""
    name = check_name(name)
    target = store.path_for(path.parent, name)
    same_file = os.path.abspath(target) == os.path.abspath(path)
    if not same_file and store.in_use(target):
        raise CampaignError(f"{target.name} is another encounter's file already: pick another name")
    from facility_tui.campaign.summaries import summaries

    for other in summaries(path.parent):
        if other.path != path and other.name.casefold() == name.casefold():
            raise CampaignError(
                f"{other.path.name} is called {other.name} already: pick another name"
            )
    lock = _free(path, "renamed")
    try:
        before, _ = _read(path)
        session = _load(path, "renamed")
        old = session.encounter.name
        if old == name:
            raise CampaignError(f"It is called {name} already: nothing changed")
        _named(session, name)
        store.forget(path)  # written here under this lock, whatever this process knew of it
        try:
            store.save(session, path)
        except store.SaveError as err:
            raise CampaignError(f"{path.name} was not renamed: {err}") from None
    finally:
        lock.release()
        store.forget(path)
    if not same_file:
        try:
            _move(path, target, "renamed")
        except CampaignError:
            _put_back(path, before)
            raise
    return Done(
        "rename",
        target,
        path,
        f"Renamed to {name}",
        before,
        _read(target)[0],
    )


def archive(path: Path, *, tag: str = "") -> Done:
    """Move the encounter at ``path`` (its save and its folder) into the campaign's
    ``archive/``, under a name free there (``fight-2.toml`` when ``fight.toml`` is taken;
    ``tag``: ``fight-<tag>.toml``, ``fight-<tag>-2.toml``)."""
    archived = Campaign(path.parent).archive
    try:
        archived.mkdir(exist_ok=True)
    except OSError as err:
        raise CampaignError(f"{path.name} was not archived: {_why(err)}") from None
    n = 1
    stem = f"{path.stem}-{tag}" if tag else path.stem
    target = archived / f"{stem}{store.SUFFIX}"
    while store.in_use(target):
        n += 1
        target = archived / f"{stem}-{n}{store.SUFFIX}"
    _relocate(path, target, "archived")
    return Done("archive", target, path, f"Archived {path.name}")


def restore(path: Path) -> Done:
    """Move an archived encounter back into its campaign, under its own file name."""
    target = _campaign_of(path) / path.name
    _relocate(path, target, "restored")
    return Done("restore", target, path, f"Restored {target.name}")


def undo(done: Done) -> Done:
    """Take back an operation: a copy is archived (not deleted), a rename is put back as it was,
    an archived encounter is restored, a restored one archived again where it was."""
    if done.what == "duplicate":
        # Every other undo puts a file back where it was; this one adds one to the archive. Its
        # name is of its own kind (``-undone``), so it never takes the name an earlier archive
        # or restore, undone next, must move a file back to.
        back = archive(done.path, tag="undone")
        return back._replace(message=f"Undid the copy: {done.path.name} archived")
    assert done.was is not None
    if done.what == "rename":
        assert done.before is not None
        # its content, not its file's times: undoing a later rename of it puts back the bytes
        # but writes a new file
        try:
            now: bytes | None = store.read_regular(done.path)[0]
        except store.SaveError:
            now = None
        if now is None or now != done.after:
            raise CampaignError(
                f"{done.path.name} changed since it was renamed: rename it back with r"
            )
        lock = _free(done.path, "renamed back")
        lock.release()
        if os.path.abspath(done.path) != os.path.abspath(done.was):
            _move(done.path, done.was, "renamed back")
        _put_back(done.was, done.before)
        return Done("rename", done.was, done.path, f"Undid the rename: {done.was.name} again")
    _relocate(done.path, done.was, "moved back")
    verb = "archived again" if done.what == "restore" else "restored"
    return Done(done.what, done.was, done.path, f"Undid: {done.was.name} {verb}")


# -- pieces -------------------------------------------------------------------------------------


def _named(session: Session, name: str) -> None:
    """Record the name's change in ``session`` as one undoable step (the same step a hand edit
    of the save makes), so the history still replays to the renamed fight."""
    from facility_tui.commands import edits as handedit

    before = session.encounter
    after = evolve(before, name=name)
    note = handedit.describe(handedit.changes(before, after))
    session.record(Step(handedit.EDIT_LINE, (), handedit.edit_data(before, after, note)))


def _load(path: Path, done: str) -> Session:
    try:
        return store.load(path)
    except store.SaveError as err:
        problem = str(err).removesuffix("; it was left untouched")
        raise CampaignError(f"{path.name} cannot be {done}: {problem} (open it to see)") from None


def _read(path: Path) -> tuple[bytes, object]:
    try:
        return store.read_regular(path)
    except store.SaveError as err:
        raise CampaignError(str(err)) from None


def _free(path: Path, done: str) -> store.WriteLock:
    """The save's write lock, taken to be sure no one writes it; refused with who holds it."""
    try:
        return store.lock_save(path, ROLE)
    except store.SaveHeld as held:
        who = held.holder
        if who is not None and who.is_this_process():
            where = "this window"
        else:
            where = who.describe() if who is not None else "another window"
        raise CampaignError(
            f"{path.name} is open in {where}: it cannot be {done} (close it there first)"
        ) from None
    except store.SaveError as err:
        raise CampaignError(f"{path.name} cannot be {done}: {err}") from None


def _relocate(path: Path, target: Path, done: str) -> None:
    lock = _free(path, done)
    lock.release()
    _move(path, target, done)


def _move(path: Path, target: Path, done: str) -> None:
    """Move a save and its folder to ``target``; both or neither."""
    if store.in_use(target):
        raise CampaignError(
            f"{path.name} cannot be {done}: {target.name} is there already (rename one of them)"
        )
    sidecar, new_sidecar = store.sidecar_for(path), store.sidecar_for(target)
    moved = False
    try:
        if os.path.lexists(sidecar):
            os.rename(sidecar, new_sidecar)
            moved = True
        os.rename(path, target)
    except OSError as err:
        if moved:
            with contextlib.suppress(OSError):
                os.rename(new_sidecar, sidecar)
        raise CampaignError(f"{path.name} was not {done}: {_why(err)}") from None
    finally:
        store.forget(path)
        store.forget(target)


def _put_back(path: Path, before: bytes) -> None:
    try:
        store.write_atomic(path, before.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise CampaignError(f"{path.name} could not be put back as it was: {err}") from None
    finally:
        store.forget(path)


def _why(err: OSError) -> str:
    return f"{err.strerror or err}; nothing was changed"
