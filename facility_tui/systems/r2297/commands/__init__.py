"""2297 commands, by topic (being split)."""
