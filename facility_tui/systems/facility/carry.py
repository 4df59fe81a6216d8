"""What of a Facility sheet outlasts a fight: what the party keeps of a PC (wounds, scars, PPE and
its marks, guns out of ammo, Spare Parts, death) and how it rests between fights (a Shift), what
a template writes of a sheet (its PPE, weapons and save bases as ``add`` takes them).
"""

from __future__ import annotations

from typing import Any

from attrs import astuple, evolve

from facility_tui.systems.base import Carry
from facility_tui.systems.facility.rules import STATS, Fate
from facility_tui.systems.facility.sheet import FacilitySheet


class FacilityCarry(Carry):
    """A PC carries its wounds to the next fight; a template is a sheet before any fight."""

    rest_between = "shift {who}"  # F9: a Shift with no strain, 1 wound off every stat
    per_fight = ("attack_used", "other_used")  # F7: the marks of this turn

    def lasting(self, sheet: Any) -> Any:
        """What a PC carries to the next fight: wounds, scars, PPE and its marks (an ablated
        piece stays marked), guns out of ammo, Spare Parts, death; not the side turn's two
        marks (F7), nor how it left this fight (fled, surrendered, out: its wounds decide
        again)."""
        if not isinstance(sheet, FacilitySheet):
            return sheet
        fate = sheet.fate if sheet.fate is Fate.DEAD else Fate.ACTIVE
        return evolve(sheet, attack_used=False, other_used=False, fate=fate)

    def unhurt(self, sheet: Any) -> Any:
        """No wound on any stat or simple track (scars stay: they are its make), PPE unmarked,
        every gun loaded, in the fight (not out, fled or dead), no mark of a turn."""
        if not isinstance(sheet, FacilitySheet):
            return sheet
        stats = {name: evolve(getattr(sheet, name), wounds=0) for name in STATS}
        return evolve(
            sheet,
            **stats,
            track_wounds=0,
            ppe=tuple(evolve(p, marks=0) for p in sheet.ppe),
            empty=(),
            fate=Fate.ACTIVE,
            overrule=False,
            attack_used=False,
            other_used=False,
        )

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """PPE (unmarked), weapons and save bases as ``add`` takes them."""
        s: FacilitySheet = sheet
        out = {"weapons": ("weapon", ",".join(s.weapons))}
        if all(p.marks == 0 for p in s.ppe):
            out["ppe"] = ("ppe", ", ".join(p.name for p in s.ppe))
        out["base"] = ("saves", ",".join(str(v) for v in astuple(s.base)))
        return out
