"""The main screen's side of a code change the agent holds for the user (agent.loop.held_changes):
its diff on the screen pane, the bar above the prompt that asks (tui.widgets.conversation.code_review),
the decision typed, spoken or keyed, and how the held calls' tool lines say it ended.

A base of the main screen. The bar's module is imported when a change is first held, not
for the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui.screens.parts import MainScreenParts

if TYPE_CHECKING:
    from agent.events import CodeChangeHeld, CodeChangeSettled
    from agent.tools.editor.change_set import ChangeSet
    from tui.widgets.conversation.code_review import CodeReviewBar


class ChangeQuestions(MainScreenParts, Screen):
    if TYPE_CHECKING:
        async def show_on_screen(self, title: str, text: str, format: Any) -> None: ...

    async def show_change(self, change: ChangeSet) -> None:
        """A change set of this session's, from the palette: its diff."""
        from agent.loop.held_changes import masked_diff
        from tui.widgets.conversation.code_review import change_title

        await self.show_on_screen(change_title(change), masked_diff(change), "diff")

    def _bar(self) -> CodeReviewBar | None:
        from tui.widgets.conversation.code_review import CodeReviewBar

        bars = list(self.query(CodeReviewBar))
        return bars[0] if bars else None

    def change_waiting(self) -> CodeReviewBar | None:
        """The bar of the change that waits for the user's decision, if one does."""
        bar = self._bar()
        return bar if bar is not None and bar.decided is None else None

    def decide_change(self, apply: bool) -> bool:
        """The user's decision on the change that waits (Esc, typed or spoken words); False when none does."""
        bar = self.change_waiting()
        return bar is not None and bar.decide(apply)

    async def change_held(self, event: CodeChangeHeld) -> None:
        """Its diff on the screen pane (shown even when hidden), its bar above the prompt, focused."""
        from tui.widgets.conversation.code_review import CodeReviewBar, spoken_sentence

        diff = await self.screen_pane.show(f"Waiting for you: {event.what}", event.diff, "diff")
        old = self._bar()
        before = old.screen_before if old is not None else self.panes.screen_choice
        self.panes.screen_choice = True
        if old is not None:
            await old.remove()
        bar = CodeReviewBar(event.id, event.what, before, diff, id="code-review")
        await self.mount(bar, before=self.prompt)
        bar.focus()
        self.turns.code_change_waiting = f"you: Enter applies, Esc keeps {event.what}"
        if self.voice is not None:
            self.voice.reply_delta(spoken_sentence(event.what) + "\n\n")

    async def change_settled(self, event: CodeChangeSettled) -> None:
        await self.review_over(event.state)
        self._relabel(event.tool_ids, event.state)
        if event.state == "applied":
            self.notify(event.for_user, title="Code change")
            self.memory_pane.reload()  # the memories' evidence follows the code at once
            return
        await self.conversation.add_notice(event.for_user, "info")

    async def review_over(self, state: str = "cancelled") -> None:
        """No change waits any more (settled as `state`, or its turn taken back): the bar goes, the
        diff says how the change ended, and the screen pane is shown or hidden as the user had it."""
        from tui.widgets.conversation.code_review import DIFF_TITLES

        self.turns.code_change_waiting = None
        bar = self._bar()
        if bar is not None:
            if bar.diff is not None:
                ended = DIFF_TITLES.get(state, DIFF_TITLES["cancelled"])
                self.screen_pane.retitle(bar.diff, f"{ended}: {bar.what}")
            self.panes.screen_choice = bar.screen_before
            await bar.remove()
        self.prompt.focus()

    def _relabel(self, tool_ids: tuple[str, ...], state: str) -> None:
        """The held calls' tool lines say how the change ended, not that it waits."""
        from tui.widgets.conversation.code_review import OUTCOMES
        from tui.widgets.conversation.lines import ToolLine

        for line in self.conversation.query(ToolLine):
            if line.tool_id in tool_ids and line.finished is not None:
                # kept is the user's choice, not a failure: the dim mark of a stopped call
                mark = {"applied": "ok", "conflict": "failed"}.get(state, "cancelled")
                line.finish(line.finished[0], state != "applied", OUTCOMES.get(state, state), None, mark)
