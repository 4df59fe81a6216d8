"""2297 fatigue (A9): fatigue by hand, rests, stim patches and their Grit checks, recovery while
Exhausted.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Encounter, Kind
from facility_tui.systems.r2297.commands.helpers import rule, sheet, who
from facility_tui.systems.r2297.engine import Ctx, add_fatigue
from facility_tui.systems.r2297.sheet import Patch, Stims


@rule("fatigue", "fatigue WHO AMOUNT", "A9: add fatigue (negative recovers)", aliases=("fat",))
def fatigue(call: Call) -> Encounter:
    c = who(call)
    amount = call.number(call.arg(1, "how much fatigue (e.g. 3 or -2)"), f"{c.name} fatigue")
    call.expect_args(2)
    ctx = Ctx.of(call)
    add_fatigue(ctx, c.id, amount, "GM")
    return ctx.enc


@rule(
    "rest",
    "rest WHO|all short|brief|long",
    "A9: short rest 50% STA (brief 25%, both max 2 a day), long rest all (1 a day)",
)
def rest(call: Call) -> Encounter:
    ref = call.arg(0, "who rests (or all)")
    kind = call.arg(1, "short, brief or long").lower()
    call.expect_args(2)
    if kind not in ("short", "brief", "long"):
        raise CommandError(f"unknown rest '{kind}': use short (1 h), brief (10 min) or long")
    targets = list(call.enc.combatants) if ref.lower() == "all" else [call.combatant(ref)]
    ctx = Ctx.of(call)
    for c in targets:
        s = ctx.sheet(c.id)
        if kind == "long":
            if s.long_rests >= 1:
                raise CommandError(f"{c.name} already had a long rest today; 'newday' resets")
            ctx.put(c.id, long_rests=s.long_rests + 1)
            amount = s.fatigue
        else:
            if s.short_rests >= 2:
                raise CommandError(f"{c.name} already had 2 short rests today; 'newday' resets")
            ctx.put(c.id, short_rests=s.short_rests + 1)
            amount = s.sta // 2 if kind == "short" else s.sta // 4
        if min(amount, s.fatigue) > 0:
            add_fatigue(ctx, c.id, -min(amount, s.fatigue), f"{kind} rest")
        else:
            ctx.log(f"{c.name} rests ({kind}): no fatigue to recover")
    return ctx.enc


@rule("newday", "newday", "A9: a new day: short and long rests are available again")
def newday(call: Call) -> Encounter:
    call.expect_args(0)
    for c in call.enc.combatants:
        call.enc = call.enc.update_sheet(c.id, short_rests=0, long_rests=0)
    call.log("A new day: rests are available again")
    return call.enc


@rule(
    "stim",
    "stim WHO RATING",
    "A9: a stim patch restores 1d6+R stamina; its own Grit check is kept as a reminder",
)
def stim(call: Call) -> Encounter:
    c = who(call)
    rating = call.number(call.arg(1, "the patch rating"), f"{c.name} stim rating", minimum=0)
    call.expect_args(2)
    ctx = Ctx.of(call)
    restored = ctx.roll(f"1d6+{rating}", f"{c.name} stim patch", c.id).total
    s = ctx.sheet(c.id)
    if min(restored, s.fatigue) > 0:
        add_fatigue(ctx, c.id, -min(restored, s.fatigue), f"stim patch R{rating}")
    # A9 (Decision): each pending check gets +5 TN for this patch, applied while it is pending
    s = ctx.sheet(c.id)
    for p in s.pending_patches:
        ctx.log(
            f"{c.name}: stim patch {p.id}'s Grit TN rises to {p.tn + 5} (another patch while "
            "it is pending)",
            Kind.EFFECT,
        )
    minutes = ctx.roll("1d6", f"{c.name} stim wears off (×10 minutes)", c.id).total * 10
    fail = f"2d6+{2 * rating}" if rating else "2d6"
    patch = Patch(s.next_patch, rating, ctx.enc.round + minutes * 10, fail)
    legacy = s.stims
    if legacy.count:
        legacy = evolve(legacy, count=legacy.count + 1)
    ctx.put(
        c.id,
        stims=legacy,
        patches=(*(evolve(p, others=p.others + 1) for p in s.patches), patch),
        next_patch=s.next_patch + 1,
    )
    ctx.log(
        f"{c.name}: stim patch {patch.id} (R{rating}): Grit check vs TN {patch.tn} due in round "
        f"{patch.due_round}; failure {fail} fatigue, success half: grit {c.id} TOTAL "
        f"patch={patch.id}",
        Kind.EFFECT,
    )
    return ctx.enc


@rule(
    "grit",
    "grit WHO TOTAL [patch=N]",
    "A9: resolve a stim patch's pending Grit check (a number or dice); default the one due first",
)
def grit(call: Call) -> Encounter:
    c = who(call)
    s = sheet(c)
    pending = s.pending_patches
    if not pending:
        raise CommandError(f"{c.name} has no stim Grit check pending")
    ref = call.option("patch")
    if ref is not None:
        if not ref.strip().isdigit():
            raise CommandError(f"patch: give its number (see the detail pane), got '{ref}'")
        found = next((p for p in pending if p.id == int(ref)), None)
        if found is None:
            have = ", ".join(str(p.id) for p in pending)
            raise CommandError(f"{c.name} has no pending stim patch {ref} (pending: {have})")
        patch = found
    else:
        patch = min(pending, key=lambda p: (p.due_round, p.id))
    total = call.number(call.arg(1, "the Grit check total"), f"{c.name} Grit")
    call.expect_args(2)
    ctx = Ctx.of(call)
    amount = ctx.roll(patch.fatigue, f"{c.name} stim crash (patch {patch.id})", c.id).total
    what = f"the Grit check of stim patch {patch.id} ({total} vs TN {patch.tn})"
    if total >= patch.tn:
        ctx.log(f"{c.name} passes {what}: half the crash", Kind.EFFECT)
        amount //= 2
    else:
        ctx.log(f"{c.name} fails {what}", Kind.EFFECT)
    if patch.id == 0:
        ctx.put(c.id, stims=Stims())
    else:
        ctx.put(c.id, patches=tuple(p for p in s.patches if p.id != patch.id))
    add_fatigue(ctx, c.id, amount, "stim crash")
    return ctx.enc


@rule(
    "recover",
    "recover WHO",
    "A9: confirm the fatigue −1 an Exhausted combatant earned by 10 full rounds without action",
)
def recover(call: Call) -> Encounter:
    c = who(call)
    call.expect_args(1)
    s = sheet(c)
    if not s.recover_due:
        raise CommandError(
            f"{c.name} has no fatigue recovery due (−1 per 10 full rounds without an action "
            "while Exhausted)"
        )
    ctx = Ctx.of(call)
    ctx.put(c.id, recover_due=0)
    amount = min(s.recover_due, s.fatigue)
    if amount:
        add_fatigue(ctx, c.id, -amount, "rest while Exhausted, confirmed by the GM")
    else:
        ctx.log(f"{c.name} has no fatigue left to recover")
    return ctx.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "fatigue": ("AMOUNT, when dice are typed for it",),
    "stim": ("stim patch 1d6+R (stamina restored)", "wears off in 1d6 × 10 minutes"),
    "grit": ("TOTAL, when dice are typed for it", "stim crash 2d6+2R (halved on a success)"),
}
