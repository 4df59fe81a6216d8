"""Issue 38: a large fight's combatants copied as JSON beside its save (``store/statecache.py``),
so that opening it parses no TOML table of theirs; the copy read only for a fight as facility-tui
wrote it, whole, and never the only copy."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.grammar import quote
from facility_tui.commands.session import Session
from facility_tui.store import reader, statecache
from facility_tui.store.format import toml_value
from facility_tui.store.reader import split3
from tests.unit.test_store_format import same

SYSTEMS = ("2297", "facility")


def big_fight(system: str) -> Session:
    """The demo fight of ``system`` (sheets, gear, effects) grown past ``COPY_FROM`` combatants,
    one with a name a TOML string must escape, started and a turn played."""
    s = Session(demo_encounter(system))
    odd = quote('Zoë "Q" [x] \\ é')
    s.execute(f"add {odd} side=pc" + (" init=7" if system == "2297" else ""))
    add = "add Goon init=1d100 count=50" if system == "2297" else "add Grunt track=12 count=50"
    while len(s.encounter.combatants) < statecache.COPY_FROM:
        s.execute(add)
    s.execute("start" if system == "2297" else "start first=pc")
    s.execute("next")
    return s


def copies(path: Path) -> list[Path]:
    return sorted(store.sidecar_for(path).glob("state-*.json"))


def saved(tmp_path: Path, session: Session) -> Path:
    path = tmp_path / "fight.toml"
    store.save(session, path)
    store.forget(path)  # read back as another run of the app would
    return path


def parsed_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the reader gives the TOML parser from now on."""
    texts: list[str] = []

    def spy(text: str) -> dict[str, object]:
        texts.append(text)
        return tomllib.loads(text)

    monkeypatch.setattr(reader, "read_toml", spy)
    return texts


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_large_fight_opens_without_parsing_its_combatants_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    s = big_fight(system)
    path = saved(tmp_path, s)
    texts = parsed_texts(monkeypatch)
    back = store.load(path)
    same(back, s)
    assert texts and not any("[[combatants]]" in t for t in texts)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_large_fights_order_is_read_without_the_toml_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    """The order's ids (1,000 at 1,000 combatants) are one line of the head the writer wrote:
    read as JSON when the copy is read, the same ids TOML gives."""
    s = big_fight(system)
    path = saved(tmp_path, s)
    texts = parsed_texts(monkeypatch)
    back = store.load(path)
    same(back, s)
    assert back.encounter.order == s.encounter.order
    tables = [t[t.index("\n[encounter]\n") :] for t in texts]
    assert tables and not any("\norder = " in t[: t.find("\n[", 1)] for t in tables)


@settings(max_examples=150, deadline=None)
@given(
    ids=st.lists(st.text(max_size=6), max_size=5),
    other=st.none() | st.lists(st.text(max_size=2), max_size=3),
)
def test_the_order_lifted_from_a_head_is_what_toml_reads(
    ids: list[str], other: list[str] | None
) -> None:
    """Any ids, as the writer writes them (escapes, quotes, control characters): the order
    taken out of the head reads as TOML reads it, or is left to TOML; an ``order`` of another
    table is never taken."""
    head = "\n".join(
        [
            "schema_version = 4",
            "",
            "[encounter]",
            'name = "E"',
            f"order = {toml_value(ids)}",
            "turn = 0",
            *(
                ["", "[encounter.state]", f"order = {toml_value(other)}"]
                if other is not None
                else []
            ),
            "",
        ]
    )
    lifted, order = statecache.lift_order(head)
    whole = tomllib.loads(head)
    if order is None:
        assert lifted == head
        return
    doc = tomllib.loads(lifted)
    assert "order" not in doc["encounter"] and order == whole["encounter"]["order"]
    doc["encounter"]["order"] = order
    assert doc == whole


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_copy_reads_as_the_tables_do(tmp_path: Path, system: str) -> None:
    path = saved(tmp_path, big_fight(system))
    parts = split3(path.read_bytes(), str(path))
    copy = statecache.combatants_of(store.sidecar_for(path), parts.state, parts.state_sum)
    assert copy is not None
    assert copy[0] == tomllib.loads(parts.state)["combatants"]


def test_a_hand_edit_is_read_from_the_tables_not_the_copy(tmp_path: Path) -> None:
    path = saved(tmp_path, big_fight("2297"))
    assert copies(path)
    text = path.read_text()
    path.write_text(text.replace('name = "Goon 7"\n', 'name = "Goon Seven"\n', 1))
    opened = store.open_save(path)
    assert opened.message is not None and "Goon Seven" in opened.message
    assert opened.session.encounter.get("goon-7").name == "Goon Seven"


@pytest.mark.parametrize("damage", ["cut", "changed", "other"])
def test_a_damaged_copy_is_passed_over_for_the_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    s = big_fight("2297")
    path = saved(tmp_path, s)
    (copy,) = copies(path)
    raw = copy.read_bytes()
    if damage == "cut":  # a power cut after an unsynced write
        copy.write_bytes(raw[: len(raw) // 2])
    elif damage == "changed":
        copy.write_bytes(raw.replace(b'"Goon 7"', b'"Goon 8"'))
    else:  # another fight's copy, whole, put under this name
        other = big_fight("2297")
        other.execute("next")
        store.save(other, tmp_path / "other.toml")
        copy.write_bytes(copies(tmp_path / "other.toml")[0].read_bytes())
    texts = parsed_texts(monkeypatch)
    same(store.load(path), s)
    assert any("[[combatants]]" in t for t in texts)


def test_a_save_keeps_the_copy_of_its_own_state_only(tmp_path: Path) -> None:
    s = big_fight("2297")
    path = tmp_path / "fight.toml"
    for _ in range(3):
        s.execute("next")
        store.save(s, path)
    parts = split3(path.read_bytes(), str(path))
    assert [p.name for p in copies(path)] == [statecache.name_for(parts.state_sum)]
    store.forget(path)  # another process: the copies it finds are not its own
    (store.sidecar_for(path) / statecache.name_for("0" * 64)).write_text("left over")
    s.execute("next")
    store.save(s, path)
    parts = split3(path.read_bytes(), str(path))
    assert [p.name for p in copies(path)] == [statecache.name_for(parts.state_sum)]
