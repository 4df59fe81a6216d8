"""Textual screens and panes (installed as ``facility_tui.screens``)."""
