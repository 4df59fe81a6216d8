"""Golden saves: the same lines with the same seeds write the same bytes, release after release.

Two fights (one of each rule system) are built with ``facility-tui apply`` and compared, file by
file and byte by byte, with what this version of facility-tui wrote when they were made: the save,
its log chunks and backups, and what ``show --json`` and ``export`` print of it. A move of code
that changes none of the rules changes none of these. After a change that should change them
(a log line reworded, a new field), write them again with ``GOLDEN_UPDATE=1 uv run pytest
tests/test_golden.py`` and read the diff before committing it.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from pathlib import Path

import pytest

from facility_tui import cli
from tests.paths import FIXTURES

GOLDEN = FIXTURES / "golden"
FIGHTS = {
    "2297": (
        7,
        [
            "new 2297 Golden",
            "add Blanc side=pc init=2d6+3 ag=2 cu=1 hlt=30 edge=2 armor='Vest 10/20' weapon=PAM9",
            "add Cassart side=pc init=11 hlt=24",
            "add Boarder count=3 init=1d6+5 armor='Light armor coat'",
            "start",
            "attack blanc boarder-1",
            "hit boarder-2 25",
            "hit boarder-3 60 through",
            "next",
            "hit blanc 12",
            "soak blanc 1 no",
            "next",
            "next",
            "aid boarder-2 2d10+8",
            "stim cassart 2",
            "cond cassart prone 2",
            "next",
            "undo",
            "next",
            "roll 3d10kh2",
            "note blanc watches the door",
            "set cassart fatigue 12",
            "next",
            "next",
            "end",
        ],
    ),
    "facility": (
        9,
        [
            "new facility Golden Lab",
            "add Ana side=pc phy=1 sci=0 ins=2 adm=0 nor=-1 ppe='Respirator,Surgical Mask' "
            "weapon=pistol",
            "add Dale side=pc job=tech ins=1 sci=2",
            "add Drone count=2 track=4 weapon=smg",
            "add Brute track=8 saves=1,0,0,0,0",
            "start",
            "strike ana drone-1 d20=20",
            "deal ana",
            "strike dale drone-2 d20=2",
            "harm ana 2 contaminants d20=3",
            "ablate ana Respirator",
            "wound dale 2 sci",
            "next",
            "harm dale 1d4 trauma by=brute",
            "suffer dale",
            "next",
            "tech dale barricade 2",
            "fate drone-2 surrendered",
            "try ana ins d20=15",
            "next",
            "next",
            "end",
        ],
    ),
}
OUTPUTS = {  # file name -> the command that prints it
    "show.json": ["show", "{save}", "--json"],
    "report.md": ["export", "{save}", "--md"],
    "log.txt": ["export", "{save}", "--log"],
}


def written(folder: Path, system: str) -> dict[str, bytes]:
    """Every file the fight's lines write, and what the commands print of the save."""
    seed, lines = FIGHTS[system]
    save = folder / "fight.toml"
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["apply", str(save), "--seed", str(seed), *lines]) == 0
    files = {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "lock"
    }
    for name, argv in OUTPUTS.items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli.main([a.format(save=save) for a in argv]) == 0
        files[name] = out.getvalue().replace(str(folder), "FOLDER").encode()
    return files


@pytest.mark.parametrize("system", FIGHTS)
def test_the_same_lines_write_the_same_bytes(tmp_path: Path, system: str) -> None:
    files = written(tmp_path, system)
    kept = GOLDEN / system
    if os.environ.get("GOLDEN_UPDATE"):
        shutil.rmtree(kept, ignore_errors=True)
        for name, data in files.items():
            (kept / name).parent.mkdir(parents=True, exist_ok=True)
            (kept / name).write_bytes(data)
    expected = {
        str(p.relative_to(kept)): p.read_bytes() for p in sorted(kept.rglob("*")) if p.is_file()
    }
    assert sorted(files) == sorted(expected)
    for name, data in files.items():
        assert data == expected[name], f"{system}/{name} differs from the golden copy"
