"""Templates: a combatant kept in the campaign's ``templates/`` folder, one TOML file each, added
to any fight by name (``add Guard from=guard count=4``).

A template reads like the ``add`` line that makes it: ``name``, ``side``, ``init`` (a number or
dice, rolled for each one added), ``notes``, and the rule system's ``add`` options as keys
(``hlt = 20``, ``armor = "Vest 15/20"``, ``phy = 2``, ``job = "tech"``). What the options cannot
say goes in a ``[sheet]`` table, written as a save writes a sheet, and is laid over the sheet the
options build. ``template save`` writes that form from a combatant (``docs/templates.md``).

A command reads a template through ``call.reads("template", NAME)``: the file's text is kept with
the step, so undo, redo and reloading never read it again. Every check says the file, the line
and the key (``templates/guard.toml:12: hlt: expected a number or dice...``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from facility_tui.campaign.folder import (
    TEMPLATES,
    Campaign,
    CampaignError,
    field_value,
    line_of,
    reader,
)
from facility_tui.commands.dice import Dice, DiceError
from facility_tui.commands.grammar import CommandError, Parsed, quote
from facility_tui.commands.spec import Call, Spec, side_of, slug
from facility_tui.model.codec import (
    DecodeError,
    decode,
    defaults,
    encode,
    encode_sparse,
    unknown_key,
)
from facility_tui.model.encounter import Combatant, Encounter
from facility_tui.model.fields import fresh_where, where
from facility_tui.model.text import control_in
from facility_tui.systems import RuleSystem, ids, rules_for

# What add's line says of a combatant outside its rule options: a template says them so too.
LINE_KEYS = ("name", "side", "init")


def field_keys() -> tuple[str, ...]:
    """The rest of a combatant that a template keeps, as the fields declare (``model.fields``:
    notes, notes_hidden...; not what one fight owns), whatever fields a combatant gains."""
    kept = where(Combatant, lambda said: said.template)
    return tuple(name for name in kept if name not in (*LINE_KEYS, "sheet"))


def own_keys() -> tuple[str, ...]:
    """The keys of a template that are not add's options: its rules, add's line, the
    combatant's other fields and its [sheet]."""
    return ("system", *LINE_KEYS, *field_keys(), "sheet")


MAX_TEMPLATE_BYTES = 256 * 1024  # a template is a few lines; a bigger file is not one


@frozen
class Template:
    """A template as a command uses it, checked against an encounter's rule system."""

    file: str  # as messages name it: templates/guard.toml
    name: str
    side: str | None
    init: str | None
    fields: tuple[tuple[str, Any], ...]  # the combatant's other fields (``field_keys``) it sets
    options: tuple[tuple[str, str], ...]  # add's options, as typed on a line
    sheet: Mapping[str, Any]  # laid over the sheet the options build


def folder(campaign: Campaign) -> Path:
    return campaign.templates


_FROM = re.compile(r"""\bfrom=("?)([^"\s]*)$""", re.IGNORECASE)


def complete(line: str, campaign: Campaign | None) -> str | None:
    """The line with the template name being typed after ``from=`` completed as far as the
    campaign's names that fit agree (``add from=gu`` → ``add from=guard``), or None."""
    from facility_tui.model.text import common_prefix

    m = _FROM.search(line)
    if m is None:
        return None
    typed = m.group(2)
    fits = [n for n in names(campaign) if n.lower().startswith(typed.lower())]
    common = fits[0][: len(common_prefix([n.lower() for n in fits]))] if fits else ""
    if len(common) <= len(typed):
        return None
    return line[: m.start(2)] + common + ('"' if m.group(1) and len(fits) == 1 else "")


def names(campaign: Campaign | None) -> list[str]:
    """The campaign's template names (file stems), sorted; none without a folder."""
    if campaign is None:
        return []
    try:
        return sorted(
            p.stem
            for p in folder(campaign).glob("*.toml")
            if p.is_file() and not p.name.startswith(".")
        )
    except OSError:
        return []


def file_of(campaign: Campaign, name: str) -> Path | None:
    """The file of template ``name`` (any case, or its slug), or None."""
    want = {name.lower(), slug(name)}
    for stem in names(campaign):
        if stem.lower() in want:
            return folder(campaign) / f"{stem}.toml"
    return None


@reader("template")
def read_template(campaign: Campaign, name: str) -> dict[str, str] | None:
    """The template's file as text, to be kept with the step that read it (None: no such)."""
    path = file_of(campaign, name)
    if path is None:
        return None
    shown = f"{TEMPLATES}/{path.name}"
    try:
        if path.stat().st_size > MAX_TEMPLATE_BYTES:
            raise CampaignError("is over 256 KiB: a template is a few lines", shown)
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CampaignError("is not UTF-8 text", shown) from None
    except OSError as err:
        raise CampaignError(f"cannot be read: {err.strerror or err}", shown) from None
    return {"file": shown, "text": text}


def unknown_template(campaign: Campaign | None, name: str) -> CommandError:
    import difflib

    known = names(campaign)
    if not known:
        where = f"{folder(campaign)}" if campaign is not None else "the campaign folder"
        return CommandError(
            f"no template '{name}': there are none in {where} yet (template save WHO NAME)"
        )
    close = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.3) or known[:3]
    return CommandError(f"no template '{name}': the nearest are {', '.join(close)}")


# -- reading and checking -----------------------------------------------------------------------


def _scratch_call(rules: RuleSystem, options: Mapping[str, str]) -> Call:
    """A call of ``add`` with ``options`` on a throwaway encounter: what a template's options
    would build, with no fight touched (its dice roll on a scratch seed)."""
    spec = Spec("add", "add", "", lambda call: call.enc)
    enc = Encounter(name="", system=rules.system, state=rules.new_state())
    return Call(spec, Parsed("add", (), tuple(options.items())), enc, Dice(0, 0), rules)


def _option_text(value: Any) -> str | None:
    """A TOML value as ``add`` would read it typed on a line; None: not a value a line has."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    return None


def _toml_line(message: str) -> int:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else 0


def parse(data: Mapping[str, str], system: str) -> Template:
    """The template ``data`` (what ``read_template`` returned) checked for a ``system``
    encounter; a mistake raises ``CampaignError`` naming its file, line and key."""
    import tomllib  # (here: a launch, or apply without templates, does not pay for it)

    file, text = str(data.get("file", "template")), str(data.get("text", ""))

    def fail(message: str, *path: str | int) -> CampaignError:
        return CampaignError(message, file, line_of(text, path) if path else 1)

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CampaignError(
            f"is not TOML: {str(err).split(' (at')[0]}", file, _toml_line(str(err))
        ) from None
    rules = rules_for(system)
    wanted = table.get("system")
    if wanted is not None:
        if not isinstance(wanted, str) or wanted.lower() not in ids():
            raise fail(f"system must be one of {', '.join(ids())}, got {wanted!r}", "system")
        if wanted.lower() != system:
            raise fail(f"is a {wanted} template; this encounter plays {system}", "system")

    def text_key(key: str, limit: int) -> str | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(f"{key} must be text, got {value!r}", key)
        bad = control_in(value)
        if bad:
            raise fail(f"{key} holds a control character ({bad})", key)
        if len(value) > limit:
            raise fail(f"{key} is {len(value)} characters long: at most {limit}", key)
        return value

    def kept(key: str) -> Any:
        """A combatant's field as the template gives it, held to the field's facts."""
        try:
            return field_value(Combatant, key, table[key])
        except ValueError as err:
            raise fail(f"{key} {err}", key) from None

    name = kept("name") if "name" in table else None
    if name is not None and not name.strip():
        raise fail("name is blank", "name")
    side = text_key("side", 20)
    if side is not None:
        try:
            side = side_of(side)
        except CommandError as err:
            raise fail(f"side: {err}", "side") from None
    init = kept("init") if "init" in table else None
    fields = {key: kept(key) for key in field_keys() if key in table}

    options: dict[str, str] = {}
    for key, value in table.items():
        if key in own_keys():
            continue
        typed = _option_text(value)
        if typed is None:
            raise fail(
                f"{key} must be a number, text or true/false as on an add line, got {value!r}",
                key,
            )
        bad = control_in(typed)
        if bad:
            raise fail(f"{key} holds a control character ({bad})", key)
        call = _scratch_call(rules, {key: typed})
        try:
            rules.new_sheet(call)
            call.check_options()
        except CommandError as err:  # (a RuleError is one)
            said = str(err)
            if "does not take" in said:
                said = f"{key} is not a key of a {system} template: {_keys_hint(rules)}"
            elif not re.match(rf"{re.escape(key)}\b", said):
                said = f"{key}: {said}"
            raise fail(said, key) from None
        except DiceError as err:
            raise fail(f"{key}: {err}", key) from None
        options[key] = typed

    sheet = table.get("sheet", {})
    if not isinstance(sheet, dict):
        raise fail("sheet must be a table: [sheet] and its keys below it", "sheet")
    if sheet:
        bad_key = unknown_key(rules.sheet_type, sheet, "sheet")
        if bad_key:
            parts = bad_key.split(".")
            raise fail(f"{bad_key} is not a key of a {system} sheet", *parts)
        try:
            built = build_sheet(rules, rules.new_sheet(_scratch_call(rules, options)), sheet)
        except DecodeError as err:
            path = re.split(r"\.|\[(\d+)\]\.?", err.where or "sheet")
            raise fail(str(err), *[p for p in path if p]) from None
        except CommandError as err:
            raise fail(str(err), "sheet") from None
        problem = rules.validation.check_combatant(enc_for(rules), Combatant("x", "x", sheet=built))
        if problem is not None:
            at, why = problem
            raise fail(f"{at} {why}", *at.split("."))
    return Template(
        file, name or "", side, init, tuple(fields.items()), tuple(options.items()), sheet
    )


def _keys_hint(rules: RuleSystem) -> str:
    hint = rules.info.option_hint
    return f"it takes {', '.join(own_keys()[1:-1])}, [sheet] and add's options ({hint})"


def enc_for(rules: RuleSystem) -> Encounter:
    return Encounter(name="", system=rules.system, state=rules.new_state())


def build_sheet(rules: RuleSystem, built: Any, over: Mapping[str, Any]) -> Any:
    """The sheet ``built`` from the options with the ``[sheet]`` keys laid over it."""
    if not over:
        return built
    data = encode(built)
    data.update(over)
    return decode(rules.sheet_type, data, where="sheet")


# -- adding from a template (the add command) ----------------------------------------------------


def template_for(call: Call, name: str) -> Template:
    """The template ``name``, read through the call (kept with its step) and checked for the
    call's encounter."""
    data = call.reads("template", name)
    if data is None:
        raise unknown_template(call.reads.campaign, name)
    return parse(data, call.enc.system)


def sheet_over(call: Call, template: Template, built: Any, typed: set[str]) -> Any:
    """The sheet of one combatant added from ``template``: ``built`` from the options, the
    template's ``[sheet]`` over it, except the keys the line typed as options itself."""
    over = {k: v for k, v in template.sheet.items() if k not in typed}
    try:
        sheet = build_sheet(call.rules, built, over)
    except DecodeError as err:
        raise CommandError(f"{template.file}: {err}") from None
    problem = call.rules.validation.check_combatant(call.enc, Combatant("x", "x", sheet=sheet))
    if problem is not None:
        raise CommandError(f"{template.file}: {problem[0]} {problem[1]}")
    return sheet


# -- saving a combatant as a template ------------------------------------------------------------


def template_text(rules: RuleSystem, c: Combatant, stem: str) -> str:
    """The template of ``c``: its name, side, initiative as its add line gave it, notes (every
    field of a combatant no one fight owns), the add options that say its sheet and a
    ``[sheet]`` table for the rest; what only this fight gave it (its rolled initiative, its
    turn's bookkeeping) is left out. Reading it back builds the same sheet (checked here)."""
    import tomli_w

    fresh = dict(defaults(rules.sheet_type))
    sheet = evolve(c.sheet, **{k: fresh[k] for k in rules.carry.per_fight if k in fresh})
    sheet = fresh_where(sheet, lambda said: not said.template)  # (as its fields declare too)
    sparse: dict[str, Any] = encode_sparse(sheet)
    # field -> (option, its text on an add line): the plain values as they are, then the rules'
    # own text forms (armor = "Vest 15/20"); each kept only if it builds that field alike
    candidates: dict[str, list[tuple[str, Any]]] = {}
    for key, value in sparse.items():
        plain = value["bonus"] if isinstance(value, dict) and set(value) == {"bonus"} else value
        if _option_text(plain) is not None and not isinstance(plain, bool):
            candidates.setdefault(key, []).append((key, plain))  # (a Facility stat: phy = 2)
    for key, said in rules.carry.template_options(sheet).items():
        if key in sparse:
            candidates.setdefault(key, []).append(said)
    options: dict[str, Any] = {}
    for key, tries in candidates.items():
        for option, value in tries:
            typed = str(_option_text(value))
            try:
                call = _scratch_call(rules, {option: typed})
                built = rules.new_sheet(call)
                call.check_options()
            except (CommandError, DiceError):
                continue
            if encode_sparse(built).get(key) == sparse[key]:
                options[option] = value
                break
    try:
        built = rules.new_sheet(_scratch_call(rules, {k: str(v) for k, v in options.items()}))
        made = encode_sparse(built)  # (a job= brings its saves, PPE, items: not said again)
        rest = {
            k: encode_sparse(getattr(sheet, k))
            for k in [*sparse, *(k for k in made if k not in sparse)]
            if made.get(k) != sparse.get(k)
        }
        same = build_sheet(rules, built, rest) == sheet
    except (CommandError, DiceError, DecodeError):
        same = False
    if not same:  # (options that do not combine as they read alone: the sheet says it all)
        options, rest = {}, sparse
    out: dict[str, Any] = {"system": rules.system, "name": c.name, "side": _side_word(c.side)}
    if c.init:
        out["init"] = int(c.init) if c.init.isdecimal() else c.init
    blank = Combatant(id="", name="")
    out.update({k: getattr(c, k) for k in field_keys() if getattr(c, k) != getattr(blank, k)})
    out.update(options)
    if rest:
        out["sheet"] = rest
    head = (
        f"# {c.name}: a facility-tui template (docs/templates.md)\n"
        f"# add it with: add from={stem} count=N\n"
    )
    return head + tomli_w.dumps(out)


def _side_word(side: str) -> str:
    return "pc" if side == "pcs" else "enemy"


def save_template(
    campaign: Campaign | None,
    rules: RuleSystem,
    enc: Encounter,
    c: Combatant,
    name: str,
    *,
    force: bool,
) -> str:
    """Write ``c`` as template ``name``; the GM's message. Refuses to write over one unless
    ``force``; a folder that cannot be written is said in one line. One of several added by
    ``count=`` (Boarder 2, beside Boarder 1) is kept by its common name (Boarder)."""
    if campaign is None:
        raise CommandError("there is no campaign folder to keep templates in")
    stem = slug(name)
    existing = file_of(campaign, name)
    path = existing or folder(campaign) / f"{stem}.toml"
    stem, shown = path.stem, f"{TEMPLATES}/{path.name}"
    if existing is not None and not force:
        raise CommandError(
            f"{shown} exists: add force to write over it "
            f"(template save {quote(c.name)} {stem} force)"
        )
    kept = evolve(c, name=common_name(enc, c.name))
    text = template_text(rules, kept, stem)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, text)
    except OSError as err:
        raise CommandError(f"cannot write {shown}: {err.strerror or err}") from None
    named = f" (named {kept.name})" if kept.name != c.name else ""
    return f"Saved {c.name} as template {stem}{named} ({shown}); add from={stem} adds it"


def common_name(enc: Encounter, name: str) -> str:
    """``Boarder`` for ``Boarder 2`` when a ``Boarder N`` stands beside it (they were added
    with ``count=``); else the name as it is (a lone "Unit 7" keeps its 7)."""
    base, _, number = name.rpartition(" ")
    if not base or not number.isdecimal():
        return name
    for other in enc.combatants:
        b, _, n = other.name.rpartition(" ")
        if other.name != name and b == base and n.isdecimal():
            return base
    return name


def _write_atomic(path: Path, text: str) -> None:
    """As the store writes a save: a temporary file beside it, synced, moved over it."""
    import tempfile  # (rarely: not on every launch, with shutil)

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):  # the move itself kept, where the system allows
        folder_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder_fd)
        finally:
            os.close(folder_fd)


def check_folder(campaign: Campaign) -> list[str]:
    """Every template's first problem, one line each (``facility-tui validate``): a template
    is checked against each rule system it may serve (its ``system``, else all)."""
    problems: list[str] = []
    for stem in names(campaign):
        try:
            data = read_template(campaign, stem)
            if data is None:
                continue
            wanted = _declared_system(data["text"])
            systems = [wanted] if wanted in ids() else ids()
            errors: list[str] = []
            for system in systems:
                try:
                    parse(data, system)
                except CampaignError as err:
                    errors.append(str(err))
            if len(errors) == len(systems):
                problems.append(errors[0])
        except CampaignError as err:
            problems.append(str(err))
    return problems


def _declared_system(text: str) -> str | None:
    import tomllib

    try:
        value = tomllib.loads(text).get("system")
    except tomllib.TOMLDecodeError:
        return None
    return value.lower() if isinstance(value, str) else None
