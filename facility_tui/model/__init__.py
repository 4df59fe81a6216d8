"""The fight's model: the encounter and its combatants, the log, text and view values.

No rules and no I/O here: every other part of facility-tui reads these values.
"""
