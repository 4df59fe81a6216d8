"""A field declared once, with its facts beside it (``model.fields``), reaches everything that
handles fields: the save, show --json, the checks of a hand edit, templates and the party. A
combatant gains a field here, and a rule system's sheet another, as a contributor would add
them: each is declared in one place, and nothing else is told of it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from attrs import field, frozen

from facility_tui import store
from facility_tui.campaign.folder import Campaign
from facility_tui.cli import main
from facility_tui.commands.session import Session
from facility_tui.model import codec
from facility_tui.model.encounter import Combatant
from facility_tui.model.fields import facts
from facility_tui.systems.r2297.sheet import Sheet2297
from facility_tui.systems.r2297.system import Rules2297


@frozen
class MoodyCombatant(Combatant):
    # a combatant's new field: it lasts, templates keep it, show --json shows it in format 4
    mood: str = field(default="", metadata=facts(chars=12, json=4, omit_default=True))
    # and one that belongs to its fight alone
    stance: str = field(
        default="", metadata=facts(lasts=False, template=False, json=4, omit_default=True)
    )


@frozen
class CalmSheet(Sheet2297):
    # a 2297 sheet's new field, with the bounds a command would hold it to
    calm: int = field(default=0, metadata=facts(least=0, most=5))
    # and one that belongs to its fight alone
    dazed: int = field(default=0, metadata=facts(lasts=False, template=False))


def _forget_types() -> None:
    """The codec works out each class's fields once: the classes changed, it does again."""
    for cached in (codec._hints, codec.defaults, codec._field_types):
        cached.cache_clear()
    codec._FAST.clear()


@pytest.fixture
def new_fields(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The classes with their new fields wherever the code names them, as if declared there."""
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("facility_tui"):
            continue
        for was, now in ((Combatant, MoodyCombatant), (Sheet2297, CalmSheet)):
            if vars(module).get(was.__name__) is was:
                monkeypatch.setattr(module, was.__name__, now)
    monkeypatch.setattr(Rules2297, "sheet_type", CalmSheet)
    _forget_types()
    yield
    monkeypatch.undo()
    _forget_types()


SCOUT = """\
name = "Scout"
side = "pc"
mood = "grim"

[sheet]
calm = 3
"""


def _scout(s: Session) -> MoodyCombatant:
    c = next(c for c in s.encounter.combatants if c.name == "Scout")
    assert isinstance(c, MoodyCombatant) and isinstance(c.sheet, CalmSheet)
    return c


def _edited(path: Path, old: str, new: str) -> None:
    """The fight's part of a save edited (it comes first: its history holds older states)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, text)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_field_declared_once_reaches_the_save_json_edits_templates_and_the_party(
    tmp_path: Path, new_fields: None, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = Campaign(tmp_path)
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "scout.toml").write_text(SCOUT, encoding="utf-8")
    s = Session(store.fresh_session().encounter)
    s.campaign = campaign
    s.execute("new 2297 One seed=3")

    # templates: a template gives them; template save keeps them; add from= gives them again
    s.execute("add from=scout")
    first = _scout(s)
    assert (first.mood, first.sheet.calm) == ("grim", 3)
    s.execute("template save scout kept")
    kept = (tmp_path / "templates" / "kept.toml").read_text(encoding="utf-8")
    assert 'mood = "grim"' in kept and "calm = 3" in kept, kept
    s.execute("remove scout")
    s.execute("add from=kept")
    assert (_scout(s).mood, _scout(s).sheet.calm) == ("grim", 3)

    # the save: written and read back alike
    path = tmp_path / "one.toml"
    store.save(s, path)
    store.forget(path)
    text = path.read_text(encoding="utf-8")
    assert 'mood = "grim"' in text and "calm = 3" in text
    assert store.load(path).encounter == s.encounter

    # show --json: the combatant's field, in the format it declares, and the sheet's
    capsys.readouterr()
    assert main(["show", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    scout = next(c for c in shown["combatants"] if c["name"] == "Scout")
    assert shown["format"] == shown["schema_version"] == 4
    assert scout["mood"] == "grim" and scout["sheet"]["calm"] == 3

    # a hand edit beyond what the fields declare is refused, naming the key; within, taken
    for old, new, says in (
        ("calm = 3", "calm = 9", "sheet.calm must be from 0 to 5, got 9"),
        ('mood = "grim"', 'mood = "grim and gloomy"', "mood must be at most 12 characters"),
        ('mood = "grim"', 'mood = "grim"\ninit = "lots"', "init must be a whole number or dice"),
    ):
        _edited(path, old, new)
        with pytest.raises(store.InvalidSave, match=says):
            store.load(path)
        _edited(path, new, old)
    assert store.load(path).encounter == s.encounter

    # the party: party add keeps them, party join brings them, party return hands them back
    s.execute("party add scout")
    roster = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert 'mood = "grim"' in roster and "calm = 3" in roster, roster
    s.execute("new 2297 Two seed=4")
    s.execute("party join")
    assert (_scout(s).mood, _scout(s).sheet.calm) == ("grim", 3)
    two = tmp_path / "two.toml"
    store.save(s, two)
    store.forget(two)
    _edited(two, "calm = 3", "calm = 4")
    _edited(two, 'mood = "grim"', 'mood = "calm"')
    s = store.open_save(two).session
    s.campaign = campaign
    said = s.execute("party return").message
    assert "calm 3 → 4" in said and "mood grim → calm" in said, said
    roster = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert 'mood = "calm"' in roster and "calm = 4" in roster, roster


def test_a_field_declared_to_belong_to_one_fight_stays_in_it(
    tmp_path: Path, new_fields: None
) -> None:
    campaign = Campaign(tmp_path)
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "scout.toml").write_text(SCOUT, encoding="utf-8")
    s = Session(store.fresh_session().encounter)
    s.campaign = campaign
    s.execute("new 2297 One seed=3")
    s.execute("add from=scout")
    path = tmp_path / "one.toml"
    store.save(s, path)
    store.forget(path)
    _edited(path, 'mood = "grim"', 'mood = "grim"\nstance = "braced"')
    _edited(path, "calm = 3", "calm = 3\ndazed = 2")
    s = store.open_save(path).session
    s.campaign = campaign
    assert (_scout(s).stance, _scout(s).sheet.dazed) == ("braced", 2)

    s.execute("template save scout kept")
    kept = (tmp_path / "templates" / "kept.toml").read_text(encoding="utf-8")
    assert "stance" not in kept and "dazed" not in kept and "calm = 3" in kept, kept
    s.execute("party add scout")
    roster = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert "stance" not in roster and "dazed" not in roster and "calm = 3" in roster, roster
    s.execute("new 2297 Two seed=4")
    s.execute("party join")
    s.execute("add from=kept")
    scouts = [c for c in s.encounter.combatants if c.name == "Scout"]  # (joined, added)
    assert len(scouts) == 2
    for scout in scouts:
        assert isinstance(scout, MoodyCombatant) and isinstance(scout.sheet, CalmSheet)
        assert (scout.mood, scout.stance, scout.sheet.calm, scout.sheet.dazed) == ("grim", "", 3, 0)
