"""Imported by the forecast's forkserver before it forks a worker (``forecast._start_helpers``):
every rule system's rules loaded once there, so that each worker starts with them instead of
importing them before its first play, on the forecast's clock (docs/benchmarks.md, 'The
forecast's plays and workers')."""

from __future__ import annotations

from facility_tui.systems import all_systems

RULES = tuple(all_systems())
