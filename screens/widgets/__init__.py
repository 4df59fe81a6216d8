"""The main screen's widgets: the initiative list, the panes' column, the status line, the log,
the command bar and the key bar (installed as ``facility_tui.screens.widgets``)."""
