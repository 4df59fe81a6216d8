"""Textual stylesheets (installed as ``facility_tui.styles``)."""
