"""Command line: the app, and the headless ``apply`` and ``show`` that never import Textual."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from facility_tui import __version__


def _parser() -> argparse.ArgumentParser:
    from facility_tui.systems import ids  # (the table of rule systems: no system is loaded)

    p = argparse.ArgumentParser(
        prog="facility-tui",
        description="Keyboard-driven combat tracker for the Facility and 2297 rule systems.",
        usage=f"facility-tui [run] [FILE] [--saves DIR] [--seed N] [--demo {{{','.join(ids())}}}]"
        " [--config FILE]\n"
        "       facility-tui {apply,show,commands} ...",
        epilog="With no command it opens the tracker: FILE, or the newest save in the save "
        "folder, or the demo fight. 'facility-tui run --help' explains the options.",
    )
    p.add_argument("--version", action="version", version=f"facility-tui {__version__}")
    sub = p.add_subparsers(dest="cmd")

    run = sub.add_parser("run", help="open the tracker (the default)")
    _app_args(run, ids())

    ap = sub.add_parser("apply", help="apply commands to a save file, headless")
    ap.add_argument("save", type=Path, help="save file (created if missing)")
    ap.add_argument("commands", nargs="+", help="command lines, one per argument")
    ap.add_argument("--seed", type=int, help="seed for the dice of a newly created save")
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")

    sh = sub.add_parser("show", help="print the state of a save file")
    sh.add_argument("save", type=Path)
    sh.add_argument("--json", action="store_true", help="print JSON (see docs/show-json.md)")

    cm = sub.add_parser("commands", help="list the command grammar")
    cm.add_argument("--markdown", action="store_true", help="as docs/commands.md")
    cm.add_argument(
        "--dice", action="store_true", help="the rolls of each command, as docs/dice.md"
    )
    cm.add_argument("--keys", action="store_true", help="the rules' keys, as in the README")
    return p


def _app_args(p: argparse.ArgumentParser, systems: list[str]) -> None:
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


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in {"run", "apply", "show", "commands", "-h", "--help", "--version"}:
        args.insert(0, "run")
    try:
        code = _dispatch(_parser().parse_args(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        # The reader went away (``facility-tui commands | head``): stop quietly, as the Python
        # docs advise, pointing stdout at devnull so the exit's own flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    return code


EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a command ended by SIGPIPE


def _dispatch(ns: argparse.Namespace) -> int:
    if ns.cmd == "apply":
        return apply_cmd(ns.save, ns.commands, seed=ns.seed, quiet=ns.quiet)
    if ns.cmd == "show":
        return show_cmd(ns.save, as_json=ns.json)
    if ns.cmd == "commands":
        return commands_cmd(markdown=ns.markdown, dice=ns.dice, keys=ns.keys)
    return run_app(ns.file, ns.saves, ns.seed, ns.demo, ns.config)


def _err(message: str) -> None:
    from facility_tui.text import printable

    print(f"facility-tui: {printable(message)}", file=sys.stderr)


def _out(text: str) -> None:
    from facility_tui.text import printable

    print(printable(text))


def run_app(
    file: Path | None,
    saves: Path | None,
    seed: int | None,
    demo: str | None,
    config: Path | None = None,
) -> int:
    from facility_tui.app import FacilityApp
    from facility_tui.paths import default_config

    if config is None and (default := default_config()).is_file():
        config = default  # (a config given with --config and missing is said so in the app)
    app = FacilityApp(save_dir=saves, open_file=file, seed=seed, demo=demo, config=config)
    app.run()
    return app.return_code or 0


def apply_cmd(save: Path, lines: Sequence[str], *, seed: int | None, quiet: bool) -> int:
    """Apply every line or none: on the first error nothing is written and the exit code is 1.
    A save another process writes (the app, another apply) is refused the same way."""
    from facility_tui import store

    try:
        lock = store.lock_save(save, "facility-tui apply")
    except store.SaveHeld as err:
        _err(f"{err}; nothing was changed")
        return 1
    except store.SaveError as err:
        _err(str(err))
        return 2
    with lock:
        return _apply_locked(save, lines, seed=seed, quiet=quiet)


def _apply_locked(save: Path, lines: Sequence[str], *, seed: int | None, quiet: bool) -> int:
    from attrs import evolve

    from facility_tui import store
    from facility_tui.grammar import CommandError
    from facility_tui.session import Session

    try:
        before_edit = None
        if save.exists():
            opened = store.open_save(save, keep_aside=False)
            session, before_edit = opened.session, opened.before_edit
            recovered = opened.message if opened.recovered else None
            if opened.message:
                _err(opened.message)
        else:
            recovered = None
            start = store.blank()
            start = evolve(start, seed=seed if seed is not None else _random_seed())
            session = Session(start)
    except store.SaveError as err:
        _err(str(err))
        return 2
    for line in lines:
        try:
            outcome = session.execute(line)
        except CommandError as err:
            _err(f"'{line}': {err}; nothing was saved")
            return 1
        if not quiet:
            _out(f"> {line}")
            for entry in outcome.events:
                _out(f"  {entry.text}")
            if not outcome.events:
                _out(f"  {outcome.message}")
    try:
        if recovered:  # only now that the commands went through: the damaged file goes aside
            _err(f"kept the damaged file as {store.set_aside(save).name}")
        if before_edit is not None:  # ...and the version before a hand edit is kept
            _err(f"kept the version before the edit as {store.keep_backup(before_edit, save)}")
        store.save(session, save)
    except OSError as err:
        _err(f"could not rename the damaged {save} aside: {err.strerror or err}; nothing was saved")
        return 2
    except store.SaveError as err:
        _err(str(err))
        return 2
    return 0


def _random_seed() -> int:
    return int.from_bytes(os.urandom(4), "big")


def state_json(session: Any) -> dict[str, Any]:
    from facility_tui.codec import encode
    from facility_tui.dispatch import listed
    from facility_tui.systems import rules_for

    enc = session.encounter
    rules = rules_for(enc.system)
    combatants = []
    for c in listed(enc):
        data = encode(c)
        data["derived"] = encode(rules.summary(enc, c))
        combatants.append(data)
    return {
        "schema_version": 1,
        "name": enc.name,
        "system": enc.system,
        "phase": enc.phase.value,
        "round": enc.round,
        "turn": enc.turn,
        "current": enc.current,
        "next": enc.upcoming,
        "order": list(enc.order),
        "seed": enc.seed,
        "rolls": enc.rolls,
        "table_dice": enc.table_dice.value,
        "state": encode(enc.state),
        "combatants": combatants,
        "log": [encode(e) for e in enc.log],
        "history": {"undo": len(session.undo_steps), "redo": len(session.redo_steps)},
    }


_RAW_IN_JSON = re.compile("[\x7f-\x9f]")


def json_text(data: Any) -> str:
    """``data`` as indented JSON that shows no control character raw: ``json`` escapes C0 itself;
    DEL and C1 (which it leaves as they are outside ASCII) become ``\\u00XX`` too."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def show_cmd(save: Path, *, as_json: bool) -> int:
    from facility_tui import store

    try:
        session, recovered = store.load_or_recover(save, keep_aside=False)
        if recovered:
            _err(recovered)
    except store.SaveError as err:
        _err(str(err))
        return 2
    if as_json:
        print(json_text(state_json(session)))
        return 0
    from facility_tui.report import render_text

    print(render_text(session.encounter))
    return 0


def commands_cmd(*, markdown: bool = False, dice: bool = False, keys: bool = False) -> int:
    from facility_tui.dispatch import commands_markdown, dice_markdown, help_lines
    from facility_tui.systems import quick_keys_markdown

    if keys:
        print(quick_keys_markdown(), end="")
        return 0
    if dice:
        print(dice_markdown(), end="")
        return 0
    if markdown:
        print(commands_markdown(), end="")
        return 0
    for usage, summary in help_lines():
        print(f"{usage}\n    {summary}")
    return 0
