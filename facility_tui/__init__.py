"""facility-tui: a keyboard-driven combat tracker for the Facility and 2297 rule systems."""

__version__ = "0.1.0"
