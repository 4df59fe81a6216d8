"""Issue 11: text from a save never drives the terminal, and a closed pipe ends the CLI quietly."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.cli import EXIT_BROKEN_PIPE, main
from facility_tui.commands.session import Session
from facility_tui.model.text import printable

CONTROLS = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]]
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # newline aside: it ends output lines


def test_printable_escapes_c0_del_and_c1() -> None:
    for ch in CONTROLS:
        assert printable(f"a{ch}b") == f"a\\x{ord(ch):02x}b"
    assert printable("\x1b[2J\x9b31m\x7f") == "\\x1b[2J\\x9b31m\\x7f"
    assert printable("tab\tnew\nline") == "tab\\x09new\\x0aline"


def test_printable_keeps_other_text_and_returns_it_unchanged() -> None:
    for text in ["", "Sgt. Blanc", "Zoë «Z» — Oπ block ■□ 2/3", "O'''Neil", "\u00a0\u200b"]:
        assert printable(text) is text  # the fast path: no copy


@given(st.text())
def test_printable_leaves_no_control_character(text: str) -> None:
    out = printable(text)
    assert not any(ch in CONTROLS for ch in out)
    if not any(ch in CONTROLS for ch in text):
        assert out == text


def hostile_save(path: Path) -> Session:
    """A save written by an older version, before input refused control characters."""
    s = store.fresh_session()
    s.apply("new 2297 Deck")
    s.apply("add Evil side=pc init=9")
    enc = s.encounter
    enc = evolve(enc, name="Deck\x1b[2J\x1b]0;pwned\x07")
    enc = enc.update("evil", name="Evil\x1b[31m\x9b1m\x7f", notes="line one\rline two\x08\x08")
    s = Session(enc.logged("bell\x07 and \x85next line"))
    store.save(s, path)
    return s


def test_show_text_escapes_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.toml"
    hostile_save(path)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert not RAW_CONTROL.search(out), repr(out)
    assert "Deck\\x1b[2J\\x1b]0;pwned\\x07" in out
    assert "Evil\\x1b[31m\\x9b1m\\x7f" in out
    assert "bell\\x07 and \\x85next line" in out


def test_show_json_escapes_them_and_keeps_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.toml"
    s = hostile_save(path)
    assert main(["show", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert not RAW_CONTROL.search(out), repr(out)
    data = json.loads(out)
    assert data["name"] == s.encounter.name
    assert data["combatants"][0]["name"] == s.encounter.combatants[0].name
    assert data["combatants"][0]["notes"] == "line one\rline two\x08\x08"


def test_apply_echo_and_errors_escape_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.toml"
    hostile_save(path)
    assert main(["apply", str(path), "log \x1b[5mblink"]) == 1  # refused, and said safely
    assert main(["apply", str(path), "hit \x1b[2Jnobody 5"]) == 1
    captured = capsys.readouterr()
    assert not RAW_CONTROL.search(captured.out + captured.err)
    assert captured.err.count("control character (\\x1b)") == 2


def closed_pipe_run(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI with its stdout a pipe whose reading end is closed before it writes."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "facility_tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone (``| head`` after its lines) before any output
    err = proc.stderr.read()
    proc.wait(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, b"", err)


@pytest.mark.parametrize("command", ["commands", "show"])
def test_a_closed_pipe_ends_the_cli_quietly(tmp_path: Path, command: str) -> None:
    path = tmp_path / "f.toml"
    s = hostile_save(path)
    for i in range(300):  # more than a pipe buffer of output
        s.apply(f"log line {i} " + "x" * 200)
    store.save(s, path)
    args = ["commands"] if command == "commands" else ["show", str(path)]
    done = closed_pipe_run(*args)
    assert done.returncode == EXIT_BROKEN_PIPE, done.stderr
    assert done.stderr == b""


def test_head_reads_the_first_lines_and_the_cli_ends_quietly(tmp_path: Path) -> None:
    """The shell form of it, ``facility-tui commands | head -n 2``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "facility_tui", "commands"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = [proc.stdout.readline() for _ in range(2)]
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) in (0, EXIT_BROKEN_PIPE)
    assert all(first) and err == b""
