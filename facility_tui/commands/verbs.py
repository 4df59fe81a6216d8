"""Commands common to both rule systems: building the encounter, moving through rounds (C1, C4)."""

from __future__ import annotations

from facility_tui.campaign import templates
from facility_tui.commands import rounds
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, command, side_of, unique_id
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, TableDice, evolve
from facility_tui.model.text import MAX_TITLE
from facility_tui.systems import ids, rules_for


def system_of(text: str) -> str:
    """A rule system's id, as typed (any case)."""
    known = ids()
    if text.lower() not in known:
        raise CommandError(f"unknown rule system '{text}': use {' or '.join(known)}")
    return text.lower()


@command(
    "new",
    f"new {'|'.join(ids())} NAME [seed=N]",
    "Replace this encounter with a new, empty one (undo brings the old one back)",
    group="session",
)
def new(call: Call) -> Encounter:
    system = system_of(call.arg(0, f"a rule system ({' or '.join(ids())})"))
    name = call.text(1, "a name for the encounter", MAX_TITLE)
    seed_text = call.option("seed")
    if seed_text is None:
        seed = call.dice.new_seed()  # drawn from the old encounter's dice: replays alike
    elif seed_text.isascii() and seed_text.isdigit() and len(seed_text) <= 10:
        seed = int(seed_text)
    else:
        raise CommandError(f"seed must be a whole number of up to 10 digits, got '{seed_text}'")
    rules = rules_for(system)
    # (a save from before handles keeps numbering by place, and one from before the rules' own
    # combatants were numbered keeps them unnumbered: its history's ``new`` replays alike)
    handles = 0 if call.enc.numbered else -1
    enc = Encounter(
        name=name,
        system=system,
        seed=seed,
        state=rules.new_state(),
        handles=handles,
        made_numbered=call.enc.made_numbered,
    )
    return enc.logged(f"New {system} encounter '{name}' (seed {seed})")


@command(
    "add",
    "add NAME [side=pc|enemy] [init=DICE] [count=N] [from=TEMPLATE] [rule options]",
    "Add a combatant (count=3 adds three, numbered; from=guard: as the template guard says, "
    "the line's options over its own; without NAME, the template's name)",
    aliases=("a",),
)
def add(call: Call) -> Encounter:
    from_text = call.option("from")
    template = templates.template_for(call, from_text) if from_text is not None else None
    typed = set(call.options)  # (what the line says wins over the template)
    if template is not None:
        call.options = {**dict(template.options), **call.options}
        if template.side is not None:
            call.options.setdefault("side", template.side)
        if template.init is not None:
            call.options.setdefault("init", template.init)
    if call.args or template is None:
        name = call.name(0)
    elif template.name:
        name = template.name
    else:
        raise call.usage_error(f"'{call.verb}' needs a name: {template.file} has none")
    side = side_of(call.option("side", "enemy") or "enemy")
    count = call.int_option("count", "count", 1, minimum=1)
    if count > 50:
        raise CommandError("count: at most 50 at once")
    init_text = call.option("init")
    rules = call.rules
    if init_text is not None and "init" in typed:
        no_initiative(call)
    names = [name] if count == 1 else [f"{name} {i}" for i in range(1, count + 1)]
    for each in names:
        sheet = rules.new_sheet(call)  # each its own: rolled stats are rolled for each
        if template is not None:
            sheet = templates.sheet_over(call, template, sheet, typed)
        init = (
            0 if init_text is None else call.initiative(init_text, f"{each} initiative", side, each)
        )
        c = Combatant(
            id=unique_id(call.enc, each),
            name=each,
            side=side,
            initiative=init,
            # (kept to roll again from a template or the party: where sides take turns, none)
            init="" if rules.info.side_initiative else init_text or "",
            sheet=sheet,
            **(dict(template.fields) if template is not None else {}),
        )
        call.enc = call.enc.joined(c)
        when = " (joins the order next round)" if call.enc.phase is Phase.ACTIVE else ""
        made = f", from {template.file}" if template is not None else ""
        call.log(f"Added {each} ({side}{made}){when}")
    return call.enc


def no_initiative(call: Call) -> None:
    """F7: where whole sides take turns, a combatant has no initiative of its own."""
    info = call.rules.info
    if info.side_initiative and not call.reads.replaying:  # (older lines replay as they ran)
        raise CommandError(
            f"{info.title} has side initiative (F7): the sides take turns ('start' rolls for "
            "them), so no one has an initiative of their own"
        )


@command(
    "template",
    "template save WHO NAME [force]",
    "Keep a combatant (sheet, gear, side, notes) as templates/NAME.toml in the campaign folder, "
    "to add again with add from=NAME; force writes over one of that name. Writes a file, "
    "changes nothing in the fight (not in its history)",
    group="campaign",
    in_history=False,
)
def template(call: Call) -> Encounter:
    word = call.arg(0, "save").lower()
    if word != "save":
        raise call.usage_error(f"'template' takes save, not '{call.args[0]}'")
    c = call.combatant(call.arg(1, "who to keep"))
    name = call.arg(2, "the template's name")
    force = len(call.args) > 3 and call.args[3].lower() == "force"
    call.expect_args(4 if force else 3)
    message = templates.save_template(
        call.reads.campaign, call.rules, call.enc, c, name, force=force
    )
    call.log(message)
    return call.enc


@command("remove", "remove WHO", "Take a combatant out of the encounter", aliases=("rm", "x"))
def remove(call: Call) -> Encounter:
    c = call.combatant(call.rest(0, "who to remove"))
    enc = call.enc
    current = enc.current
    order = tuple(s for s in enc.order if s != c.id)
    turn = enc.turn
    if c.id in enc.order and enc.order.index(c.id) < enc.turn:
        turn -= 1
    enc = evolve(
        enc,
        combatants=tuple(x for x in enc.combatants if x.id != c.id),
        order=order,
        turn=min(turn, max(len(order) - 1, 0)),
    )
    enc = call.rules.turns.removed(enc, c.id)
    enc = enc.logged(f"Removed {c.name}")
    if current == c.id and enc.phase is Phase.ACTIVE:
        if not order:
            return evolve(enc, phase=Phase.ENDED).logged("Combat over: no one left in the order")
        enc = rounds.start_turn(enc, call.dice, call.rules) if turn < len(order) else enc
    return enc


@command(
    "init",
    "init WHO DICE|face=N",
    "Set a combatant's initiative by hand (a number or dice); face=N: the initiative dice as "
    "rolled at the table, the tracker adds the rest (2297: AG + CU)",
    rolls=("DICE, when dice are typed for the initiative",),
)
def set_initiative(call: Call) -> Encounter:
    no_initiative(call)
    c = call.combatant(call.arg(0, "who"))
    face = call.option("face")
    if face is not None:
        if len(call.args) > 1:
            raise call.usage_error("give the initiative or face=, not both")
        value = call.rules.turns.initiative_from_face(call, c, face)
    else:
        value = call.initiative(
            call.arg(1, "a number or dice"), f"{c.name} initiative", c.side, c.name
        )
    call.expect_args(2)
    call.enc = call.enc.update(c.id, initiative=value)
    call.enc = call.rules.turns.initiative_set(call.enc, c.id)
    note = " (order changes from next round)" if call.enc.phase is Phase.ACTIVE else ""
    call.log(f"{c.name} initiative set to {value} by the GM{note}", Kind.OVERRIDE)
    return call.enc


@command("side", "side WHO pc|enemy", "Move a combatant to the other side")
def set_side(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    side = side_of(call.arg(1, "a side (pc or enemy)"))
    call.expect_args(2)
    call.enc = call.enc.update(c.id, side=side)
    call.log(f"{c.name} now on the {side} side", Kind.OVERRIDE)
    return call.enc


@command("rename", "rename WHO NEW NAME", "Change a combatant's shown name")
def rename(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    name = call.name(1, "the new name")
    call.enc = call.enc.update(c.id, name=name)
    call.log(f"{c.name} is now called {name}")
    return call.enc


@command("note", "note WHO TEXT", "Set a combatant's free-form note (empty text clears it)")
def note(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    text = call.text(1, "a note", empty=True)
    call.enc = call.enc.update(c.id, notes=text)
    call.log(f"Note on {c.name}: {text}" if text else f"Note on {c.name} cleared")
    return call.enc


def _hiding(call: Call, hide: bool) -> Encounter:
    """``hide``/``unhide``: what players never see (``facility-tui watch``, ``export --public``)
    is marked here; the GM's own views show it, marked hidden."""
    c = call.combatant(call.arg(0, "who"))
    what = call.arg(1, "").lower() if len(call.args) > 1 else ""
    call.expect_args(2)
    if what not in ("", "note"):
        raise call.usage_error(f"'{call.verb}' takes WHO or WHO note, not '{call.args[1]}'")
    field = "notes_hidden" if what else "hidden"
    thing = f"{c.name}'s note" if what else c.name
    if getattr(c, field) is hide:
        state = "hidden from" if hide else "shown to"
        raise CommandError(f"{thing} is already {state} the players")
    call.enc = call.enc.update(c.id, **{field: hide})
    call.log(f"{thing} {'hidden from' if hide else 'shown to'} the players", Kind.OVERRIDE)
    return call.enc


@command(
    "hide",
    "hide WHO [note]",
    "Hide a combatant (or only its note) from the players: the player view (watch) and "
    "public reports leave it out; the GM still sees it, marked hidden",
)
def hide(call: Call) -> Encounter:
    return _hiding(call, True)


@command("unhide", "unhide WHO [note]", "Show a hidden combatant (or its note) to the players")
def unhide(call: Call) -> Encounter:
    return _hiding(call, False)


@command("log", "log TEXT", "Write a line of your own into the log")
def log_line(call: Call) -> Encounter:
    call.log(call.text(0, "some text"))
    return call.enc


@command(
    "roll",
    "roll DICE [for=WHAT]",
    "Roll dice into the log (e.g. roll 2d10+4)",
    aliases=("r",),
    rolls=("DICE",),
)
def roll(call: Call) -> Encounter:
    what = call.option("for", "Roll") or "Roll"
    call.roll("".join(call.args) or "", what)
    return call.enc


@command(
    "start",
    "start [rule options]",
    "Start combat: settle initiative and begin round 1",
    group="rounds",
)
def start(call: Call) -> Encounter:
    call.need_phase(Phase.SETUP)
    if not call.enc.combatants:
        raise CommandError("add combatants before starting: add NAME side=pc init=2d6")
    rules = call.rules
    call.enc = rules.turns.begin_combat(call)
    call.log("Combat begins", Kind.TURN)
    return rounds.begin_round(call.enc, call.dice, call.rules)


def preview_next(call: Call) -> list[str]:
    """Whose turn ``next`` starts, and whose it passes on the way (they cannot act)."""
    enc = call.enc
    if enc.phase is Phase.SETUP:
        return ["starts combat: settles initiative, begins round 1"]
    if enc.phase is not Phase.ACTIVE or enc.current is None:
        return []
    ending = call.rules.turns.slot_name(enc, enc.current)
    return [f"ends {ending}'s turn; next: {rounds.ahead_text(enc, call.rules)}"]


# (a member read from its enum class costs a call in Python 3.11: ``model.encounter``)
_ACTIVE, _SETUP = Phase.ACTIVE, Phase.SETUP


@command(
    "next",
    "next",
    "End this turn and start the next one; in setup, start combat",
    aliases=("n",),
    group="rounds",
    preview=preview_next,
)
def next_turn(call: Call) -> Encounter:
    call.need_phase(_ACTIVE, _SETUP)
    call.expect_args(0)
    if call.enc.phase is _SETUP:  # as the n key does: one behaviour for key and command
        return start(call)
    return rounds.next_turn(call.enc, call.dice, call.rules)


@command(
    "prev",
    "prev",
    "Move the turn marker back (effects stay; undo reverses them)",
    aliases=("p", "back"),
    group="rounds",
)
def prev_turn(call: Call) -> Encounter:
    call.need_phase(Phase.ACTIVE)
    call.expect_args(0)
    if call.enc.round <= 1 and call.enc.turn == 0:
        raise CommandError("already at the first turn of round 1")
    return rounds.prev_turn(call.enc, call.rules)


@command("end", "end", "End the combat", group="rounds")
def end(call: Call) -> Encounter:
    call.need_phase(Phase.ACTIVE, Phase.SETUP)
    call.expect_args(0)
    return evolve(call.enc, phase=Phase.ENDED).logged(
        f"Combat ended after round {call.enc.round}", Kind.TURN
    )


@command("resume", "resume", "Reopen an ended combat where it stopped", group="rounds")
def resume(call: Call) -> Encounter:
    call.need_phase(Phase.ENDED)
    if call.enc.round == 0:
        return evolve(call.enc, phase=Phase.SETUP).logged("Back to setup", Kind.TURN)
    return evolve(call.enc, phase=Phase.ACTIVE).logged("Combat resumed", Kind.TURN)


TABLE_DICE_WORDS = {
    TableDice.APP: "the tracker rolls every roll",
    TableDice.PCS: "the GM types the PCs' rolls (a prompt asks for each), the tracker the rest",
    TableDice.ALL: "the GM types every roll (a prompt asks for each)",
}


@command(
    "tabledice",
    "tabledice app|pcs|all",
    "Who rolls the rules' dice in the app: the tracker (app), the GM types the PCs' rolls "
    "(pcs) or every roll (all) in a prompt; any line takes dice=F,F,... anyway",
    aliases=("td",),
    group="session",
)
def tabledice(call: Call) -> Encounter:
    word = call.arg(0, "app, pcs or all").lower()
    call.expect_args(1)
    aliases = {"pc": "pcs", "gm": "all", "none": "app", "off": "app", "tracker": "app"}
    try:
        mode = TableDice(aliases.get(word, word))
    except ValueError:
        raise CommandError(f"tabledice takes app, pcs or all, got '{word}'") from None
    if mode is call.enc.table_dice:
        raise CommandError(f"table dice are already {mode.value}: {TABLE_DICE_WORDS[mode]}")
    call.enc = evolve(call.enc, table_dice=mode)
    call.log(f"Table dice: {mode.value} — {TABLE_DICE_WORDS[mode]}", Kind.OVERRIDE)
    return call.enc


@command(
    "set",
    "set WHO FIELD VALUE [effect=N|NAME] [effects=no] [weapon=W]",
    "C4: override a value by hand, logged as such. 2297: init, damage, stun, fatigue, injury "
    "(with what the level brings; effects=no skips it), rounds or amount of a timed effect "
    "(effect= picks one), ammo, major/move/minor, reaction, dead, armor, weapon, ...; "
    "Facility: any value of sheet (phy, phy_wounds, phy_cap, track, track_wounds, empty, ...)",
    rolls=("VALUE, when dice are typed for it",),
)
def set_value(call: Call) -> Encounter:
    return call.rules.set_value(call)


# Undo and redo act on the history, which the session keeps: they are entries of the table like
# any command (help, the docs and completion list them), and the session runs them itself.
@command(
    "undo",
    "undo",
    "Step back one change, as many times as there were changes, across restarts",
    aliases=("u",),
    group="history",
)
def undo(call: Call) -> Encounter:
    raise CommandError("undo steps back through the history: the session runs it")


@command("redo", "redo", "Step forward again through what undo took back", group="history")
def redo(call: Call) -> Encounter:
    raise CommandError("redo steps forward through the history: the session runs it")
