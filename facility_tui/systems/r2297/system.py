"""2297 rules (A1–A11): per-combatant turns in initiative order, bands, injuries, fatigue.

The pure tables live in ``rules``, the sheet in ``sheet``, what hits and turns do in
``engine`` and the GM's commands in ``commands``. This module is the ``RuleSystem``:
the sheet from ``add``'s options (A1), the round order (A3), the turn hooks (C2) and what the panes
show (A4 economy, injury level, damage, fatigue).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.commands.dice import Dice
from facility_tui.commands.grammar import CommandError, parse
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve
from facility_tui.model.text import Detail, Tone
from facility_tui.model.view import Bar, Boxes, Choice, Pane, Public, Row
from facility_tui.systems import RuleSystem
from facility_tui.systems.r2297 import tactics
from facility_tui.systems.r2297.checks import sheet_problem
from facility_tui.systems.r2297.choices import choices as choices_of
from facility_tui.systems.r2297.choices import downgrade_choice
from facility_tui.systems.r2297.commands.corrections import set_value
from facility_tui.systems.r2297.commands.helpers import catalog
from facility_tui.systems.r2297.demo import DEMO_2297
from facility_tui.systems.r2297.engine import (
    Ctx,
    Economy,
    active_on,
    begin_turn,
    count_idle_round,
    death_countdown,
    describe,
    disadvantaged,
    dying,
    economy,
    effective_initiative,
    end_turn,
    expire_pins_of_the_dead,
    incapacitated,
    init_locked,
    lapse_offers,
    limit_of,
    parse_awareness,
    pool,
    reaction_block,
    remove_effects,
    roll_initiative,
    sheet_of,
    shown_initiative,
    tired,
    unconscious,
)
from facility_tui.systems.r2297.info import INFO
from facility_tui.systems.r2297.rules import (
    AID_TN,
    EXHAUSTED,
    LEVELS,
    DamageType,
    Level,
    Tired,
    band,
    fatigue_thresholds,
    injury_thresholds,
    layered,
    parse_armor,
)
from facility_tui.systems.r2297.sheet import (
    COND,
    LEAST,
    Awareness,
    Effect,
    EKind,
    Injury,
    Sheet2297,
    Weapon,
)
from facility_tui.systems.r2297.weapons import parse_weapons

# A PC's sheet fields that belong to one fight only (``lasting``): A2 awareness, A3 initiative,
# A4 the turn's actions and its Extended action, A9 the rounds counted while Exhausted.
PER_FIGHT = (
    "awareness",
    "rolled",
    "tiebreak",
    "boost",
    "boost_round",
    "boost_pending",
    "refocus",
    "turn_init",
    "spent_major",
    "spent_move",
    "spent_minor",
    "extra_major",
    "extra_move",
    "extra_minor",
    "downgrade",
    "reaction_used",
    "ext_name",
    "ext_step",
    "ext_total",
    "ext_turn",
    "idle_turns",
    "acted_round",
    "exhausted_round",
    "recover_due",
)

if TYPE_CHECKING:
    from facility_tui.commands.spec import Call
    from facility_tui.systems.plays import TurnPlay


PASSES = 12  # tie roll-off passes; 11**12 * 10 stays far inside TOML's 64-bit integers


class Rules2297(RuleSystem):
    info = INFO
    system = INFO.id
    title = INFO.title
    demo = DEMO_2297
    sheet_type = Sheet2297
    own_dice_option = ("add",)  # A1: add NAME dice=2 is the initiative dice count
    per_fight = (
        "rolled", "tiebreak", "boost", "boost_round", "boost_pending", "refocus", "turns",
        "turn_init", "spent_major", "spent_move", "spent_minor", "extra_major", "extra_move",
        "extra_minor", "downgrade", "reaction_used", "ext_name", "ext_step", "ext_total",
        "ext_turn", "idle_turns", "acted_round", "exhausted_round", "recover_due",
    )  # fmt: skip
    _ROUND = (
        "at a new round: initiative Xd6+AG+CU of each combatant not rolled yet (list order)",
        "Edge boost 2d6 of each who spent Edge",
        "tie roll-off 1d10 of each combatant still tied (again while tied)",
    )
    _TURN = (
        "at the start of a turn: bleeding 1d6 of a Critical injury",
        "death countdown 1d6+1 if the bleeding brings damage to twice Health",
    )
    quiet_fields = ("next_id", "next_patch", "turns")
    rest_between = "rest {who} long"  # A9: a long rest, all fatigue (one a day)
    common_rolls = {
        "add": ("faces= for init=DICE (each combatant in turn)",),
        "start": (*_ROUND, *_TURN, "the same for each turn that passes by itself"),
        "next": (*_TURN, "the same for each turn that passes by itself", *_ROUND),
        "remove": ("when the removed combatant was acting: as next",),
        "set": (
            "set WHO injury LEVEL: what inflicting the level rolls (as hit), unless effects=no",
        ),
    }

    def new_sheet(self, call: Call) -> Any:
        """A1: ``add NAME ag= cu= hlt= sta= edge= dice= armor= weapon= aware= skill= dodge=
        parry=``; ``add Thug`` alone gives Health 20, Stamina 20, 1d6 initiative, no armor."""

        def num(key: str, default: int) -> int:
            return call.int_option(key, key, default, minimum=LEAST[key])

        lookup = catalog(call)  # weapons and armor by name too
        armor = parse_armor(
            call.option("armor", "") or "", lookup
        )  # (a RuleError is a CommandError)
        weapons = parse_weapons(call.option("weapon", "") or "", lookup)
        dice = num("dice", 1)
        if dice > 20:
            raise CommandError("dice: at most 20 initiative dice")
        return Sheet2297(
            ag=num("ag", 0),
            cu=num("cu", 0),
            hlt=num("hlt", 20),
            sta=num("sta", 20),
            edge=num("edge", 0),
            dice=dice,
            skill=num("skill", 0),
            dodge=num("dodge", 0),
            parry=num("parry", 0),
            armor=armor,
            weapons=weapons,
            awareness=parse_awareness(call.option("aware", "full") or "full"),
            rolled=call.has("init"),
        )

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """A1: armor and weapons as ``add`` takes them (a template reads like its add line)."""
        s: Sheet2297 = sheet
        out = {"awareness": ("aware", s.awareness.value)}
        if s.armor:
            out["armor"] = ("armor", ", ".join(a.text for a in s.armor))
        if s.weapons:
            out["weapons"] = ("weapon", ", ".join(_weapon_words(w) for w in s.weapons))
        return out

    def listed(self, enc: Encounter) -> list[Combatant]:
        """Active: this round's order, then those not in it; setup: by initiative, then AG, CU."""
        position = {cid: i for i, cid in enumerate(enc.order)}
        if enc.phase is not Phase.SETUP and position:
            return sorted(
                enc.combatants,
                key=lambda c: (position.get(c.id, len(position)), -c.initiative, c.name),
            )
        return sorted(
            enc.combatants,
            key=lambda c: (-c.initiative, -sheet_of(c).ag, -sheet_of(c).cu, c.name),
        )

    def begin_combat(self, call: Call) -> Encounter:
        """A2: Unaware combatants are Surprised until the start of their first turn in round 2."""
        ctx = Ctx.of(call)
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if s.awareness is Awareness.UNAWARE and not s.has("surprised"):
                effect = Effect(EKind.COND, "surprised", until_round=2)
                ctx.put(c.id, effects=(*s.effects, effect))
                ctx.log(
                    f"{c.name} is Unaware: no actions in round 1, no Reactions until its "
                    "turn in round 2",
                    Kind.EFFECT,
                )
            elif s.awareness is Awareness.PARTIAL:
                ctx.log(f"{c.name} is only Partially aware", Kind.EFFECT)
        return ctx.enc

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        """A3: effective initiative of each combatant's turn in this round; ties AG, CU, d10.

        Each pass reads a sheet once and changes only what must change: at 1,000 combatants a
        round's start is one key press, and most combatants have nothing to do in most passes.
        (The passes stay apart: their rolls and lines come in this order.)"""
        ctx = Ctx(enc, dice)
        for c in enc.combatants:
            s = sheet_of(c)
            if s.reaction_used:
                ctx.put(c.id, reaction_used=False)
            if s.refocus >= 0:
                ctx.update(c.id, initiative=s.refocus)
                ctx.put(c.id, refocus=-1, rolled=True)
                ctx.log(f"{c.name}: new initiative {s.refocus} (Refocus) from this round")
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.rolled and c.initiative == 0 and not s.dead:
                value = roll_initiative(ctx, c.id)
                ctx.update(c.id, initiative=value)
                ctx.put(c.id, rolled=True)
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.boost_pending:
                continue
            if init_locked(s):
                ctx.put(c.id, boost_pending=False)
                ctx.log(
                    f"{c.name}'s Edge boost has no effect: {init_locked(s)}, initiative cannot "
                    "rise (A9)",
                    Kind.EFFECT,
                )
            else:
                boost = ctx.roll("2d6", f"{c.name} Edge boost", c.id).total
                ctx.put(c.id, boost=boost, boost_round=enc.round, boost_pending=False)
        expire_pins_of_the_dead(ctx)
        rnd = ctx.enc.round
        alive: list[Combatant] = []
        eff: dict[str, int] = {}
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.dead:
                alive.append(c)
                eff[c.id] = effective_initiative(s, c.initiative, s.turns + 1, rnd)
        if self._break_ties(ctx, alive, eff):
            alive = [ctx.combatant(c.id) for c in alive]
        keys = {}
        for c in alive:
            s = sheet_of(c)
            keys[c.id] = (-eff[c.id], -s.ag, -s.cu, -s.tiebreak)
        alive.sort(key=lambda c: keys[c.id])
        if enc.keeps_log:  # (a forecast's play reads no log: the line is not written)
            shown = ", ".join(f"{c.name} {eff[c.id]}" for c in alive)
            ctx.log(f"Round {enc.round} order: {shown or 'no one'}", Kind.TURN)
        return evolve(ctx.enc, order=tuple(c.id for c in alive))

    @staticmethod
    def round_initiative(enc: Encounter, c: Combatant) -> int:
        s = sheet_of(c)
        return effective_initiative(s, c.initiative, s.turns + 1, enc.round)

    @staticmethod
    def _break_ties(ctx: Ctx, alive: list[Combatant], eff: dict[str, int]) -> bool:
        """A3: a d10 roll-off, kept so the order stays stable; tied roll-offs are rolled again.
        True when a roll-off was rolled (a sheet changed).

        Only those still tied roll again, and a new roll only orders them among themselves: each
        pass scales the group's kept values by 11 before adding the new d10s, so an earlier
        roll-off always outranks a later one. More than ten tied need several passes, never an
        endless re-roll; after ``PASSES`` the rest keep the order they are listed in."""
        groups: dict[tuple[int, int, int], list[Combatant]] = {}
        for c in alive:
            s = sheet_of(c)
            groups.setdefault((eff[c.id], s.ag, s.cu), []).append(c)
        rolled = False
        for group in groups.values():
            if len(group) < 2:
                continue
            values = [sheet_of(c).tiebreak for c in group]  # (no sheet of theirs changed yet)
            if 0 not in values and len(set(values)) == len(values):
                continue  # (told apart in an earlier round: the usual case)
            members = [c.id for c in group]
            for _ in range(PASSES):
                seen = Counter(values)
                redo = {m for m, v in zip(members, values, strict=True) if v == 0 or seen[v] > 1}
                if not redo:
                    break
                rolled = True
                for m, v in zip(members, values, strict=True):
                    extra = (
                        ctx.roll("1d10", f"{ctx.name(m)} tie roll-off", m).total if m in redo else 0
                    )
                    ctx.put(m, tiebreak=v * 11 + extra)
                values = [ctx.sheet(m).tiebreak for m in members]
        return rolled

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        """A9: a stim patch's pending Grit check is due (each patch at its own time)."""
        for c in enc.combatants:
            for p in sheet_of(c).pending_patches:
                if p.due_round == enc.round:
                    enc = enc.logged(
                        f"{c.name}: Grit check of stim patch {p.id} (R{p.rating}) vs TN {p.tn} "
                        f"is due now: grit {c.id} TOTAL patch={p.id}",
                        Kind.EFFECT,
                    )
        return enc

    def round_ended(self, enc: Encounter, dice: Dice) -> Encounter:
        """A11: an unused Overwatch ends at the end of the round; A9: idle rounds of the
        Exhausted are counted (every 10th offers fatigue −1 for the GM to confirm)."""
        ctx = Ctx(enc, dice)
        for c in enc.combatants:
            s = sheet_of(c)
            if s.effects:  # (most have none: a round's end at 1,000 combatants is one key)
                gone = remove_effects(
                    ctx, c.id, lambda e: not (e.kind is COND and e.label == "overwatch")
                )
                if gone:
                    ctx.log(
                        f"{c.name}'s unused Overwatch ends (end of round {enc.round})", Kind.EFFECT
                    )
            if not s.dead and tired(s) is EXHAUSTED:  # (only they count idle rounds)
                count_idle_round(ctx, c.id)
        return ctx.enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        if not enc.has(slot):
            return enc
        ctx = Ctx(enc, dice)
        begin_turn(ctx, slot)
        return ctx.enc

    def can_act(self, enc: Encounter, slot: str) -> bool:
        """A4: a combatant with no action at all (unconscious, dying, Unaware in round 1...)."""
        try:
            c = enc.get(slot)
        except KeyError:  # (no such combatant: one look-up, not two)
            return False
        return not sheet_of(c).dead and economy(enc, c).cap != 0

    def idle_reason(self, enc: Encounter, slot: str) -> str:
        """A4: the limit that leaves it no action (dead, dying, unconscious, surprised...)."""
        if not enc.has(slot):
            return ""
        c = enc.get(slot)
        return "dead" if sheet_of(c).dead else economy(enc, c).limit

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        if not enc.has(slot):
            return enc
        ctx = Ctx(enc, dice)
        end_turn(ctx, slot)
        lapse_offers(ctx)
        return ctx.enc

    def choices(self, enc: Encounter) -> tuple[Choice, ...]:
        """A7: Edge offered for an injury just taken (open until spent, declined, or the turn
        ends). A4's downgrade is asked when an action is refused: ``choices.downgrade_choice``."""
        return choices_of(enc)

    def unblock(self, enc: Encounter, line: str) -> Choice | None:
        """A4: a Major, Move or Minor refused for want of one: the downgrades that give it."""
        try:
            verb = parse(line).verb.lower()
        except CommandError:
            return None
        spec = next((s for s in self.commands if verb in (s.verb, *s.aliases)), None)
        return downgrade_choice(enc, spec.verb) if spec is not None else None

    def set_value(self, call: Call) -> Encounter:
        return set_value(call)

    def check_combatant(self, enc: Encounter, c: Combatant) -> tuple[str, str] | None:
        if not isinstance(c.sheet, Sheet2297):
            return "sheet", "must be a 2297 sheet"
        found = sheet_problem(c.sheet)
        return (f"sheet.{found[0]}", found[1]) if found else None

    def lasting(self, sheet: Any) -> Any:
        """What a PC carries to the next fight: damage, stun, fatigue, injuries and their timed
        effects (bleeding, a death countdown, disadvantage until medical care), Edge, ammo,
        rests taken today, pending Grit checks; not this fight's initiative (A3), actions (A4),
        awareness (A2) or what ends with it (effects "until end of combat", Pinned by one of
        its combatants, Surprised, Overwatch). An offer of Edge lapses with the fight (A7), and
        its injuries' rounds are of no fight to come (round 0: before it)."""
        if not isinstance(sheet, Sheet2297):
            return sheet
        effects = tuple(
            e
            for e in sheet.effects
            if not (e.combat or e.by or e.until_round or e.label == "overwatch")
        )
        # (an injury's round is of the fight that dealt it: carried, it is "before this fight")
        injuries = tuple(
            evolve(i, offered=False, round=0) if i.offered or i.round else i for i in sheet.injuries
        )
        fresh = Sheet2297()
        per_fight = {name: getattr(fresh, name) for name in PER_FIGHT}
        return evolve(sheet, effects=effects, injuries=injuries, **per_fight)

    def initiative_from_face(self, call: Call, c: Combatant, face: str) -> int:
        """A3: ``init WHO face=N``: N is what the Xd6 showed; the tracker adds AG + CU (never
        below 0)."""
        s = sheet_of(c)
        n = call.number(face, f"{c.name} initiative dice ({s.dice}d6)", minimum=s.dice)
        if n > 6 * s.dice:
            raise CommandError(
                f"face={n}: {s.dice}d6 shows {s.dice} to {6 * s.dice} (the tracker adds AG + CU)"
            )
        value = max(0, n + s.ag + s.cu)
        call.log(f"{c.name} initiative: {s.dice}d6 showed {n} {s.ag + s.cu:+d} (AG + CU) = {value}")
        return value

    def initiative_set(self, enc: Encounter, cid: str) -> Encounter:
        """C4: a typed initiative wins over a pending roll (``rollinit`` or Refocus in combat)."""
        c = enc.get(cid)
        s = sheet_of(c)
        if s.refocus >= 0:
            enc = enc.logged(
                f"{c.name}: the pending roll ({s.refocus}) is dropped: the GM's {c.initiative} "
                "counts from the next round",
                Kind.OVERRIDE,
            )
        return enc.update_sheet(cid, rolled=True, refocus=-1)

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        ctx = Ctx(enc, Dice(enc.seed, enc.rolls))
        for c in enc.combatants:
            remove_effects(ctx, c.id, lambda e: e.by != cid)
        return ctx.enc

    # In the order the list drops them when narrow: the last go first (Init, Actions and Injury
    # fit beside the detail column at 80 wide).
    # (The band is in the detail pane and ``Band``: Init and Actions tell it here.)
    columns = ("Init", "Actions", "Injury", "Damage", "Fatigue", "Effects")
    show_initiative = False  # the Init column shows it
    # Narrow, the list abbreviates whole columns, in this order (the words stay whole).
    short_forms = {
        "Init": ("In", {}),
        "Injury": (
            "Inj",
            {
                "Light": "Lt",
                "Moderate": "Mod",
                "Serious": "Ser",
                "Critical": "Crit",
                "Lethal": "Leth",
            },
        ),
        "Actions": ("Act", {"minor": "min", "next": "nx"}),
    }
    cut_columns = ("Effects",)
    column_words = {
        "Injury": tuple(level.word for level in LEVELS if level.rank),
        "Actions": ("1 minor -", "next rd R", "uncons."),
    }

    public_words = ("unhurt", *column_words["Injury"], "down", "dying", "dead")

    def public_state(self, enc: Encounter, c: Combatant) -> Public:
        """The injury level in a word (A7), or why it is out of the fight (A8, A9)."""
        s = sheet_of(c)
        state = status(s)
        if state:
            return Public(PUBLIC_OUT.get(state, state), tuple(s.conditions()), fallen=True)
        return Public(s.level.word if s.level.rank else "unhurt", tuple(s.conditions()))

    def state_word(self, enc: Encounter, c: Combatant) -> str:
        return worst_word(sheet_of(c))

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        s = sheet_of(c)
        init = shown_initiative(enc, c)
        eco = economy(enc, c)
        pt, dr = layered(s.armor)
        cells = sheet_cells(s)
        state = cells.status
        return {
            "Init": init_cell(c, init),
            "Actions": actions_cell(enc, c, eco, state),
            "Injury": cells.injury,
            "Damage": cells.damage,
            "Fatigue": cells.fatigue,
            "Band": f"{band(init).name} {init}",
            "Effects": cells.effects,
            "Ma/Mo/Mi R": eco.compact,
            "Dmg": cells.dmg,
            "initiative": init,
            "band": band(init).name,
            "actions": {"major": eco.major, "move": eco.move, "minor": eco.minor},
            "one_action_left": eco.cap,
            "limit": eco.limit,
            "reaction": eco.reaction,
            "injury": s.level.value,
            "damage": s.damage,
            "stun": s.stun,
            "hlt": s.hlt,
            "fatigue": s.fatigue,
            "sta": s.sta,
            "tired": tired(s).value,
            "edge": s.edge,
            "pt": pt,
            "dr": dr,
            "status": state,
            "conditions": s.conditions(),
            "effects": [describe(e) for e in s.effects if e.kind is not EKind.COND],
            "disadvantage": disadvantaged(s, s.turns if enc.current == c.id else s.turns + 1),
            "grit_checks": [
                {
                    "patch": p.id,
                    "rating": p.rating,
                    "tn": p.tn,
                    "due_round": p.due_round,
                    "failure": p.fatigue,
                }
                for p in s.pending_patches
            ],
            "recover_due": s.recover_due,
            "idle_rounds": s.idle_turns,
        }

    def list_row(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """``summary``'s columns alone, worked out the same way (a round's start asks for every
        row; the rest of the summary is for ``show --json`` and the report)."""
        cells = sheet_cells(sheet_of(c))
        return {
            "Init": init_cell(c, shown_initiative(enc, c)),
            "Actions": actions_cell(enc, c, economy(enc, c), cells.status),
            "Injury": cells.injury,
            "Damage": cells.damage,
            "Fatigue": cells.fatigue,
            "Effects": cells.effects,
        }

    def details(self, enc: Encounter, c: Combatant) -> list[Detail]:
        s = sheet_of(c)
        eco = economy(enc, c)
        lines = _sheet_lines(enc, c)
        now = "left" if enc.current == c.id else "next turn"
        acts = f"Major {eco.major}  Move {eco.move}  Minor {eco.minor} ({now})"
        if eco.cap > 0:
            acts += " — one action in all"
        if eco.limit:
            acts += f" {eco.limit}"
        lines.insert(2, Detail("Actions", acts, Tone.WARN if eco.limit else Tone.PLAIN))
        lines.insert(3, Detail("Reaction", "available" if eco.reaction else eco.why_no_reaction))
        lines.append(_damage_line(s))
        hits = " · ".join(f"{d}+ {level.word}" for level, d in injury_thresholds(s.hlt))
        lines.append(Detail("A hit of", f"{hits}; down at {s.hlt}, dying at {2 * s.hlt}"))
        weary = tired(s)
        at = " · ".join(f"{t.value} {f}" for t, f in fatigue_thresholds(s.sta))
        lines.append(
            Detail(
                "Fatigue",
                f"{s.fatigue}/{s.sta} ({weary.value}) — {at}",
                Tone.PLAIN if weary is Tired.FRESH else Tone.WARN,
            )
        )
        lines += _injury_lines(s)
        lines += _effect_lines(s)
        lines += _fatigue_lines(c)
        state = status(s)
        if state:
            lines.append(Detail("Status", state, Tone.BAD))
        if s.awareness is not Awareness.FULL:
            lines.append(Detail("Awareness", s.awareness.value))
        return lines

    # -- the panes (A4 actions, A7/A8 injury, A9 fatigue) and the turn's reminders -----------

    def panes(self, enc: Encounter, c: Combatant) -> list[Pane]:
        s = sheet_of(c)
        hits = " · ".join(f"{d}+ {level.word}" for level, d in injury_thresholds(s.hlt))
        sheet = [*_sheet_lines(enc, c), Detail("Marks ╵", f"a hit of {hits}"), *_injury_lines(s)]
        if s.awareness is not Awareness.FULL:
            sheet.append(Detail("Awareness", s.awareness.value))
        effects = _effect_lines(s, source=False)
        state = status(s)
        if state:
            effects.insert(0, Detail("Status", state, Tone.BAD))
        # the figures a turn needs first: a short column (80×24) shows these without scrolling
        # The timed effects (bleeding, Disadvantage, a death countdown, with rounds left) come
        # before the fatigue bar, whose state the Actions limit already says.
        out = [
            Pane(_actions_title(enc, c), tuple(_action_rows(enc, c))),
            Pane("Injury", tuple(_injury_rows(s))),
            *([Pane("Effects", tuple(effects))] if effects else []),
            Pane("Fatigue", tuple(_fatigue_rows(c))),
            Pane("Sheet", tuple(sheet)),
        ]
        return out

    def reminders(self, enc: Encounter) -> list[Detail]:
        """C2/A7/A9: what the acting combatant's turn started with, in words: the bleeding
        applied, a death countdown, Disadvantage ending this turn, a Grit check due, rest due
        (its action limits are on its Actions pane and in the list). The dying are named at every
        turn: they cannot act, so their own turns pass by themselves. Each reminder starts with
        the name of whose it is (the acting one's or another's: they sit under one title)."""
        cid = enc.current
        if cid is None or not enc.has(cid):
            return []
        c = enc.get(cid)
        s = sheet_of(c)
        out = [
            Detail("Bleeding", f"{c.name} {text} at the start of this turn", Tone.BAD)
            for text in _bled(enc, c)
        ]
        for other in enc.combatants:
            o = sheet_of(other)
            countdown = death_countdown(o) if o.effects else None  # (most have no effect)
            if countdown is not None and not o.dead:
                left = f"{countdown.rounds} round{'s' if countdown.rounds != 1 else ''}"
                out.append(
                    Detail("Dying", f"{other.name} dies in {left} unless stabilized", Tone.BAD)
                )
        for e in s.effects:
            if e.kind is EKind.DISADV and active_on(e, s.turns) and _ends_this_turn(e, s.turns):
                out.append(
                    Detail("Disadvantage", f"{c.name}'s ends at the end of this turn", Tone.WARN)
                )
        for p in s.pending_patches:
            if p.due_round <= enc.round:
                due = f"{c.name}'s is due: grit {c.id} TOTAL patch={p.id} (TN {p.tn})"
                out.append(Detail("Grit check", due, Tone.WARN))
        if s.recover_due:
            due = f"{c.name}'s fatigue −{s.recover_due} due: recover {c.id}"
            out.append(Detail("Rest", due, Tone.WARN))
        out += [Detail("Edge", choice.title, Tone.WARN) for choice in self.choices(enc)]
        return out

    # -- the forecast: the default play of a turn (``tactics``) ------------------------------

    flee_words = tactics.FLEE_WORDS
    forecast_assumptions = tactics.ASSUMPTIONS

    def forecast_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        return tactics.next_line(enc, slot, turn)

    def fallen(self, enc: Encounter, c: Combatant) -> str | None:
        return tactics.fallen(c)

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
        if s.has(tactics.FLED):
            return "fled"
        return END_WORDS.get(state) or self.state_word(enc, c)  # (standing: the list's word)


# The list's Actions cell for a combatant who is out, saying why (A4, A8, A9): a word, never a
# colour alone, as narrow as the cell's other values (the list keeps it at 80 columns).
OUT_WORDS = {"dead": "dead", "dying": "dying", "unconscious": "uncons."}
END_WORDS = {**OUT_WORDS, "incapacitated": "incap."}  # how the forecast says one is out
METER = 6  # cells of the list's Damage and Fatigue bars


def meter(value: int, top: int) -> str:
    """A small bar of ``value`` out of ``top``: ``███░░░`` (full past the top)."""
    filled = METER if top <= 0 or value >= top else (value * METER + top - 1) // top
    return "█" * max(0, filled) + "░" * (METER - max(0, filled))


def out_word(state: str) -> str:
    """The list's word for one who is out (``status``), or ``""``."""
    return OUT_WORDS.get(state, "")


def worst_word(s: Sheet2297) -> str:
    """The worst of a sheet's state in a word (the party's list, the report, the forecast):
    why it is out as the list's Actions cell says it (A8, A9), then Incapacitated (A8: damage
    at Health) and Exhausted (A9), which weigh more than any injury level (A7), then the
    level."""
    out = out_word(status(s))
    if out:
        return out
    if incapacitated(s):
        return "Incapacitated"
    if tired(s) is EXHAUSTED:
        return "Exhausted"
    return s.level.word if s.level.rank else "unhurt"


def actions_cell(enc: Encounter, c: Combatant, eco: Economy, state: str) -> str:
    """A4 as the list shows it: Major/Move/Minor left (``1/1/0``), or ``1 act`` under Serious's
    one action in all (``1 minor`` under Critical's), ``done`` once its turn is spent or past
    this round; then ``R`` if its Reaction is there, ``-`` if not. Before its turn: what the
    turn will grant as things stand. One who is out says why instead: dying, dead, uncons."""
    r = "R" if eco.reaction else "-"
    if out := out_word(state):
        return out
    acting = enc.current == c.id
    if not acting and enc.phase is Phase.ACTIVE:
        place = _place(enc.order, c.id)
        if place is None:
            return f"next rd {r}"  # joined mid-round (C1): acts from the next round
        if place < enc.turn:
            return f"done {r}"
    left = eco.major + eco.move + eco.minor
    if eco.cap == 0 or left == 0:
        return f"done {r}" if acting else f"none {r}"
    if eco.cap > 0:
        what = "minor" if eco.major == eco.move == 0 else "act"
        return f"{eco.cap} {what} {r}"
    return f"{eco.major}/{eco.move}/{eco.minor} {r}"


# The round's order as places by id, for the order last asked about: the list asks each row's
# place, and a scan of 1,000 ids per row is O(n²).
_PLACES: list[tuple[tuple[str, ...], dict[str, int]]] = []


def _place(order: tuple[str, ...], cid: str) -> int | None:
    """``cid``'s place in ``order`` (its first), None if it is not in it."""
    if len(order) <= 24:
        return order.index(cid) if cid in order else None
    kept = _PLACES[0] if _PLACES else None
    if kept is None or kept[0] is not order:
        places: dict[str, int] = {}
        for i, slot in enumerate(order):
            places.setdefault(slot, i)
        kept = (order, places)
        _PLACES[:] = [kept]  # (a forecast's thread may ask about another order meanwhile)
    return kept[1].get(cid)


@frozen
class SheetCells:
    """The list's cells that a sheet alone gives (A7, A8, A9)."""

    status: str  # ``status``
    injury: str
    dmg: str  # damage taken / Health, and stun
    damage: str  # its bar, then ``dmg``
    fatigue: str
    effects: str  # conditions, then the other effects (whole: the list cuts it to its room)


# The cells worked out lately, by sheet (the object: sheets are immutable). A round's start
# redraws every row, of which nearly every sheet is the one drawn before.
_SHEET_CELLS: dict[int, tuple[Sheet2297, SheetCells]] = {}
_SHEET_CELLS_KEPT = 8192  # (then forgotten all at once)


def sheet_cells(s: Sheet2297) -> SheetCells:
    kept = _SHEET_CELLS.get(id(s))
    if kept is not None and kept[0] is s:
        return kept[1]
    dmg = f"{s.total}/{s.hlt}" + (f" ({s.stun}s)" if s.stun else "")
    shown_effects = [
        *s.conditions(),
        *(describe(e) for e in s.effects if e.kind is not EKind.COND),
    ]
    cells = SheetCells(
        status=status(s),
        injury=s.level.word if s.level.rank else "-",
        dmg=dmg,
        damage=f"{meter(s.total, s.hlt)} {dmg}",
        fatigue=f"{meter(s.fatigue, s.sta)} {s.fatigue}/{s.sta}",
        effects=", ".join(shown_effects) or "-",
    )
    if len(_SHEET_CELLS) >= _SHEET_CELLS_KEPT:
        _SHEET_CELLS.clear()
    _SHEET_CELLS[id(s)] = (s, cells)
    return cells


# How the players hear of one who is out (``status``): "down" says no more than they can see.
PUBLIC_OUT = {"unconscious": "down", "incapacitated": "down"}


def status(s: Sheet2297) -> str:
    if s.dead:
        return "dead"
    if dying(s):
        return "dying"
    if unconscious(s):
        return "unconscious"
    if incapacitated(s):
        return "incapacitated"
    return ""


# -- what the panes show: the rules' figures, in words (A4, A7, A8, A9) --------------------------


def _sheet_lines(enc: Encounter, c: Combatant) -> list[Detail]:
    """A1/A3/A6: stats, initiative, extended action, armor and weapons."""
    s = sheet_of(c)
    init = shown_initiative(enc, c)
    pt, dr = layered(s.armor)
    lines = [
        Detail(
            "Stats",
            f"AG {s.ag}  CU {s.cu}  HLT {s.hlt}  STA {s.sta}  Edge {s.edge}  "
            f"init {s.dice}d6{s.ag + s.cu:+d}",
        ),
        Detail(
            "Initiative",
            f"base {c.initiative}, effective {init} ({band(init).name})"
            + (f", Refocus → {s.refocus} next round" if s.refocus >= 0 else "")
            + (", Edge boost next round" if s.boost_pending else ""),
        ),
    ]
    if s.ext_name:
        lines.append(Detail("Extended", f"{s.ext_name}: turn {s.ext_step} of {s.ext_total}"))
    lines.append(
        Detail(
            "Armor",
            ", ".join(a.text for a in s.armor) + f" → PT {pt} DR {dr}%" if s.armor else "none",
        )
    )
    for w in s.weapons:
        ammo = f", ammo {w.ammo}/{w.capacity}" if w.capacity else ""
        lines.append(Detail("Weapon", f"{w.name} {w.damage} {'/'.join(w.modes)}{ammo}"))
    return lines


SHORT = {Level.MODERATE: "Mod", Level.SERIOUS: "Ser", Level.CRITICAL: "Crit", Level.LETHAL: "Leth"}


def _damage_line(s: Sheet2297, short: bool = False) -> Detail:
    """A8: the totals (short: with where they bring a combatant down and dying)."""
    down = incapacitated(s)
    if short:
        text = f"{s.total}/{s.hlt}" + (f" ({s.stun} stun)" if s.stun else "")
        text += " incapacitated" if down else f", down {s.hlt}"
        text += f", dying {2 * s.hlt}"
    else:
        text = f"{s.damage} + stun {s.stun} = {s.total}/{s.hlt}" + (
            " incapacitated" if down else ""
        )
    return Detail("Damage", text, Tone.BAD if down else Tone.PLAIN)


def when_dealt(i: Injury) -> str:
    """The round an injury was dealt in; round 0: before this fight (in setup, or carried from
    an earlier one by the party, whose rounds mean nothing here)."""
    return f"round {i.round}" if i.round else "before this fight"


def _injury_lines(s: Sheet2297) -> list[Detail]:
    """A7/A10: each injury, with what first aid would need."""
    lines = []
    for i in s.injuries:
        marks = [
            m for m, on in (("Edge", i.soaked), ("first aid", i.aided), ("GM", i.manual)) if on
        ]
        extra = f" ({', '.join(marks)})" if marks else ""
        was = f", was {i.inflicted.word}" if i.inflicted is not i.level else ""
        tn = f", first aid TN {AID_TN[i.level]}" if i.level.rank and not i.aided else ""
        lines.append(
            Detail(
                f"Injury {i.id}",
                f"{i.level.word} ({when_dealt(i)}, {i.damage} damage{was}){extra}{tn}",
            )
        )
    return lines


def _effect_lines(s: Sheet2297, *, source: bool = True) -> list[Detail]:
    """C2/A11: conditions and timed effects, numbered as ``set WHO rounds N effect=n`` takes
    (with what caused each, unless ``source`` is off: the injury pane says it)."""
    lines = []
    conds = s.conditions()
    if conds:
        lines.append(Detail("Conditions", ", ".join(conds)))
    for n, e in enumerate(s.effects, 1):
        if e.kind is not EKind.COND:
            tone = Tone.BAD if e.kind in (EKind.BLEED, EKind.DEATH) else Tone.WARN
            why = f" — {e.label}" if source else ""
            lines.append(Detail(f"Effect {n}", f"{describe(e)}{why}", tone))
        elif e.rounds:
            lines.append(Detail(f"Effect {n}", describe(e)))
    return lines


def _fatigue_lines(c: Combatant) -> list[Detail]:
    """A9: pending Grit checks of stim patches, and rest the GM is offered."""
    s = sheet_of(c)
    lines = [
        Detail(
            f"Stim {p.id}",
            f"R{p.rating}: Grit TN {p.tn} due round {p.due_round}; failure {p.fatigue} "
            "fatigue, success half",
        )
        for p in s.pending_patches
    ]
    if s.recover_due:
        lines.append(Detail("Rest", f"fatigue −{s.recover_due} due: recover {c.id}", Tone.WARN))
    return lines


def _limit_text(enc: Encounter, s: Sheet2297) -> str:
    """A4: the limit in force, as the GM reads it ("1 action in all (Serious injury)")."""
    kind, reason = limit_of(enc, s)
    if kind == "nothing":
        return f"no actions ({reason})"
    if kind == "minor":
        return f"one Minor only ({reason})"
    if kind == "one":
        return f"1 action in all ({reason.removesuffix(' injury')})"
    return reason[0].upper() + reason[1:] if reason else ""


TURN_LOOKBACK = 200  # log lines searched back for this turn's start (a long turn shows less)


def _bled(enc: Encounter, c: Combatant) -> list[str]:
    """C2: the bleeding ticked at the start of the current turn, as the log recorded it
    ("bleeds 3 (Critical injury)"), found among this turn's lines."""
    said = f"{c.name} bleeds "
    found = []
    log = enc.log
    for i in range(len(log) - 1, max(-1, len(log) - 1 - TURN_LOOKBACK), -1):
        entry = log[i]
        if entry.kind is Kind.TURN:
            break
        if entry.kind is Kind.EFFECT and entry.text.startswith(said):
            found.append(entry.text[len(c.name) + 1 :])
    return found[::-1]


def _ends_this_turn(e: Effect, turn: int) -> bool:
    """C2: a timed effect that expires at the end of turn ``turn``."""
    if e.last:
        return e.last <= turn
    return e.rounds == 1 and (e.first == 0 or e.first <= turn) and e.counts_from <= turn


def _left_text(eco: Economy, granted_minor: int, downgraded: bool) -> str:
    """A4: what is left of the turn, in words."""
    if eco.cap == 0:
        return "nothing"
    kinds = [k for k, n in (("Major", eco.major), ("Move", eco.move), ("Minor", eco.minor)) if n]
    if eco.cap > 0:
        also = ", or a Minor by downgrade" if not granted_minor and not downgraded and kinds else ""
        return f"1 action: {' or '.join(kinds) or 'none'}{also}"
    return f"Major {eco.major} · Move {eco.move} · Minor {eco.minor}"


def unrolled(c: Combatant) -> bool:
    """A3: its initiative is rolled when its first round starts (none was given)."""
    return c.initiative == 0 and not sheet_of(c).rolled


def init_cell(c: Combatant, init: int) -> str:
    """The list's Init: the initiative, or ``?`` until it is rolled (it read 0 in setup)."""
    return "?" if unrolled(c) else str(init)


def _actions_title(enc: Encounter, c: Combatant) -> str:
    """A4: the band of the turn it is in, or of its next turn."""
    s = sheet_of(c)
    if unrolled(c):
        return "Actions · initiative rolled when its round starts"
    init = s.turn_init if enc.current == c.id else shown_initiative(enc, c)
    return f"Actions · {band(init).name} {init}"


def _action_rows(enc: Encounter, c: Combatant) -> list[Row]:
    """A4: this turn's Major / Move / Minor as boxes (left ■, spent □, not granted ·), the
    Reaction, what the band grants and the limit takes away, and what is left. Out of its turn,
    what its next turn will grant, said as such; once the combat has ended, that it has."""
    if enc.phase is Phase.ENDED:
        return [Detail("Turn", "none: the combat has ended ('resume' reopens it)")]
    s = sheet_of(c)
    eco = economy(enc, c)
    rows: list[Row] = []
    if (
        s.reaction_used
        and not eco.reaction
        and not reaction_block(enc, evolve(s, reaction_used=False))
    ):
        react = Boxes("React", empty=1)  # spent this round
    else:
        react = Boxes("React", full=1) if eco.reaction else Boxes("React", absent=1)
    if enc.current == c.id:
        b, major, move, minor, _, _, _ = pool(enc, s)
        kinds = (
            ("Major", b.major, major, s.spent_major, eco.major),
            ("Move", b.move, move, s.spent_move, eco.move),
            ("Minor", b.minor, minor, s.spent_minor, eco.minor),
        )
        for label, banded, granted, spent, left in kinds:
            used = min(spent, granted)
            total = max(banded, granted, left + used, 1)  # (none at all still shows a ·)
            rows.append(Boxes(label, full=left, empty=used, absent=total - left - used))
        rows.append(react)
        if s.downgrade:
            rows.append(Detail("Downgrade", s.downgrade.replace(">", " → ")))
        if eco.limit:
            rows.append(Detail("Limit", _limit_text(enc, s), Tone.WARN))
        rows.append(
            Detail(
                "Left",
                _left_text(eco, minor, bool(s.downgrade)),
                Tone.WARN if eco.cap == 0 else Tone.PLAIN,
            )
        )
    else:  # its next turn's allowance, as things stand, said to be that
        if enc.phase is not Phase.ACTIVE:
            when = "its first turn will grant"
        elif c.id in enc.order[: enc.turn]:
            when = "over; its next turn grants"
        else:
            when = "later this round; it grants"
        rows += [react, Detail("Turn", when)]
        b = eco.band
        for label, banded, granted in zip(
            ("Major", "Move", "Minor"),
            (b.major, b.move, b.minor),
            (eco.major, eco.move, eco.minor),
            strict=True,
        ):
            rows.append(Boxes(label, full=granted, absent=max(banded, granted, 1) - granted))
        if eco.limit:
            rows.append(Detail("Limit", _limit_text(enc, s), Tone.WARN))
    if s.reaction_used and not eco.reaction:  # (a limit's line already says "no Reactions")
        rows.append(Detail("Reaction", "used this round"))
    return rows


def _injury_rows(s: Sheet2297) -> list[Row]:
    """A7/A8: the Health bar with the one-hit thresholds marked, the totals, the level, and the
    timed effects with the rounds they have left."""
    marks = injury_thresholds(s.hlt)
    level = s.level
    tone = (
        Tone.BAD
        if level.rank >= Level.CRITICAL.rank or incapacitated(s)
        else (Tone.WARN if level.rank else Tone.PLAIN)
    )
    worst = max(s.injuries, key=lambda i: i.level.rank, default=None)
    shown = tuple((d, SHORT[lv]) for lv, d in marks)
    rows: list[Row] = [
        Bar(
            "Health",
            s.damage,
            s.hlt,
            shown,
            f"{s.total}/{s.hlt}",
            tone,
            extra=s.stun,
        ),
        Detail(
            "Level",
            f"{level.word} ({when_dealt(worst)})" if worst and level.rank else "no injury",
            tone,
        ),
        _damage_line(s, short=True),
    ]
    return rows


def _fatigue_rows(c: Combatant) -> list[Row]:
    """A9: the fatigue bar with the thresholds marked, the state in a word, pending checks."""
    s = sheet_of(c)
    weary = tired(s)
    tone = {Tired.FRESH: Tone.PLAIN, Tired.FATIGUED: Tone.WARN}.get(weary, Tone.BAD)
    state = weary.value.capitalize()
    if weary is Tired.FATIGUED:
        state += f" (loses a {s.fatigued_loses.capitalize()})"
    return [
        Bar(
            "Fatigue",
            s.fatigue,
            2 * s.sta,
            tuple((f, t.value[:3].capitalize()) for t, f in fatigue_thresholds(s.sta)),
            f"{s.fatigue}/{s.sta}",
            tone,
        ),
        Detail("State", state, tone),
        *_fatigue_lines(c),
    ]


def _weapon_words(w: Weapon) -> str:
    """A weapon as ``add ... weapon=`` writes it: ``SMG 3d6+1 SA/BF 30``."""
    words = [w.name, w.damage, "/".join(w.modes)]
    if w.capacity:
        words.append(str(w.capacity))
    if w.kind is not DamageType.PHYSICAL:
        words.append(w.kind.value)
    return " ".join(words)
