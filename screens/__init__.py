"""The Textual screens (installed as ``facility_tui.screens``): the main screen, its dialogs, the
campaign browser, the forecast, help, the palette and the player view. Their widgets are in
``widgets``, the lines drawn below Textual's own rendering in ``render``."""
