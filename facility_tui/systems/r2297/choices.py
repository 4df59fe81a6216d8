"""2297's open choices, each with its options as command lines: Edge offered for an injury just
taken (A7), and the downgrade that makes an action the turn has run out of possible (A4)."""

from __future__ import annotations

from facility_tui.commands.grammar import CommandError, parse, quote
from facility_tui.model.encounter import Encounter, Phase
from facility_tui.model.view import Choice, Option
from facility_tui.systems.base import Choices
from facility_tui.systems.r2297.engine import economy, limit_of, offers_open, sheet_of
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import Sheet2297

KINDS = ("major", "move", "minor")
# A4: what each action may be downgraded from, the cheaper first (a Move before a Major)
SOURCES = {"minor": ("move", "major"), "move": ("major",)}


# The last encounter asked and its choices: a key press asks for the same encounter's several
# times (the list of choices before and after, the reminders, ``n``'s question), and each asking
# reads every sheet (the model is immutable: the same object has the same choices).
_last: tuple[Encounter | None, tuple[Choice, ...]] = (None, ())


class Choices2297(Choices):
    """A7's Edge offers; A4's downgrade when an action is refused (``downgrade_choice``)."""

    def open(self, enc: Encounter) -> tuple[Choice, ...]:
        """A7: each injury whose Edge offer is open: spend 1 Edge to lower it one step, or take
        it as it is (the default: Edge is only spent when the player says so)."""
        global _last
        asked, found = _last
        if asked is not enc:
            found = _open_offers(enc)
            _last = (enc, found)
        return found

    def unblock(self, enc: Encounter, line: str) -> Choice | None:
        """A4: a Major, Move or Minor refused for want of one: the downgrades that give it."""
        try:
            verb = parse(line).verb.lower()
        except CommandError:
            return None
        spec = next((s for s in self.rules.commands if verb in (s.verb, *s.aliases)), None)
        return downgrade_choice(enc, spec.verb) if spec is not None else None


def _open_offers(enc: Encounter) -> tuple[Choice, ...]:
    cs = enc.combatants
    if not offers_open(cs):  # (none open: after most lines)
        return ()
    out = []
    for c in cs:  # (after every line a play runs: asks no helper per step)
        s = c.sheet
        if not isinstance(s, Sheet2297) or s.edge < 1 or not s.injuries:
            continue
        for i in s.injuries:
            if not i.offered or i.soaked or i.aided or not i.level.rank:
                continue
            who = quote(c.id)
            lower = i.level.lowered()
            to = lower.word if lower is not Level.NONE else "no injury"
            out.append(
                Choice(
                    c.id,
                    f"{c.name} may lower the {i.level.word} injury with 1 Edge (has {s.edge})",
                    (
                        Option("e", f"spend 1 Edge: {i.level.word} → {to}", f"soak {who} {i.id}"),
                        Option(
                            "t",
                            f"take the {i.level.word} injury",
                            f"soak {who} {i.id} no",
                            default=True,
                        ),
                    ),
                    lapses=True,  # A7: offered when it happens; the turn's end declines it
                )
            )
    return tuple(out)


def downgrade_choice(enc: Encounter, action: str) -> Choice | None:
    """A4: when the acting combatant is refused ``action`` (``major``, ``move`` or ``minor``)
    because none is left, the turn's one downgrade that would give it one (Major → Move or
    Minor, Move → Minor), an option per action it could come from (the cheaper first, the
    default); ``None`` when no downgrade can help (one already made, a limit forbids it, or
    the action is there after all)."""
    action = action.lower()
    cid = enc.current
    if enc.phase is not Phase.ACTIVE or cid is None or not enc.has(cid) or action not in KINDS:
        return None
    c = enc.get(cid)
    s = sheet_of(c)
    eco = economy(enc, c)
    one = limit_of(enc, s)[0] == "one"
    if s.downgrade or getattr(eco, action) > 0:
        return None
    if (eco.cap == 0 and one) or (eco.cap >= 0 and not one):
        return None  # the same limits the 'down' command refuses under
    froms = [k for k in SOURCES.get(action, ()) if getattr(eco, k) > 0]
    if not froms:
        return None
    want = action.capitalize()
    return Choice(
        c.id,
        f"{c.name} has no {want} action left: downgrade one (A4, once per turn)?",
        tuple(
            Option(
                str(n),
                f"downgrade {frm.capitalize()} to {want}",
                f"down {frm} {action}",
                default=n == 1,
            )
            for n, frm in enumerate(froms, 1)
        ),
    )
