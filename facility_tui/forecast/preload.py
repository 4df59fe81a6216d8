"""Imported by the forecast's forkserver before it forks a worker (``forecast._start_helpers``):
every rule system's rules loaded once there, so that each worker starts with them instead of
importing them before its first play (about 0.1 s of a worker's CPU, on the forecast's clock)."""

from __future__ import annotations

from facility_tui.systems import all_systems

RULES = tuple(all_systems())
