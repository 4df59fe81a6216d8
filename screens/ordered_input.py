"""A text input whose keys act in the order they were typed, however fast they come.

Textual hands a key to the focused widget as soon as it reads it, but runs a binding only once
the key has bubbled back up to the app. In a burst of keys (a fast typist, a paste, keys read
together while a frame is drawn), the characters typed after a binding's key reach the input
before the binding acts: "12⌫3" comes out as 12, and a key typed after enter lands in a line
that is already done with.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    _left = False  # focus went away through one of this input's own keys (enter, escape)

    async def _on_key(self, event: events.Key) -> None:
        if (self._left and self.screen.focused is not self) or not self.screen.is_current:
            # Typed after enter or escape took focus away (or closed the dialog), in the same
            # burst: the app handed it here while this still had focus. It goes back to the
            # app, to go where focus is now. (Keys typed before a tab, which moves focus as the
            # app reads it, are still this input's: they were typed here.)
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character))
            return
        # The input's own keys (enter, escape, ←, ⌫, ...) act here, in typing order.
        bindings = self._bindings.key_to_bindings.get(event.key)
        if bindings:
            event.stop()
            event.prevent_default()  # (Input's and Widget's handlers are not called)
            await self.run_action(bindings[0].action)
            self._left = self.screen.focused is not self
