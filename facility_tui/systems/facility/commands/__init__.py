"""Facility commands, by topic (being split)."""

from facility_tui.systems.facility.commands.attacks import faces

__all__ = ["faces"]
