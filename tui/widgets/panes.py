"""The three panes side by side: which of them shows, and how wide.

Narrow has one definition: below WIDE columns the app's breakpoints give the screen the
`-narrow` class. The stylesheet selects on that class, and this widget reads the same
class (never the width) when it decides what F3 and F7/F8 do. The state is reactive (the
screen pane shown or hidden, the memory pane shown or hidden, a width step for each);
each change becomes CSS classes on this widget, and the stylesheet below lays out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from tui.widgets.conversation.lines import ToolLine
from tui.widgets.conversation.pane import Conversation
from tui.widgets.memory.pane import MemoryPane
from tui.widgets.screen.pane import ScreenPane

if TYPE_CHECKING:
    from memory.seam import EditableStore

# below this many columns the screen pane shares the conversation's place instead of its own
WIDE = 140
BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]

# the widths F7/F8 step through: memory in cells, the screen pane against the conversation
MEMORY_WIDTHS = (24, 30, 36, 44, 56, 72)
SCREEN_WIDTHS = ("1fr", "2fr", "3fr", "4fr")


def _layout_css() -> str:
    rules = [
        "Panes > #screen-pane { display: none; }",
        "Panes.-screen > #screen-pane { display: block; }",
        "Panes.-no-memory > #memory-pane { display: none; }",
        # a narrow terminal: the screen pane takes the conversation's place when shown,
        # and the memory pane leaves the conversation two thirds of the width
        ".-narrow Panes.-screen > #conversation { display: none; }",
        ".-narrow Panes > #memory-pane { max-width: 33%; min-width: 20; }",
    ]
    rules += [f"Panes.-memory-{i} > #memory-pane {{ width: {w}; }}" for i, w in enumerate(MEMORY_WIDTHS)]
    rules += [f"Panes.-screen-{i} > #screen-pane {{ width: {w}; }}" for i, w in enumerate(SCREEN_WIDTHS)]
    return "\n".join(rules)


class Panes(Horizontal):
    DEFAULT_CSS = _layout_css()
    # the rules select on the screen's breakpoint class, outside this widget
    SCOPED_CSS = False

    narrow = var(False)
    screen_choice: var[bool | None] = var(None)  # None: the default for the width
    memory_shown = var(True)
    memory_step = var(2)
    screen_step = var(0)

    class HiddenNews(Message):
        """What the status line should say of the hidden memory pane ("" for nothing)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, store: EditableStore, repo: Path | None, *, aging_days: int = 30,
                 settled: Callable[[float], None] | None = None, typing_now: Callable[[], bool] | None = None,
                 **kwargs: Any) -> None:
        """`aging_days`, `settled` and `typing_now` go to the memory pane (see MemoryPane)."""
        super().__init__(**kwargs)
        self._store = store
        self._repo = repo
        self._aging_days, self._settled, self._typing_now = aging_days, settled, typing_now
        self.last_log: ToolLine | None = None  # the tool line whose log Ctrl+L opens
        self._shown: tuple[dict[str, bool], bool, int] | None = None  # as last styled
        # the classes of a wide terminal from the start: mounted with them, the first frame
        # is styled once, and only a narrow one is styled again (on_mount)
        self.update_classes(self._layout_classes(), update=False)

    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")
        yield ScreenPane(id="screen-pane")
        yield MemoryPane(self._store, self._repo, aging_days=self._aging_days, settled=self._settled,
                         typing_now=self._typing_now, id="memory-pane")

    def on_mount(self) -> None:
        self.narrow = self.screen.has_class("-narrow")
        self._restyle()

    def on_resize(self) -> None:
        # the screen's classes were set from the new width before this widget was laid out
        self.narrow = self.screen.has_class("-narrow")

    @property
    def screen_shown(self) -> bool:
        return self.screen_choice if self.screen_choice is not None else not self.narrow

    def watch_narrow(self) -> None:
        self._restyle()

    def watch_screen_choice(self) -> None:
        self._restyle()

    def watch_memory_shown(self) -> None:
        self._restyle()
        panes = self.query(MemoryPane)
        if not panes:
            return
        if self.memory_shown:
            self._hidden_with = None
            self._mark_hidden("")
        else:
            self._hidden_with = {m.path: m.modified for m in panes.first().listing.memories}

    _hidden_with: dict[str, float] | None = None  # the memories as they were when the pane hid

    def on_memory_pane_changed(self, event: MemoryPane.Changed) -> None:
        """A memory written or changed while the pane is hidden: the status line says so."""
        if self.memory_shown or self._hidden_with is None:
            return
        now = {m.path: m.modified for m in self.query_one(MemoryPane).listing.memories}
        changed = sum(1 for path, modified in now.items() if self._hidden_with.get(path) != modified)
        gone = len(set(self._hidden_with) - set(now))
        parts = [f"{changed} new or changed"] if changed else []
        parts += [f"{gone} gone"] if gone else []
        self._mark_hidden(f"◆ memory: {', '.join(parts)} (F4)" if parts else "")

    def _mark_hidden(self, text: str) -> None:
        self.post_message(self.HiddenNews(text))

    def watch_memory_step(self) -> None:
        self._restyle()

    def watch_screen_step(self) -> None:
        self._restyle()

    def _layout_classes(self) -> dict[str, bool]:
        classes = {"-screen": self.screen_shown, "-no-memory": not self.memory_shown}
        classes.update({f"-memory-{i}": i == self.memory_step for i in range(len(MEMORY_WIDTHS))})
        classes.update({f"-screen-{i}": i == self.screen_step for i in range(len(SCREEN_WIDTHS))})
        return classes

    def _restyle(self) -> None:
        classes = self._layout_classes()
        panes = list(self.query(ScreenPane))  # none before compose
        shown = (classes, self.narrow, len(panes))
        if shown == self._shown:
            return  # every watcher runs once at mount: the styles are worked out once
        self._shown = shown
        self.update_classes(classes)
        for screen_pane in panes:
            screen_pane.set_hint("F3 conversation" if self.narrow else "")

    # --- what the keys do ---------------------------------------------------------------

    def toggle_screen(self) -> None:
        self.screen_choice = not self.screen_shown

    def focus_in(self, widget: Widget) -> bool:
        focused = self.app.focused
        return focused is not None and widget in focused.ancestors_with_self

    def screen_key(self, prompt: Widget, go: bool = True) -> None:
        """F3: the screen pane, shown and focused; from inside it (or on a narrow terminal,
        where it takes the conversation's place) it hides. `go=False` (the palette): only
        shown or hidden."""
        pane = self.query_one(ScreenPane)
        if self.screen_shown and (self.narrow or not go or self.focus_in(pane)):
            if self.focus_in(pane):
                prompt.focus()
            self.toggle_screen()
            return
        self.screen_choice = True
        if go:
            # once it is laid out: a hidden widget takes no focus
            self.call_after_refresh(pane.focus_body)

    def memory_key(self, prompt: Widget, go: bool = True) -> None:
        """F4: the memory pane, shown and focused; from inside it, it hides."""
        pane = self.query_one(MemoryPane)
        if go and self.memory_shown and not self.focus_in(pane):
            pane.focus_list()
            return
        if self.toggle_memory():
            prompt.focus()
        elif go and self.memory_shown:
            self.call_after_refresh(pane.focus_list)

    def conversation_key(self, prompt: Widget) -> None:
        """F12: the conversation focused (on a narrow terminal, back in the place the screen
        pane took); from inside it, the prompt."""
        conversation = self.query_one(Conversation)
        if self.focus_in(conversation):
            prompt.focus()
            return
        if self.narrow and self.screen_shown:
            self.screen_choice = False
            self.call_after_refresh(conversation.focus, False)
            return
        conversation.focus(scroll_visible=False)

    def toggle_memory(self) -> bool:
        """Show or hide the memory pane; True when it hid with the focus inside it."""
        self.memory_shown = not self.memory_shown
        return not self.memory_shown and self.query_one(MemoryPane).has_focus_within

    async def on_tool_line_log_requested(self, message: ToolLine.LogRequested) -> None:
        await self.open_log(message.line)

    async def open_log(self, line: ToolLine | None) -> bool:
        """A tool's full log on the screen pane (None: the last one); False when there is none."""
        line = line or self.last_log
        if line is None or not line.tool_log:
            return False
        title = f"{line.tool_name} {line.input_summary}".strip() + " — full log"
        log = line.tool_log
        if self._repo is not None:
            # build tools print absolute paths; inside the repository they only cost width
            log = log.replace(f"{self._repo}{os.sep}", "")
        await self.query_one(ScreenPane).show(title, log, "log")
        self.screen_choice = True
        return True

    def resize(self, step: int, screen_focused: bool) -> str | None:
        """F7 (-1) and F8 (+1): the focused side pane, else the memory pane (the screen pane
        when memory is hidden). A sentence when nothing can change, saying why."""
        if screen_focused or (not self.memory_shown and self.screen_shown):
            return self._resize_screen(step)
        return self._resize_memory(step)

    def _resize_screen(self, step: int) -> str | None:
        if self.narrow:
            return ("The screen pane has the conversation's whole place already at this width; "
                    "F3 switches between them.")
        index = max(0, min(len(SCREEN_WIDTHS) - 1, self.screen_step + step))
        if index == self.screen_step:
            return f"The screen pane is as {'wide' if step > 0 else 'narrow'} as it goes."
        self.screen_step = index
        return None

    def _resize_memory(self, step: int) -> str | None:
        # the width shown, which a narrow terminal caps: the next step that shows different
        shown = self.query_one(MemoryPane).outer_size.width
        steps = range(self.memory_step + 1, len(MEMORY_WIDTHS)) if step > 0 else range(self.memory_step - 1, -1, -1)
        for index in steps:
            if (MEMORY_WIDTHS[index] > shown) if step > 0 else (MEMORY_WIDTHS[index] < shown):
                break
        else:
            return f"The memory pane is as {'wide' if step > 0 else 'narrow'} as it goes{'' if step > 0 else '; F4 hides it'}."
        if step > 0 and self.narrow:
            self.call_after_refresh(self._check_grew, self.memory_step, shown)
        self.memory_step = index
        return None

    def _check_grew(self, before: int, shown: int) -> None:
        if self.query_one(MemoryPane).outer_size.width <= shown:
            self.memory_step = before  # no step stored up for F7 to undo
            self.app.notify(f"At {self.app.size.width} columns the memory pane stays at a third of the width "
                            f"({shown} columns) so the conversation keeps its room; a wider terminal lets it "
                            "grow, and F4 hides it.", title="Width")
