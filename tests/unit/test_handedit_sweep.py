"""Issue 22's sweep of hand edits: both demo fights, edited one line (or one table) at a time —
numbers made negative, zero, huge, text or fractions, text emptied or replaced by a side's word,
keys and tables deleted, combatants copied, the editor's marks — each edit either refused with a
message naming its line, or taken as a fight the rules can run: shown (text and JSON), every
pane and status of every combatant computed, commands answering with a refusal at worst, undo
back to the fight before the edit. Never a traceback.

Hypothesis draws a bounded sample of the edits at each run (all ~2,500 of them take a minute)."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign.demo import demo_encounter
from facility_tui.cli import state_json
from facility_tui.commands.dispatch import listed
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import ENEMIES, PCS
from facility_tui.report import render_text
from facility_tui.systems import rules_for
from facility_tui.systems.facility.demo import DEMO_FACILITY_FIGHT

SOURCE = "deck.toml"
_KEY_LINE = re.compile(r"^(\s*)([A-Za-z_][\w-]*) = (.*)$")


@functools.cache
def demo_save(system: str) -> tuple[str, Session]:
    """The demo fight of ``system`` a few turns in, as its save's text."""
    s = Session(demo_encounter(system))
    lines = DEMO_FACILITY_FIGHT if system == "facility" else ("start", "hit blanc 30", "next")
    for line in lines:
        s.execute(line)
    return store.dumps(s), s


def _values(value: str) -> list[str]:
    if re.fullmatch(r"-?\d+", value):
        n = int(value)
        return ["-1", "0", str(n + 1), "10000", "-10000", "99999999999999999999", '"7"', "1.5"]
    if value.startswith('"'):
        return ['""', '"Renamed"', '"pc"', '"ENEMY"', '"enemies"', "3", "true"]
    if value in ("true", "false"):
        return ["false" if value == "true" else "true", "1"]
    if value.startswith("["):
        return ["[]", '["x"]', '"x"', "[1]"]
    return ["1"]


@functools.cache
def edits(system: str) -> list[tuple[str, str]]:
    """Every edit of the sweep: (what it is, the file's text after it)."""
    return list(_edits(demo_save(system)[0]))


def _edits(text: str) -> Iterator[tuple[str, str]]:
    head, rest = text.split("\n", 1)
    state, tail = rest.split(store.SEPARATOR, 1)
    lines = state.split("\n")  # (its last item is "": the state ends with a newline)

    def file(new: list[str]) -> str:
        return head + "\n" + "\n".join(new) + store.SEPARATOR + tail

    for i, line in enumerate(lines):
        at = f"line {i + 2}"
        m = _KEY_LINE.match(line)
        if m:
            for value in _values(m.group(3)):
                yield (
                    f"{at}: {m.group(2)} = {value}",
                    file([*lines[:i], f"{m.group(1)}{m.group(2)} = {value}", *lines[i + 1 :]]),
                )
            yield f"{at}: {m.group(2)} deleted", file(lines[:i] + lines[i + 1 :])
        elif line.startswith("["):
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].startswith("[")), len(lines) - 1
            )
            yield f"{at}: header {line} deleted", file(lines[:i] + lines[i + 1 :])
            yield f"{at}: table {line} deleted", file(lines[:i] + lines[end:])
    starts = [i for i, line in enumerate(lines) if line == "[[combatants]]"]
    for k, start in enumerate(starts):
        block = lines[start : starts[k + 1] if k + 1 < len(starts) else len(lines) - 1]
        renamed = [re.sub(r'^id = "(.*)"$', r'id = "\1-copy"', ln) for ln in block]
        yield f"combatant {k} copied", file([*lines[:-1], *block, ""])
        yield f"combatant {k} copied with a new id", file([*lines[:-1], *renamed, ""])
    yield "a second [encounter]", file([*lines[:-1], "[encounter]", 'name = "Two"', ""])
    yield "a key above [encounter]", head + "\nhp = 3\n" + rest
    yield "a BOM", "\ufeff" + text
    yield "a blank line after the end", text + "\n"
    yield "CRLF", text.replace("\n", "\r\n")


def check(system: str, what: str, text: str) -> str:
    """Load one edited save and hold it to the sweep's rule; 'refused' or 'accepted'."""
    try:
        session = store.loads(text, SOURCE)
    except store.SaveError as err:
        message = str(err)
        assert "\n" not in message, (what, message)
        assert re.match(rf"{re.escape(SOURCE)}:\d+: \S", message), (what, message)
        return "refused"
    enc = session.encounter
    rules = rules_for(enc.system)
    render_text(enc)
    state_json(session)
    state_json(session, public=True)
    rules.view.reminders(enc)
    for c in listed(enc):
        assert c.side in (PCS, ENEMIES), (what, c.side)
        assert rules.validation.check_combatant(enc, c) is None, (what, c.name)
        rules.view.summary(enc, c)
        rules.view.public_state(enc, c)
        rules.view.panes(enc, c)
    assert store.loads(store.dumps(session)).encounter == enc, what  # save -> load
    edited = enc
    hits = [f"hit {c.id} 12" for c in enc.combatants[:3]]
    for line in ["next", *hits, "next", "undo", "undo"]:
        with contextlib.suppress(CommandError):
            session.execute(line) if line != "undo" else session.undo()
        for c in listed(session.encounter):
            rules.view.panes(session.encounter, c)
    while session.undo_steps and session.encounter != edited:
        session.undo()
    assert session.encounter == edited, what
    return "accepted"


@pytest.mark.parametrize("system", ["2297", "facility"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_hand_edit_is_refused_with_its_line_or_runs(system: str, data: st.DataObject) -> None:
    what, text = data.draw(st.sampled_from(edits(system)), label="edit")
    check(system, what, text)


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_the_sweep_holds_the_edits_issue_22_and_28_found(system: str) -> None:
    """The edits of the issues' sweeps, every time (the sample above may miss them)."""
    found = {what: text for what, text in edits(system)}
    wanted = r": (sta|pt|hlt|fatigue|edge|side|marks) = -1$|: name deleted$|: side = \"pc\"$"
    first: dict[str, str] = {}  # each such edit on the first line it was made on
    for w in found:
        if re.search(wanted, w) or not w.startswith("line"):
            first.setdefault(w.split(": ", 1)[-1], w)
    named = list(first.values())
    assert len(named) > 15
    outcomes = {w: check(system, w, found[w]) for w in named}
    for w in ("a BOM", "a blank line after the end", "CRLF", "combatant 1 copied with a new id"):
        assert outcomes[w] == "accepted", w
    for w in ("a second [encounter]", "a key above [encounter]", "combatant 1 copied"):
        assert outcomes[w] == "refused", w
