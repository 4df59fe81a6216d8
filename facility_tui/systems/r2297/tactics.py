"""2297's default play of a turn for the forecast (``forecast.engine``), as command lines.

The acting combatant, if it can act:
- flees (``cond WHO fled``) once its play says so and its injury reached the level named;
- holds, if its play says so;
- reloads its first weapon when it lacks the rounds its first fire mode needs (spending its Move:
  ``move WHO reload``, then ``reload WHO``);
- attacks a standing enemy with the attack helper (``attack WHO TARGET``: its first weapon, the
  weapon's first fire mode), which spends its Major and respects the turn's allowance (A4);
  with a second Major (Lightning and faster) it attacks again.
Open choices (Edge offered for an injury) take their default: the injury is taken.
"""

from __future__ import annotations

from facility_tui.commands.grammar import quote
from facility_tui.model.encounter import Combatant, Encounter
from facility_tui.systems.base import Tactics
from facility_tui.systems.plays import TurnPlay
from facility_tui.systems.r2297.engine import dying, economy, incapacitated, sheet_of
from facility_tui.systems.r2297.rules import LEVELS, UNCONSCIOUS, Level, tiredness
from facility_tui.systems.r2297.sheet import Sheet2297
from facility_tui.systems.r2297.view import OUT_WORDS, status
from facility_tui.systems.r2297.weapons import ammo_needed

FLED = "fled"  # the condition a combatant that left the fight carries
# How the forecast says one is out (A4, A8, A9): the list's word, Incapacitated short
END_WORDS = {**OUT_WORDS, "incapacitated": "incap."}


# What ``fallen`` found lately, by sheet (the object: a sheet is immutable). A play asks it of
# every combatant after each line and for each target pick, when few sheets changed.
_FALLEN: dict[int, tuple[Sheet2297, str]] = {}
_FALLEN_KEPT = 4096  # (then forgotten all at once)


def fallen(c: Combatant) -> str:
    """Out of the fight, and how: "" (standing), "fled", "down" (unconscious or incapacitated),
    "dying" (dying or dead)."""
    sheet = c.sheet
    kept = _FALLEN.get(id(sheet))
    if kept is not None and kept[0] is sheet:
        return kept[1]
    return _fallen_now(c)


def _fallen_now(c: Combatant) -> str:
    """``fallen`` worked out (not in its memory), and kept."""
    s = sheet_of(c)
    # (``dying``, ``unconscious`` and ``incapacitated`` written out, the effects read only when
    # there are some: asked of each combatant a line changed)
    effects = s.effects
    if s.dead or (effects and dying(s)):
        how = "dying"
    elif effects and s.has(FLED):
        how = "fled"
    elif (
        (effects and s.has("unconscious"))
        or tiredness(s.fatigue, s.sta) is UNCONSCIOUS
        or s.damage + s.stun >= s.hlt
    ):
        how = "down"
    else:
        how = ""
    if len(_FALLEN) >= _FALLEN_KEPT:
        _FALLEN.clear()
    _FALLEN[id(s)] = (s, how)
    return how


def hurt(s: Sheet2297) -> int:
    """How hurt, for ``focus`` and ``spread``: damage taken per mille of Health."""
    return s.total * 1000 // max(1, s.hlt)


def flees(s: Sheet2297, level: str) -> bool:
    if level == "incapacitated":
        return incapacitated(s)
    return s.level.rank >= Level(level).rank


class Tactics2297(Tactics):
    """2297's default play of a combatant's turn (see the module's doc)."""

    #: What ``flee at`` takes: an injury level (A7), or being incapacitated (A8).
    flee_words = (*(level.value for level in LEVELS if level.rank), "incapacitated")
    assumptions = (
        "each attacks a standing enemy picked at random with its first weapon in its first fire "
        "mode (the attack helper: skill, Dodge, its Major and allowance, A4-A5)",
        "reloads with its Move when short of rounds; never spends Edge, no first aid, no cover",
    )

    def next_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        """The next command line of ``slot``'s turn, or ``None`` when its play has no more."""
        try:
            c = enc.get(slot)
        except KeyError:  # (gone from the list)
            return None
        s = sheet_of(c)
        if fallen(c):
            return None
        play = turn.of(c.id)
        who = quote(c.id)
        if play.flee and flees(s, play.flee_level):
            return f"cond {who} {FLED}"
        if play.hold:
            return None
        eco = economy(enc, c)
        if eco.cap == 0 or not s.weapons:
            return None
        weapon = s.weapons[0]
        need = ammo_needed(weapon.modes[0], 1) if weapon.capacity else 0
        if need and weapon.ammo < need:
            spend = f"move {who} reload"
            if spend in turn.tried:
                return f"reload {who}"
            return spend if weapon.capacity >= need and eco.move >= 1 else None
        if eco.major < 1:
            return None
        # (how hurt each is counts only for a play that picks by it: ``TurnPlay.pick``)
        by_hurt = play.target in ("focus", "spread")
        side, enemies = c.side, []
        for o in enc.combatants:
            if o.side == side:
                continue
            kept = _FALLEN.get(id(o.sheet))  # (``fallen``'s memory read here: most are in it)
            if kept is not None and kept[0] is o.sheet:
                if kept[1]:
                    continue
            elif fallen(o):
                continue
            enemies.append((o.id, hurt(sheet_of(o)) if by_hurt else 0))
        target = turn.pick(c.id, enemies)
        if target is None:
            return None
        return f"attack {who} {quote(target)}"

    def fallen(self, enc: Encounter, c: Combatant) -> str:
        kept = _FALLEN.get(id(c.sheet))  # (as ``fallen``, a call less: asked after every line)
        if kept is not None and kept[0] is c.sheet:
            return kept[1]
        return _fallen_now(c)

    def ammo(self, c: Combatant) -> int:
        total = 0
        for w in sheet_of(c).weapons:  # (a loop: the forecast asks after each line that changed c)
            total += w.ammo
        return total

    def end_word(self, enc: Encounter, c: Combatant) -> str:
        """The list's word; one out as ``fallen`` counts it is said so, in its order (dying
        or dead, fled, then down): an Incapacitated one (A8), whom the list shows by its
        injury (it may still take a Minor), is ``incap.``."""
        s = sheet_of(c)
        state = status(s)
        if state in ("dead", "dying"):
            return state
        if s.has(FLED):
            return "fled"
        return END_WORDS.get(state) or self.rules.view.state_word(enc, c)  # (standing: the list's)
