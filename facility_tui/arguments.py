"""The command line's arguments: a parser for each sub-command (``facility-tui apply SAVE LINE``,
``show``, ``forecast``...). A launch builds only the one it runs (``parser(command)``): the app's
and ``apply``'s start-up do not pay for the other nine (docs/benchmarks.md, 'Start-up and the
headless commands'); ``--help`` builds them all."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from facility_tui import __version__

Sub = Any  # argparse's sub-parsers action (private to argparse)


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, told the terminal's width. Left to find it, it imports shutil
    (and zlib, bz2 and lzma with it, on the path of every launch, ``apply`` included:
    docs/benchmarks.md, 'Start-up and the headless commands') when it is built,
    which ``add_argument`` does for each argument; the width is found as shutil finds it."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    with contextlib.suppress(KeyError, ValueError):
        if (columns := int(os.environ["COLUMNS"])) > 0:
            return columns
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if sys.__stdout__ and (columns := os.get_terminal_size(sys.__stdout__.fileno()).columns):
            return columns
    return 80


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)  # (sub-commands' parsers too)
        super().__init__(*args, **kwargs)


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser, with ``command``'s sub-command only (every one when None or
    not one of them: ``--help``, ``--version``)."""
    from facility_tui.systems import ids  # (the table of rule systems: no system is loaded)

    p = _Parser(
        prog="facility-tui",
        description="Keyboard-driven combat tracker for the Facility and 2297 rule systems.",
        usage=f"facility-tui [run] [FILE] [--saves DIR] [--seed N] [--demo {{{','.join(ids())}}}]"
        " [--config FILE]\n"
        "       facility-tui {" + ",".join(COMMANDS[1:]) + "} ...",
        epilog="With no command it opens the tracker: FILE, or the newest save in the save "
        "folder, or the demo fight. 'facility-tui run --help' explains the options.",
    )
    p.add_argument("--version", action="version", version=f"facility-tui {__version__}")
    sub = p.add_subparsers(dest="cmd", prog="facility-tui")  # ("facility-tui show", not the usage)
    every = command not in _SUBCOMMANDS
    for name, build in _SUBCOMMANDS.items():
        if every or name == command:
            build(sub)
    return p


def _run(sub: Sub) -> None:
    from facility_tui.systems import ids

    app_args(sub.add_parser("run", help="open the tracker (the default)"), ids())


def _apply(sub: Sub) -> None:
    ap = sub.add_parser("apply", help="apply commands to a save file, headless")
    ap.add_argument("save", type=Path, help="save file (created if missing)")
    ap.add_argument("commands", nargs="+", help="command lines, one per argument")
    ap.add_argument(
        "--seed",
        type=int,
        help="seed for the dice of a newly created save and of a 'new' line without seed=",
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    from_backup_arg(ap)


def _show(sub: Sub) -> None:
    sh = sub.add_parser("show", help="print the state of a save file")
    sh.add_argument("save", type=Path)
    sh.add_argument("--json", action="store_true", help="print JSON (see docs/show-json.md)")
    from_backup_arg(sh)


def _export(sub: Sub) -> None:
    ex = sub.add_parser(
        "export", help="a report of a save: Markdown (the default), JSON or the log as text"
    )
    ex.add_argument("save", type=Path)
    form = ex.add_mutually_exclusive_group()
    for flag, what in (
        ("md", "a Markdown report: participants, round by round, who fell, the final state"),
        ("json", "the state, as show --json"),
        ("log", "the log as plain text, a line each"),
    ):
        form.add_argument(f"--{flag}", dest="form", action="store_const", const=flag, help=what)
    ex.set_defaults(form="md")
    ex.add_argument("-o", "--output", type=Path, metavar="FILE", help="write FILE (atomically)")
    ex.add_argument(
        "--public", action="store_true", help="leave out what 'hide' keeps from the players"
    )
    ex.add_argument(
        "--branch",
        metavar="NAME|STEP",
        help="a branch of the fight's timeline on its own (its name, or a step's number on it)"
        " instead of the one being played",
    )
    from_backup_arg(ex)


def _watch(sub: Sub) -> None:
    wa = sub.add_parser(
        "watch", help="a read-only player view of a save, following its autosaves (q quits)"
    )
    wa.add_argument("save", type=Path)
    wa.add_argument("--served", action="store_true", help=argparse.SUPPRESS)  # (serve's viewers)


def _serve(sub: Sub) -> None:
    se = sub.add_parser(
        "serve", help="the player view of a save in browsers (this laptop only, unless --host)"
    )
    se.add_argument("save", type=Path)
    se.add_argument(
        "--host",
        metavar="ADDR",
        help="the address to listen on: this laptop's address on the room's network (or 0.0.0.0)"
        " lets the players' phones connect, at an address with a random key (default: 127.0.0.1,"
        " this laptop only, no key)",
    )
    se.add_argument(
        "--open",
        action="store_true",
        help="with --host: no key in the address (anyone on the network can watch)",
    )
    se.add_argument("--port", type=int, default=8297, metavar="N", help="default: 8297")
    se.add_argument("--with-stdin", action="store_true", help=argparse.SUPPRESS)  # (the tracker's)


def _forecast(sub: Sub) -> None:
    fc = sub.add_parser(
        "forecast",
        help="play a save's fight (or a day of fights) out many times and print how it is likely"
        " to go; --ledger: how well the kept forecasts did",
    )
    fc.add_argument(
        "save", type=Path, nargs="?", help="a save, or a day of fights (docs/forecast.md)"
    )
    fc.add_argument("--runs", type=int, help="plays (default 1000, or the day file's)")
    fc.add_argument("--seed", type=int, help="seed of the plays (default: the save's own)")
    fc.add_argument(
        "--play",
        action="append",
        default=[],
        metavar="NAME=PLAY",
        help="change how one combatant is played: focus, spread, hold, 'flee at LEVEL' "
        "(docs/forecast.md); repeat for others",
    )
    fc.add_argument(
        "--ledger",
        nargs="?",
        const="",  # (--ledger alone: the saves folder, found when it runs; not a Path: argparse
        # would make it "." by the type, the current folder)
        metavar="FOLDER",
        help="how well the campaign's recorded forecasts did: a Brier score and a reliability "
        "table (default: the saves folder)",
    )
    form = fc.add_mutually_exclusive_group()
    form.add_argument("--json", dest="form", action="store_const", const="json", help="as JSON")
    form.add_argument("--md", dest="form", action="store_const", const="md", help="as Markdown")
    from_backup_arg(fc)


def _tune(sub: Sub) -> None:
    from facility_tui.tuning import arguments

    from_backup_arg(arguments(sub))


def _validate(sub: Sub) -> None:
    va = sub.add_parser("validate", help="check saves and config files; exit 1 on a problem")
    va.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")


def _commands(sub: Sub) -> None:
    cm = sub.add_parser("commands", help="list the command grammar")
    cm.add_argument("--markdown", action="store_true", help="as docs/commands.md")
    cm.add_argument(
        "--dice", action="store_true", help="the rolls of each command, as docs/dice.md"
    )
    cm.add_argument("--keys", action="store_true", help="the rules' keys, as in the README")


# Each sub-command's parser, in the order ``--help`` lists them.
_SUBCOMMANDS: dict[str, Callable[[Sub], None]] = {
    "run": _run,
    "apply": _apply,
    "show": _show,
    "export": _export,
    "forecast": _forecast,
    "tune": _tune,
    "watch": _watch,
    "serve": _serve,
    "validate": _validate,
    "commands": _commands,
}
COMMANDS = tuple(_SUBCOMMANDS)


def from_backup_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--from-backup",
        action="store_true",
        help="a save that is refused (damaged, or a hand edit that fails its checks): go on from "
        "its newest good version, said on stderr (apply sets the refused file aside)",
    )


def app_args(p: argparse.ArgumentParser, systems: list[str]) -> None:
    """The tracker's own options (``run``, and the launch with no command)."""
    p.add_argument("file", nargs="?", type=Path, help="a save file to open")
    p.add_argument("--saves", type=Path, help="save folder (default: saves/ in a checkout)")
    p.add_argument("--seed", type=int, help="seed for the dice of new encounters")
    p.add_argument(
        "--demo",
        choices=systems,
        help="open a fresh copy of a demo fight of these rules (saved as a new file)",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="keys and theme (default: config.toml in the user config folder, if there)",
    )
