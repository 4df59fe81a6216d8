"""Facility's open choices (F2, F5, F8), each with its options as command lines: a hit's deal or
Critical, a miss or a failed roll's Salvage, a failed save's ablate or suffer, a Partial's
backlash. The panes, the pending menu and ``n``'s question read this one list."""

from __future__ import annotations

from facility_tui.commands.grammar import quote
from facility_tui.model.encounter import Combatant, Encounter
from facility_tui.model.text import counted
from facility_tui.model.view import Choice, Option
from facility_tui.systems.base import Choices
from facility_tui.systems.facility.engine import backlash_line, pending_text, sheet_of, state_of
from facility_tui.systems.facility.rules import (
    STAT_NAMES,
    WEAPONS,
    Weapon,
    covering,
    impaired,
    simple,
    weapon_from,
    weapon_of,
)
from facility_tui.systems.facility.sheet import FacilitySheet, Pending, PendingHarm, Step

MAX_BACKLASH_KEYS = 9  # one key per amount, '1' to '9'


class FacilityChoices(Choices):
    """F2/F8 a roll waiting for its Salvage or its outcome (deal or crit, a Partial's
    backlash), F5 a failed save waiting for ablate or suffer."""

    def open(self, enc: Encounter) -> tuple[Choice, ...]:
        """Every pending roll's choice, then every failed save's, in the order they were left."""
        st = state_of(enc)
        out = [_roll_choice(enc, p) for p in st.pending if enc.has(p.who)]
        out += [_harm_choice(enc, h) for h in st.harms if enc.has(h.who)]
        return tuple(out)


def _roll_choice(enc: Encounter, p: Pending) -> Choice:
    c = enc.get(p.who)
    who = quote(c.id)
    title = f"{c.name}: {pending_text(p)}"
    options: tuple[Option, ...]
    if p.step is Step.HIT:
        w = weapon_of(sheet_of(c), p.weapon)
        deal = Option("d", f"deal {w.name}'s {w.damage} damage", f"deal {who}", default=True)
        crit = Option("c", "roll a Critical", f"crit {who}")
        can_crit = not impaired(sheet_of(c), p.stat)
        options = (deal, crit) if can_crit else (deal,)
    elif p.step is Step.MISS:
        options = (
            Option("m", "accept the miss", f"miss {who}", default=True),
            Option("s", "Salvage: roll again for a Partial", f"salvage {who}"),
        )
    elif p.step is Step.BACKLASH:
        options = _backlash_options(enc, c, p)
    else:
        options = (
            Option("a", "accept the failure", f"accept {who}", default=True),
            Option("s", "Salvage: roll again for a Partial", f"salvage {who}"),
        )
    # F8: a miss stands when its side's turn ends (``misses_stand``): n need not ask
    return Choice(c.id, title, options, lapses=p.step is Step.MISS)


def _known(sheet: FacilitySheet, key: str) -> Weapon | None:
    """A weapon of the catalogs the sheet carries (not damage typed as such)."""
    if key in WEAPONS or any(weapon_from(e).key == key for e in sheet.arms):
        return weapon_of(sheet, key)
    return None


def _backlash_options(enc: Encounter, c: Combatant, p: Pending) -> tuple[Option, ...]:
    """F8: the wounds the enemy's weapon deals, no save: its flat damage, or one key per total
    its dice can make (the GM rolls them at the table; the lowest is the default)."""
    enemy = enc.get(p.target) if p.target and enc.has(p.target) else None
    keys = sheet_of(enemy).weapons if enemy is not None else ()
    w = _known(sheet_of(enemy), keys[0]) if enemy is not None and keys else None
    if w is None or w.max_damage < 1:
        amounts, source = [1, 2, 3], ""
    elif not w.count:
        amounts, source = [w.flat], f" ({w.name})"
    else:
        low = max(1, w.count + w.flat)
        amounts = list(range(low, min(w.max_damage, MAX_BACKLASH_KEYS) + 1))
        source = f" ({w.name} {w.damage})"
    return tuple(
        Option(
            str(n), f"suffer {counted(n, 'wound')}{source}", backlash_line(c.id, n), default=i == 0
        )
        for i, n in enumerate(amounts)
    )


def _harm_choice(enc: Encounter, h: PendingHarm) -> Choice:
    """F5: ablate one of the pieces that cover the hazard (a key each), or suffer the wounds
    (the default: the rules say the wounds go on unless a piece is ablated)."""
    c = enc.get(h.who)
    who = quote(c.id)
    s = sheet_of(c)
    title = f"{c.name}: {counted(h.wounds, f'{h.hazard} wound')}, ablate or suffer"
    pieces = covering(s, h.hazard, h.tag)[:MAX_BACKLASH_KEYS]
    where = "the track" if simple(s) else STAT_NAMES.get(h.stat, h.stat)
    return Choice(
        c.id,
        title,
        (
            *(
                Option(
                    str(i),
                    f"ablate {p.name} ({p.marks}/{p.item.rating})",
                    f"ablate {who} {quote(p.name)}",
                )
                for i, p in enumerate(pieces, 1)
            ),
            Option("s", f"suffer {h.wounds} on {where}", f"suffer {who}", default=True),
        ),
    )
