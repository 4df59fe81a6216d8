"""A text input whose own keys (enter, escape, ←, ⌫, ...) act in its key handler.

Textual runs a focused widget's bindings only once the key has bubbled back up to the app: two
more message hops before every confirm. The app takes the next key only once this one is handled
(``app.OrderedKeys``), so acting here keeps the typing order and saves the trip.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        bindings = self._bindings.key_to_bindings.get(event.key)
        if bindings:
            event.stop()
            event.prevent_default()  # (Input's and Widget's handlers are not called)
            await self.run_action(bindings[0].action)
