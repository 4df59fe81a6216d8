"""Command line: the app, and the headless ``apply`` and ``show`` that never import Textual."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from facility_tui.arguments import COMMANDS, parser

if TYPE_CHECKING:
    from facility_tui.commands.dispatch import Line

_T = TypeVar("_T")


FROM_BACKUP = "--from-backup goes on from its newest good version"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (the launcher, facility_tui.launch, may have turned the cyclic collector
    off for the imports: the app and the player view turn it back on before they run)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in {*COMMANDS, "-h", "--help", "--version"}:
        if args and _typo(args[0]):
            _err(
                f"unknown command '{args[0]}'{_nearest_command(args[0])}: the commands are "
                f"{', '.join(COMMANDS)}; a save to open is a .toml file"
            )
            return 2
        args.insert(0, "run")
    try:
        code = _dispatch(parser(args[0]).parse_args(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        # The reader went away (``facility-tui commands | head``): stop quietly, as the Python
        # docs advise, pointing stdout at devnull so the exit's own flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    return code


def _nearest_command(word: str) -> str:
    """`` (did you mean show?)``; for a command of the fight (``hti``), how to run it headless."""
    from facility_tui.commands.dispatch import common
    from facility_tui.model.text import did_you_mean, nearest
    from facility_tui.systems import ids, rules_for

    if hint := did_you_mean(word, COMMANDS):
        return hint
    verbs = {spec.verb for spec in (*common(), *(x for s in ids() for x in rules_for(s).commands))}
    verb = nearest(word, verbs)
    return f" (did you mean facility-tui apply SAVE '{verb} …'?)" if verb else ""


def _typo(word: str) -> bool:
    """A first word that is neither an option nor a save (there, or a path to a .toml file to
    create): a command mistyped, not a file to make."""
    path = Path(word)
    return not word.startswith("-") and path.suffix != ".toml" and not path.exists()


EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a command ended by SIGPIPE


def _dispatch(ns: argparse.Namespace) -> int:
    if ns.cmd == "apply":
        return apply_cmd(
            ns.save, ns.commands, seed=ns.seed, quiet=ns.quiet, from_backup=ns.from_backup
        )
    if ns.cmd == "show":
        return show_cmd(ns.save, as_json=ns.json, from_backup=ns.from_backup)
    if ns.cmd == "export":
        return export_cmd(
            ns.save,
            ns.form,
            output=ns.output,
            public=ns.public,
            from_backup=ns.from_backup,
            branch=ns.branch,
        )
    if ns.cmd == "forecast":
        from facility_tui.forecasting import dispatch

        return dispatch(ns)
    if ns.cmd == "tune":
        from facility_tui.tuning import dispatch as tune

        return tune(ns)
    if ns.cmd == "watch":
        return watch_cmd(ns.save, served=ns.served)
    if ns.cmd == "serve":
        keyed = ns.host is not None and not ns.open
        host = "127.0.0.1" if ns.host is None else ns.host
        return serve_cmd(ns.save, host, ns.port, with_stdin=ns.with_stdin, keyed=keyed)
    if ns.cmd == "validate":
        return validate_cmd(ns.paths)
    if ns.cmd == "commands":
        return commands_cmd(markdown=ns.markdown, dice=ns.dice, keys=ns.keys)
    return run_app(ns.file, ns.saves, ns.seed, ns.demo, ns.config)


def _err(message: str) -> None:
    from facility_tui.model.text import printable

    print(f"facility-tui: {printable(message)}", file=sys.stderr)


def _out(text: str) -> None:
    from facility_tui.model.text import printable

    print(printable(text))


def counting(items: Iterable[_T], said: Callable[[_T], str]) -> _T | None:
    """The last of ``items`` (None: none), each said on one line of stderr as it comes when that
    is a terminal (as plain text), the line cleared at the end."""
    from facility_tui.model.text import printable

    tty = sys.stderr.isatty()
    last = None
    for last in items:
        if tty:
            print(f"\r\033[K{printable(said(last))}", end="", file=sys.stderr, flush=True)
    if tty:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return last


def locked(save: Path, who: str) -> Any:
    """The save's write lock for ``who``, or the exit code after saying in one line why not (1:
    another process holds it; 2: it cannot be taken)."""
    from facility_tui import store

    try:
        return store.lock_save(save, who)
    except store.SaveHeld as err:
        _err(f"{err}; nothing was changed")
        return 1
    except store.SaveError as err:
        _err(str(err))
        return 2


def plays_done(tally: Any, runs: int) -> str:
    return f"{tally.runs}/{runs} plays"


def run_app(
    file: Path | None,
    saves: Path | None,
    seed: int | None,
    demo: str | None,
    config: Path | None = None,
) -> int:
    from facility_tui.app import FacilityApp
    from facility_tui.campaign.paths import default_config

    if config is None and (default := default_config()).is_file():
        config = default  # (a config given with --config and missing is said so in the app)
    app = FacilityApp(save_dir=saves, open_file=file, seed=seed, demo=demo, config=config)
    _collect_again()
    app.run()
    return app.return_code or 0


def _collect_again() -> None:
    """The app's modules are imported (with the collector held off by the launcher): they live as
    long as the process, so they go out of the collector's way for good (``gc.freeze``, as the
    main screen does with a loaded fight), and it runs again for a session that lasts hours.
    (Turned on with the imports still in its young generation, its first collection would walk
    them all: slower than never holding it.) Left alone where it was never held (tests)."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def apply_cmd(
    save: Path, lines: Sequence[str], *, seed: int | None, quiet: bool, from_backup: bool = False
) -> int:
    """Apply every line or none: on the first error nothing is written and the exit code is 1.
    A save another process writes (the app, another apply) is refused the same way. A refused
    save (damaged, a hand edit that fails its checks) exits 2, unless ``from_backup``: then the
    lines apply to its newest good version, and the refused file is set aside once they did."""
    lock = locked(save, "facility-tui apply")
    if isinstance(lock, int):
        return lock
    with lock:
        return _apply_locked(save, lines, seed=seed, quiet=quiet, from_backup=from_backup)


def _apply_locked(
    save: Path, lines: Sequence[str], *, seed: int | None, quiet: bool, from_backup: bool
) -> int:
    from attrs import evolve

    from facility_tui import store
    from facility_tui.campaign.folder import Campaign
    from facility_tui.commands.grammar import CommandError, UnknownCommand
    from facility_tui.commands.session import Session

    before_edit = accepted = None
    recovered = False
    if save.exists():
        opened = _opened(save, from_backup)
        if opened is None:
            return 2
        session, before_edit = opened.session, opened.before_edit
        recovered = opened.recovered_from is not None
        if before_edit is not None:
            accepted = session.fork()  # the edit as taken: kept as the newest good version
    else:
        start = store.blank()
        start = evolve(start, seed=seed if seed is not None else _random_seed())
        session = Session(start)
    campaign = session.campaign = Campaign(save.parent)  # the save's folder is its campaign
    session.seed = seed
    kept = None  # the party as it was, once a line changes it: all lines or none
    end: tuple[Any, Any] | None = None  # the last line that ended the fight: (before, after)
    for line in lines:
        try:
            read = session.read(line)
            if (seeded := _seeded(read, seed)) is not read:
                read, line = seeded, seeded.text
            if read.beside:  # (the roster's own change, in party.toml: put back on a refusal)
                from facility_tui.campaign import roster

                kept = kept or roster.mark(campaign)
            before = session.encounter
            outcome = session.execute(read)
            if _ends(before, session.encounter):
                end = (before, session.encounter)
        except UnknownCommand as err:
            _err(f"'{line}': {err}; 'facility-tui commands' lists them; nothing was saved")
            return _undone(campaign, kept, 1)
        except CommandError as err:
            _err(f"'{line}': {err}; nothing was saved")
            return _undone(campaign, kept, 1)
        if not quiet:
            _out(f"> {line}")
            for entry in outcome.events:
                _out(f"  {entry.text}")
            if not outcome.events:
                _out(f"  {outcome.message}")
    try:
        if recovered:  # only now that the commands went through: the refused file goes aside
            _err(f"{save.name} kept as {store.set_aside(save).name}")
        if before_edit is not None and accepted is not None:  # ...and a hand edit's versions
            _err(f"kept the version before the edit as {store.keep_backup(before_edit, save)}")
            store.keep_backup(accepted, save)
        store.save(session, save)
    except OSError as err:
        _err(f"could not rename the refused {save} aside: {err.strerror or err}; nothing was saved")
        return _undone(campaign, kept, 2)
    except store.SaveError as err:
        _err(str(err))
        return _undone(campaign, kept, 2)
    if end is not None:  # (once saved: the fight's outcome beside its forecasts, the last end)
        from facility_tui.campaign.ledger import end_note

        if note := end_note(campaign, save, *end):
            _err(note)
    return 0


def _ends(before: Any, after: Any) -> bool:
    from facility_tui.model.encounter import Phase

    return before.phase is not Phase.ENDED and after.phase is Phase.ENDED


def _undone(campaign: Any, kept: Any, code: int) -> int:
    """An apply that saves nothing changes no roster either: the party as it was (``kept``,
    taken before its first ``party`` line changed it)."""
    if kept is not None:
        from facility_tui.campaign import roster

        roster.rollback(campaign, kept)
    return code


def _seeded(line: Line, seed: int | None) -> Line:
    """A ``new`` line without a seed= of its own, given the seed of ``--seed`` (the seed then
    logged, used, and kept in the history's line); any other line as it is."""
    from attrs import evolve

    parsed = line.parsed
    if seed is None or line.spec.verb != "new" or any(key == "seed" for key, _ in parsed.options):
        return line
    options = (*parsed.options, ("seed", str(seed)))
    return evolve(line, text=f"{line.text} seed={seed}", parsed=evolve(parsed, options=options))


def _random_seed() -> int:
    return int.from_bytes(os.urandom(4), "big")


# The shape of show --json (docs/show-json.md describes each): the format of its own keys (the
# rules' derived figures among them); a combatant field declares the format that first showed
# it (``model.fields``), and the newest of them all is the one printed (``json_format``).
JSON_FORMAT = 3


def json_format() -> int:
    from facility_tui.model.encounter import Combatant
    from facility_tui.model.fields import of

    return max(JSON_FORMAT, *(said.json for _, said in of(Combatant)))


def state_json(session: Any, *, public: bool = False) -> dict[str, Any]:
    """The state as ``show --json`` prints it; ``public``: without what ``hide`` keeps from the
    players (hidden combatants, the log lines naming them, hidden notes)."""
    from facility_tui.commands.dispatch import listed
    from facility_tui.model.codec import encode, fields_of
    from facility_tui.report import public_log
    from facility_tui.systems import rules_for

    enc = session.encounter
    rules = rules_for(enc.system)
    shape = json_format()
    combatants = []
    for c in listed(enc):
        if public and c.hidden:
            continue
        data = {f: encode(getattr(c, f)) for f in fields_of(type(c))}  # all, in their order
        if public and c.notes_hidden:
            data["notes"] = ""
        data["derived"] = encode(rules.view.summary(enc, c))
        combatants.append(data)
    log = public_log(enc) if public else enc.log
    return {
        "format": shape,
        "schema_version": shape,  # (format 1's name for it, kept for its readers)
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
        "log": [encode(e) for e in log],
        "history": {  # (the depth: a long fight's older steps are not read)
            "undo": session.timeline.depth(session.timeline.current),
            "redo": len(session.redo_steps),
        },
    }


_RAW_IN_JSON = re.compile("[\x7f-\x9f]")


def json_text(data: Any) -> str:
    """``data`` as indented JSON that shows no control character raw: ``json`` escapes C0 itself;
    DEL and C1 (which it leaves as they are outside ASCII) become ``\\u00XX`` too."""
    import json

    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def show_cmd(save: Path, *, as_json: bool, from_backup: bool = False) -> int:
    session = _read_save(save, from_backup)
    if session is None:
        return 2
    if as_json:
        print(json_text(state_json(session)))
        return 0
    from facility_tui.report import render_text

    print(render_text(session.encounter))
    return 0


MAX_RUNS = 100_000


def forecast_cmd(
    save: Path,
    runs: int,
    seed: int | None,
    plays: Sequence[str],
    *,
    form: str | None,
    from_backup: bool = False,
) -> int:
    """docs/forecast.md: reads the save (held by the tracker or not), writes nothing to it;
    the forecast is kept in the campaign's ledger (``campaign.ledger``)."""
    from facility_tui.forecast import engine as forecast
    from facility_tui.model.encounter import PCS

    if not 1 <= runs <= MAX_RUNS:
        _err(f"--runs must be from 1 to {MAX_RUNS}, got {runs}")
        return 1
    session = _read_save(save, from_backup)
    if session is None:
        return 2
    enc = session.encounter
    seed = enc.seed if seed is None else seed
    try:
        chosen = forecast.read_plays(enc, dict(forecast.parse_play_option(p) for p in plays))
        tallies = forecast.run(enc, runs, seed, chosen)
        tally = counting(tallies, lambda t: plays_done(t, runs)) or forecast.Tally(())
    except forecast.ForecastError as err:
        _err(str(err))
        return 1
    from facility_tui.forecasting import keep

    keep(save, session, tally.wins[PCS], tally.runs, seed, chosen)
    if form == "json":
        print(json_text(forecast.as_dict(enc, tally, chosen, seed)))
    elif form == "md":
        for line in forecast.markdown(enc, tally, chosen, seed).rstrip("\n").split("\n"):
            _out(line)
    else:
        for line in forecast.lines(enc, tally, chosen, seed):
            _out(line)
    return 0


def _opened(save: Path, from_backup: bool) -> Any:
    """``store.Opened`` for ``save`` read as it is (nothing written), or with ``from_backup``
    its newest good version if it is refused, said on stderr; ``None`` after saying in one line
    why it cannot be read (a refused save: how ``--from-backup`` goes on)."""
    from facility_tui import store

    try:
        opened = store.open_save(save, keep_aside=False, later=True)
    except store.DamagedSave as err:
        if not from_backup:
            _err(f"{err}; {FROM_BACKUP}")
            return None
        try:
            opened = store.recover(save, keep_aside=False)
        except store.SaveError as none:
            _err(f"{err}; {none}")
            return None
    except store.SaveError as err:
        _err(str(err))
        return None
    if opened.message:
        _err(opened.message)
    return opened


def _read_save(save: Path, from_backup: bool = False) -> Any:
    """The session of ``save`` for a read-only command (show, export), or None (said why)."""
    opened = _opened(save, from_backup)
    return None if opened is None else opened.session


def export_cmd(
    save: Path,
    form: str,
    *,
    output: Path | None,
    public: bool,
    from_backup: bool = False,
    branch: str | None = None,
) -> int:
    """Print (or write to ``output``) a report of ``save``, of the branch being played or of
    ``branch``; never writes the save itself."""
    from facility_tui import report, store

    if output is not None and _same_file(output, save):
        _err(f"{output} is the save itself: choose another file for the report")
        return 2
    session = _read_save(save, from_backup)
    if session is None:
        return 2
    if branch is not None:
        tip = session.timeline.find(branch)
        if tip is None:
            names = ", ".join(sorted(session.timeline.names.values()))
            known = f"its branches' names: {names}" if names else "none of its branches is named"
            _err(
                f"{save.name} has no branch {branch!r}: give a step's number or a"
                f" branch's name ({known})"
            )
            return 2
        session.go(tip)  # (in memory: the report's; the save is not written)
    if form == "json":
        text = json_text(state_json(session, public=public)) + "\n"
    elif form == "log":
        text = report.render_log(session.encounter, public=public)
    else:
        text = report.render_markdown(session, public=public)
    if output is None:
        print(text, end="")
        return 0
    try:
        store.write_atomic(output, text)
    except OSError as err:
        _err(f"could not write {output}: {err.strerror or err}")
        return 2
    return 0


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def watch_cmd(save: Path, served: bool = False) -> int:
    """The player view: read-only, no lock taken, following the save's autosaves (``served``:
    one browser's, under ``serve``, which ends with its server)."""
    from facility_tui import store
    from facility_tui.workspace import Workspace

    ws = Workspace(save.parent, role="facility-tui watch")
    try:
        note = ws.open_read_only(save)  # (reads it, takes no lock; a damaged one: its backup)
    except store.SaveError as err:
        _err(str(err))
        return 2
    if note:
        _err(note)
    from facility_tui.app import WatchApp

    app = WatchApp(ws, served=served)
    _collect_again()
    app.run()
    return 0


def serve_cmd(
    save: Path, host: str, port: int, with_stdin: bool = False, keyed: bool = False
) -> int:
    """The player view in browsers: the address and its QR code printed, then served until
    ctrl+c (``with_stdin``: or until standard input closes); ``keyed``, at an address with a
    new random key (``serve``'s docstring). The save must be readable now (the viewers open it
    as ``watch`` does)."""
    from facility_tui import store
    from facility_tui.workspace import Workspace

    try:
        Workspace(save.parent, role="facility-tui serve").open_read_only(save)
    except store.SaveError as err:
        _err(str(err))
        return 2
    if not 0 < port < 65536:
        _err(f"--port {port}: a port is a number from 1 to 65535")
        return 2
    from facility_tui.serve import TableServer, addresses, new_key, qr_lines

    with contextlib.suppress(OSError, AttributeError):
        os.nice(19)  # (below the GM's tracker, with every viewer it starts: serve's docstring)
    key = new_key() if keyed else ""

    def announce() -> None:
        urls = addresses(host, port, key)
        print(f"The players' view of {save.name}: {' or '.join(urls)}", flush=True)
        print(qr_lines(urls[0]), end="", flush=True)
        if host.startswith("127.") and not keyed:
            print(
                "(this laptop only: --host with its address on the room's network lets phones in)"
            )
        elif not keyed:
            print("(no key: anyone on this network can watch)")
        print("ctrl+c stops it.", flush=True)

    try:
        server = TableServer(save, host, port, announce=announce, with_stdin=with_stdin, key=key)
        server.serve()
    except OSError as err:
        _err(f"cannot serve on {host}:{port}: {err.strerror or err}")
        return 1
    return 0


def validate_cmd(paths: Sequence[Path]) -> int:
    """Check each save (and config file) as the app would read it, writing nothing: one line
    per problem, ``FILE: key: message``; 0 if there were none, 1 if there were."""
    problems = 0
    checked = 0
    for path in paths:
        files = (
            sorted(f for f in path.glob("*.toml") if not _leftover(f)) if path.is_dir() else [path]
        )
        campaign_files = path.is_dir() and any(
            (path / folder).is_dir() for folder in ("templates", "catalogs")
        )
        if not files and not campaign_files:
            _out(f"{path}: no .toml file in this folder")
            problems += 1
        for file in files:
            checked += 1
            for problem in _problems_of(file):
                _out(problem)
                problems += 1
        if path.is_dir():  # a campaign folder: its templates too
            from facility_tui.campaign import templates
            from facility_tui.campaign.folder import Campaign

            checked += len(templates.names(Campaign(path)))
            for problem in templates.check_folder(Campaign(path)):
                _out(f"{path}/{problem}")
                problems += 1
        if path.is_dir() and (path / "catalogs").is_dir():
            checked += len(list((path / "catalogs").glob("*.toml")))
            for problem in _catalog_problems(path):
                _out(problem)
                problems += 1
    if problems:
        return 1
    _out(f"{checked} file{'s' if checked != 1 else ''} checked: no problem")
    return 0


def _catalog_problems(folder: Path) -> list[str]:
    """The mistakes of a campaign's ``catalogs/*.toml``, each ``FILE:LINE: key ...``."""
    from facility_tui.campaign.catalogs import campaign_catalogs
    from facility_tui.campaign.folder import Campaign
    from facility_tui.systems.facility import catalogs as _facility  # noqa: F401 (their kinds)
    from facility_tui.systems.r2297 import catalogs as _r2297  # noqa: F401

    return [f"{folder / str(err)}" for err in campaign_catalogs(Campaign(folder)).errors]


def _leftover(file: Path) -> bool:
    """An editor's file beside the saves, not a save: a hidden name (emacs's ``.#f.toml`` lock
    link, vim's ``.f.toml.swp``, LibreOffice's ``.~lock.f.toml#``); ``f.toml~`` and
    ``f.toml.swp`` do not end in ``.toml``, so the folder's listing never has them."""
    return file.name.startswith(".")


def _problems_of(file: Path) -> list[str]:
    import tomllib

    from facility_tui import store
    from facility_tui.campaign.folder import DAY_SUFFIX, LEDGER, PARTY, is_day

    try:
        raw, _ = store.read_regular(file)
    except store.SaveError as err:
        return [_naming(file, str(err))]
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        doc = {}  # (the store says best what is wrong with it: cut short, damaged...)
    if file.name == LEDGER:  # the campaign's forecast ledger: each entry as --ledger reads it
        from facility_tui.forecasting import ledger_problems

        return ledger_problems(file)
    if file.name.endswith(DAY_SUFFIX) or is_day(raw.decode("utf-8", "replace")):  # (a day)
        from facility_tui.forecasting import day_problems

        return day_problems(file)
    if file.name == PARTY:  # the campaign's party: its PCs, checked as party join reads them
        from facility_tui.campaign.roster import validate

        return validate(raw.decode("utf-8", "replace"), str(file))
    if doc.get("kind") == "log":  # a save's log file: read (and checked) with its save
        version = doc.get("schema_version")
        if not isinstance(version, int) or version > store.LOG_SCHEMA:
            return [f"{file}: schema_version: {version!r} is not a log file's schema this reads"]
        return []
    if "schema_version" not in doc and ("keys" in doc or "theme" in doc):
        from facility_tui.app import config_problems

        return list(config_problems(file))
    try:
        store.session_of(raw, file)
    except store.SaveError as err:
        return [_naming(file, str(err))]
    return []


def _naming(file: Path, message: str) -> str:
    """``message`` as ``FILE: ...``: the store's own messages start with the file already."""
    name = str(file)
    message = message.removesuffix("; it was left untouched")  # (validate never touches one)
    if message.startswith(name):
        rest = message[len(name) :]
        return name + (rest if rest.startswith(":") else f":{rest}")
    return f"{name}: {message}"


def commands_cmd(*, markdown: bool = False, dice: bool = False, keys: bool = False) -> int:
    from facility_tui.commands.dispatch import commands_markdown, dice_markdown, help_lines
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
