"""The render layer: the few places the screens draw their lines themselves instead of through
Textual's own rendering, each kept for the figure docs/benchmarks.md gives it, and the lines'
last guards (no control character reaches the terminal). Installed as
``facility_tui.screens.render``."""
