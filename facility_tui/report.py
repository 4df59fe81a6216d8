"""Reports of an encounter: plain text for ``facility-tui show``, the Markdown journal of
``export --md``, the log as text (``export --log``), and what players may see (``watch``).

Players never see a combatant marked hidden (``hide WHO``), its log lines, or a hidden note:
``visible`` and ``public_log`` are the one place that decides it. A log line belongs to a
combatant when it names it (log entries do not record who they are about), so a line naming a
hidden combatant is left out of everything public, whoever else it names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.commands.dispatch import listed
from facility_tui.model.encounter import Combatant, Encounter, LogEntry, Phase
from facility_tui.model.text import naming_any, printable
from facility_tui.model.view import Public
from facility_tui.systems import rules_for

if TYPE_CHECKING:
    from facility_tui.commands.session import Session


def status_line(enc: Encounter, public: bool = False) -> str:
    """Setup, ended, or the round with whose turn it is and whose is next (``public``: as the
    players may see it)."""
    if enc.phase is Phase.SETUP:
        return "Setup: not started"
    if enc.phase is Phase.ENDED:
        return f"Ended after round {enc.round}"
    cur = slot_text(enc, enc.current, public)
    nxt = slot_text(enc, enc.upcoming, public)
    return f"Round {enc.round} | Turn: {cur} | Next: {nxt}"


def slot_text(enc: Encounter, slot: str | None, public: bool = False) -> str:
    """Whose turn ``slot`` is; for the players, a hidden combatant's turn is a dash."""
    if slot is None or (public and enc.has(slot) and enc.get(slot).hidden):
        return "-"
    return rules_for(enc.system).turns.slot_name(enc, slot)


def marks(c: Combatant) -> str:
    """What the GM's views add to a combatant hidden from the players, or to its note."""
    return " ".join(
        w for w, on in (("(hidden)", c.hidden), ("(note hidden)", c.notes_hidden)) if on
    )


def render_text(enc: Encounter, log_lines: int = 10) -> str:
    """The encounter as lines of plain text; names, notes and log text from the save have their
    control characters escaped (``text.printable``), so a save cannot drive the terminal."""
    rules = rules_for(enc.system)
    out = [f"{enc.name} [{rules.title}]", status_line(enc), ""]
    for i, c in enumerate(listed(enc), 1):
        mark = ">" if c.id == enc.current else " "
        i = c.handle if enc.numbered else i  # its number, as the list's # column shows it
        summary = rules.view.summary(enc, c)
        extra = "  ".join(f"{k}={summary[k]}" for k in rules.view.columns if k in summary)
        line = f"{mark}{i:>2} {c.name:<24} {c.side:<8} init {c.initiative:>3}  {extra}"
        out.append(f"{line}  {marks(c)}".rstrip())
    if enc.log:
        out += ["", "Log:"]
        out += [f"  [{e.round}] {e.text}" for e in enc.log[-log_lines:]]
    return "\n".join([printable(line) for line in out])


# -- what players may see ----------------------------------------------------------------------


def public_state(enc: Encounter, c: Combatant) -> Public:
    """The state the players see (the rules' ``public_state``)."""
    return rules_for(enc.system).view.public_state(enc, c)


def visible(enc: Encounter) -> list[Combatant]:
    """The combatants players may see, in the list's order."""
    return [c for c in listed(enc) if not c.hidden]


_HIDING = re.compile(r"(hidden from|shown to) the players$")  # the lines of hide / unhide


def public_log(enc: Encounter, log: Iterable[LogEntry] | None = None) -> list[LogEntry]:
    """The log lines players may read: none naming a hidden combatant or holding a hidden note,
    nor the lines of ``hide`` and ``unhide`` themselves."""
    hidden = naming_any(c.name for c in enc.combatants if c.hidden)
    notes = [c.notes for c in enc.combatants if c.notes_hidden and c.notes]
    out = []
    for e in enc.log if log is None else log:
        if (hidden is not None and hidden.search(e.text)) or _HIDING.search(e.text):
            continue
        if any(n in e.text for n in notes):
            continue
        out.append(e)
    return out


# -- the Markdown journal ------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
_MD_LEADING = re.compile(r"^(\d*)([+=.)-])")  # would start a list or underline a heading


def md(text: str) -> str:
    """``text`` (a name, a note, a log line) as literal Markdown: control characters escaped
    (``printable``), Markdown's own characters backslashed, so a name cannot break a table
    (``|``), start a heading (``#``), a link or code."""
    return _MD_LEADING.sub(r"\1\\\2", _MD_SPECIAL.sub(r"\\\1", printable(text)))


def _row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), _row("---" for _ in header), *(_row(r) for r in rows)]


def falls(session: Session, public: bool = False) -> tuple[list[tuple[int, str, str]], int]:
    """Who fell and when, from the encounters of the kept history: ``(round, combatant id,
    state word)`` each time a combatant goes out of the fight or its state there changes (dying,
    then dead), and the round the kept history starts at (older steps are not kept). The word
    is the list's, as the final table says it (``Incapacitated``, ``uncons.``); ``public``:
    the players' (``down``)."""
    rules = rules_for(session.encounter.system)
    seen: dict[int, tuple[Combatant, Public, str]] = {}  # a combatant a step left as it was
    # is the same object (the model is immutable): its state is not worked out again

    def fallen(enc: Encounter) -> dict[str, str]:
        out = {}
        for c in enc.combatants:
            known = seen.get(id(c))
            if known is None or known[0] is not c:
                state = public_state(enc, c)
                word = state.state if public or not state.fallen else rules.view.state_word(enc, c)
                known = seen[id(c)] = (c, state, word)
            if known[1].fallen:
                out[c.id] = known[2]
        return out

    states = session.states
    out: list[tuple[int, str, str]] = []
    down = fallen(states[0])
    for enc in states[1:]:
        now = fallen(enc)
        out += [(enc.round, cid, word) for cid, word in now.items() if down.get(cid) != word]
        down = now
    return out, states[0].round


def render_markdown(session: Session, *, public: bool = False) -> str:
    """The encounter as a Markdown journal: what it is, who took part, every log line round by
    round, who fell and when, and how everyone stands at the end. ``public``: what players may
    see only (no hidden combatant, line or note; states in words, never exact figures)."""
    enc = session.encounter
    rules = rules_for(enc.system)
    people = visible(enc) if public else listed(enc)
    shown = {c.id for c in people}
    out = [f"# {md(enc.name)}", ""]
    out.append(
        f"{md(rules.title)} rules · {md(status_line(enc, public))}"
        + ("" if public else f" · seed {enc.seed}")
    )
    out += ["", "## Participants", ""]
    rows = []
    shows_init = rules.view.show_initiative or "Init" in rules.view.columns
    for c in people:
        note = "" if public and c.notes_hidden else md(c.notes)
        name = md(c.name) + ("" if public or not marks(c) else f" {marks(c)}")
        init = [initiative_shown(enc, c)] if shows_init else []
        rows.append([name, c.side, *init, note])
    header = ["Name", "Side", *(["Initiative"] if shows_init else []), "Notes"]
    out += _table(header, rows) if rows else ["No one."]

    out += ["", "## Round by round"]
    log = public_log(enc) if public else list(enc.log)
    last = None
    for e in log:
        if e.round != last:
            last = e.round
            out += ["", f"### Round {e.round}" if e.round else "### Before combat", ""]
        text = md(e.text)
        out.append(f"- **{text}**" if e.kind.value == "turn" else f"- {text}")
    if not log:
        out += ["", "Nothing happened yet."]

    out += ["", "## Who fell", ""]
    fell, since = falls(session, public)
    names = {c.id: c.name for c in enc.combatants}
    fell = [f for f in fell if f[1] in shown]
    out += [f"- Round {r}: {md(names.get(cid, cid))} — {word}" for r, cid, word in fell]
    if not fell:
        out.append("No one.")
    if since > 1:
        out += ["", f"(The kept history starts in round {since}: falls before it are in the log.)"]

    out += ["", "## Final state", ""]
    # The GM's table: the list's columns but those of the turn, its state in the list's words
    # (conditions are in its columns); the players': their words for the state, and conditions.
    columns = [] if public else [k for k in rules.view.columns if k not in (*TURN_COLUMNS, *STATE)]
    rows = []
    for c in people:
        if public:
            p = public_state(enc, c)
            state = ", ".join([p.state, *p.conditions])
        else:
            state = rules.view.state_word(enc, c)
        summary = rules.view.summary(enc, c) if columns else {}
        rows.append(
            [
                md(c.name) + ("" if public or not marks(c) else f" {marks(c)}"),
                c.side,
                md(state),
                *(md(BAR.sub("", str(summary.get(k, "")))) for k in columns),
            ]
        )
    out += _table(["Name", "Side", "State", *columns], rows) if rows else ["No one."]
    return "\n".join(out) + "\n"


def initiative_shown(enc: Encounter, c: Combatant) -> str:
    """A combatant's initiative as the list shows it: its own number, or the rules' ``Init``
    column (2297: the initiative of the turn in play, after its penalties)."""
    rules = rules_for(enc.system)
    if rules.view.show_initiative:
        return str(c.initiative)
    return str(rules.view.summary(enc, c).get("Init", c.initiative))


# The list's columns of the turn in play (what is left to spend) mean nothing once the fight is
# over; its small bars are drawing, not figures (the totals beside them stay).
TURN_COLUMNS = ("Init", "Actions", "Marks")
STATE = ("Status",)  # a list column of the state in words: the State column says it
BAR = re.compile(r"^[█▓░]+ ")


def render_log(enc: Encounter, *, public: bool = False) -> str:
    """The log as plain text, a line each: ``[round] text``."""
    log = public_log(enc) if public else enc.log
    return "".join(f"[{e.round}] {printable(e.text)}\n" for e in log)


# -- two moments of a fight side by side (the timeline's compare) --------------------------------


@frozen
class Compared:
    """What differs for one combatant between two moments (``name`` "" for the fight itself):
    ``(what, at the first, at the second)``, plain text."""

    name: str
    rows: tuple[tuple[str, str, str], ...]


ABSENT = "not in the fight"


def compare(a: Encounter, b: Encounter) -> list[Compared]:
    """What changed from ``a`` to ``b``, combatant by combatant (those of ``b``'s list, then
    those only ``a`` has); the ones unchanged are left out. Each combatant's list figures
    first (as the rules sum it up), then its sheet's values that differ."""
    out = []
    fight = [("turn", status_line(a), status_line(b))] if status_line(a) != status_line(b) else []
    if fight:
        out.append(Compared("", tuple(fight)))
    before = {c.id: c for c in a.combatants}
    after = {c.id: c for c in b.combatants}
    ids = [c.id for c in listed(b)] + [c.id for c in listed(a) if c.id not in after]
    for cid in ids:
        was, now = before.get(cid), after.get(cid)
        name = (now or was).name  # type: ignore[union-attr]  # (one of them at least)
        if was is None or now is None:
            rows = [("", _summed(a, was), _summed(b, now))]
        else:  # (its figures follow the turn too: one whose turn is over is "done")
            rows = _columns(a, was, b, now)
            said = {what[:4].lower() for what, _, _ in rows}  # (Injury: injuries, Damage...)
            if was != now:
                rows += [r for r in _pairs(_sheet(a.system, was), _sheet(b.system, now))
                         if r[0][:4] not in said]  # fmt: skip
        if rows:
            out.append(Compared(printable(name), tuple(rows)))
    return out


def _summed(enc: Encounter, c: Combatant | None) -> str:
    """A combatant as the list sums it up (``Injury Moderate  Actions done R``)."""
    if c is None:
        return ABSENT
    view = rules_for(enc.system).view
    summary = view.summary(enc, c)
    return printable("  ".join(f"{k} {summary[k]}" for k in view.columns if k in summary))


def _columns(a: Encounter, x: Combatant, b: Encounter, y: Combatant) -> list[tuple[str, str, str]]:
    """The list's figures of a combatant that differ between two moments."""
    view = rules_for(b.system).view
    was, now = rules_for(a.system).view.summary(a, x), view.summary(b, y)
    return [
        (k, printable(str(was.get(k, "-"))), printable(str(now.get(k, "-"))))
        for k in view.columns
        if was.get(k) != now.get(k)
    ]


def _sheet(system: str, c: Combatant) -> dict[str, Any]:
    from facility_tui.model.codec import encode

    data: dict[str, Any] = encode(c)
    sheet = data.pop("sheet", {})
    quiet = rules_for(system).carry.quiet_fields
    data.update({k: v for k, v in sheet.items() if k not in quiet})
    for key in ("id", "handle", "tiebreak", "turn_init"):  # (bookkeeping, not the fight)
        data.pop(key, None)
    return data


def _pairs(a: Any, b: Any, path: str = "") -> list[tuple[str, str, str]]:
    """``(what, value at a, value at b)`` for each value of plain data that differs; a list of
    named things is compared thing by thing when the names are the same, else by its names."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str, str, str]] = []
        for key in dict.fromkeys([*a, *b]):
            out += _pairs(a.get(key), b.get(key), f"{path} {key}" if path else str(key))
        return out
    if a == b:
        return []
    if isinstance(a, list) or isinstance(b, list):
        x, y = a if isinstance(a, list) else [], b if isinstance(b, list) else []
        named_x, named_y = [_named(v) for v in x], [_named(v) for v in y]
        if named_x == named_y and all(isinstance(v, dict) for v in x + y):
            out = []
            for label, v, w in zip(named_x, x, y, strict=True):
                out += _pairs(v, w, f"{path} {label}")
            return out
        return [(path, ", ".join(named_x) or "none", ", ".join(named_y) or "none")]
    return [(path, _plain(a), _plain(b))]


def _named(item: Any) -> str:
    if isinstance(item, dict):
        if item.get("label") and item.get("kind"):  # a timed effect: what it is, and why
            return printable(f"{item['label']} ({item['kind']})")
        for key in ("name", "label", "level", "kind", "id"):
            if item.get(key) not in (None, ""):
                return printable(str(item[key]))
        return "?"
    return printable(str(item))


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    return str(value).lower() if isinstance(value, bool) else printable(str(value))
