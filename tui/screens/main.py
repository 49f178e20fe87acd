"""The app's own screen: the panes, the prompt, the turns as they show on them.

`submit` starts a turn, or queues it while one runs; `show` is the one place an agent
event becomes widgets: the conversation's lines, the screen pane, the status line, a held
code change's bar, the trust dialog, and the words the voice says. The screen reads what
it needs from above (the turn driver, which owns the turn's state, and the voice, both
set by the app) and writes only its own widgets; what the user decides goes up to the
app as `Decided` (tui.decided), which hands it down to the turn.

Whatever dialog or editor closed, the user's next keys should land in the prompt, not in
the pane that happened to be focused before it opened (where a bare letter is an action).

What only a turn can show (a dialog, the held change's bar, the activity clock) is imported
where it is first shown, not with the screen: none of it is in the first frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.message import Message
from textual.screen import Screen

from tui.screens.change_questions import ChangeQuestions
from tui.screens.command_questions import CommandQuestions
from tui.screens.heap_pause import tidy_heap
from tui.screens.startup import read_branch
from tui.widgets.conversation.pane import Conversation
from tui.widgets.memory.pane import MemoryPane
from tui.widgets.panes import Panes
from tui.widgets.prompt import Prompt
from tui.widgets.queued import QueuedTurns
from tui.widgets.screen.pane import ScreenPane
from tui.widgets.status import StatusLine

if TYPE_CHECKING:
    from agent.events import Event
    from tui.screens.activity import ActivityClock
    from tui.screens.trust import TrustPrompt
    from tui.turns.driver import TurnDriver
    from tui.turns.voice import VoiceController


class TurnEnded(Message):
    """The live turn is over on screen, and what was queued has gone on."""


class MainScreen(ChangeQuestions, CommandQuestions, Screen):
    def __init__(self, turns: TurnDriver, key_problem: str | None = None, **kwargs: Any) -> None:
        """`key_problem`: why no turn can start (no API key), or None."""
        super().__init__(**kwargs)
        self.turns = turns
        self.key_problem = key_problem
        self.voice: VoiceController | None = None  # set by the app once the voice is built
        self.hears = False  # whether the voice hears a spoken answer now (set by the app)
        self._shown = False
        self._activity: ActivityClock | None = None

    @property
    def activity(self) -> ActivityClock:
        """The status line's word for what the turn does, and its clock."""
        if self._activity is None:
            from tui.screens.activity import ActivityClock

            self._activity = ActivityClock(self.turns, self.conversation, self.status)
        return self._activity

    # the widgets the app composed onto this screen

    @property
    def conversation(self) -> Conversation:
        return self.query_one("#conversation", Conversation)

    @property
    def screen_pane(self) -> ScreenPane:
        return self.query_one("#screen-pane", ScreenPane)

    @property
    def panes(self) -> Panes:
        return self.query_one("#panes", Panes)

    @property
    def memory_pane(self) -> MemoryPane:
        return self.query_one("#memory-pane", MemoryPane)

    @property
    def prompt(self) -> Prompt:
        return self.query_one("#prompt", Prompt)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def queued(self) -> QueuedTurns:
        return self.query_one("#queued", QueuedTurns)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        shown, self._shown = self._shown, True
        prompt = self.query("#prompt")
        if shown and prompt:
            # after Textual has put back the focus it remembered for this screen
            self.call_after_refresh(prompt.first().focus)

    def on_resize(self, event: events.Resize) -> None:
        # The breakpoint class was just set from the new width. The panes read it on their
        # own resize too, but that can come first, or not at all when their size is the same.
        for panes in self.query("#panes"):
            panes.narrow = self.has_class("-narrow")  # type: ignore[attr-defined]

    # --- start-up, after the first frame ------------------------------------------------

    @work(thread=True, group="startup")
    def show_branch(self, repo: Path) -> None:
        branch = read_branch(repo)
        if branch:
            self.app.call_from_thread(self._branch, branch)

    def _branch(self, branch: str) -> None:
        for status in self.query("#status").results(StatusLine):
            status.update_info(branch=branch)

    @work(thread=True, group="startup")
    def settle_code_changes(self, repo: Path) -> None:
        """A change set a killed devagent left half written is finished or rolled back
        (agent.tools.editor.journal.recover) as the app starts, and the user is told how."""
        from agent.tools.editor.journal import recover

        app = self.app
        for note in recover(repo):
            try:
                app.call_from_thread(app.notify, note, title="Code change", severity="warning", timeout=30)
            except RuntimeError:
                return  # the app closed meanwhile

    # --- turns -------------------------------------------------------------------------

    async def submit(self, text: str, typed: str | None = None, *, briefing: bool = False) -> None:
        """Start a turn (typed or transcribed); while one runs, queue it for when it ends.

        `typed` is the text as the prompt showed it (long pastes folded), for taking back; a
        `briefing` is the welcome-back turn, given without a key too (from git alone)."""
        turns = self.turns
        if turns.running and self.answer(text):
            return  # "apply" or "no" to a change that waits, "yes" or "no" to the trust dialog
        if turns.running:
            turns.enqueue(text, typed)
            self.queued.show(turns.queue)
            return
        await self.conversation.add_user(text)
        if self.key_problem and not briefing:
            await self.conversation.add_notice(self.key_problem, "error")
            return
        turns.start(text, briefing=briefing)
        self.refresh_bindings()  # Esc Cancel takes its place in a narrow footer
        if self.voice is not None:
            self.voice.turn_started()  # the voice warms while the model thinks
        await self.conversation.thinking()
        self.activity.start()

    async def withdraw_turn(self, text: str) -> None:
        """A spoken question taken back (the speaker went on: tui.app): it leaves the
        queue, or its turn stops unspoken and leaves the conversation and the history."""
        turns = self.turns
        if turns.tentative_decision == text:
            turns.tentative_decision = None  # decided nothing: the whole utterance comes next
            return
        if turns.unqueue(text):
            self.queued.show(turns.queue)
            return
        was = turns.withdraw(text)
        if was is None and not self.key_problem:
            return
        await self.conversation.withdraw_turn()  # with no key no turn could start: only the question shows
        if was == "live":
            # a change it held was never asked for: it goes unapplied with the turn (the
            # agent side sees the cancellation), and its bar with it
            await self.review_over()
            await self.end_turn(cancelled=True)

    async def cancel_turn(self) -> None:
        """Esc while a turn runs, one meaning at a time: a recording stops (and only that); else
        a change that waits is kept as it is, queued questions come back, or the turn (and a
        command it runs) is cancelled, the voice with it."""
        recording = self.status.info.voice.state == "recording"
        if self.voice is not None and self.voice.cancel() and recording:
            return
        if not self.turns.running or self.decide_change(False):
            return
        taken = self.turns.take_queue()
        if taken:
            # the newest action goes first: the queued questions come back, the turn runs on
            self.queued.show(self.turns.queue)
            prompt = self.prompt
            prompt.value = "\n\n".join([*taken, prompt.value] if prompt.value.strip() else taken)
            prompt.focus()
            self.notify("Back in the prompt, not sent. Esc again cancels the running turn.", title="Queued")
            return
        # killing a tool's process tree or closing the stream must not stall the UI
        self.turns.cancel()
        await self.end_turn(cancelled=True)
        await self.conversation.add_notice("Cancelled.", "cancelled")

    async def end_turn(self, cancelled: bool) -> None:
        """The live turn is over on screen; what was queued goes next."""
        self.close_undecided()  # a turn gone while it asked: nothing waits for it now
        self.close_command_undecided(cancelled)
        self.turns.finish()  # what waited goes after the refresh that draws this (show)
        await self.conversation.end_turn()
        self.activity.stop()
        if self.voice is not None:
            self.voice.reply_finished(cancelled)
        following = self.turns.next_queued()
        self.queued.show(self.turns.queue)
        if following is not None:
            await self.submit(following)
        else:
            tidy_heap(self.conversation)
            self.refresh_bindings()  # Esc Cancel gives its place back in a narrow footer
        self.post_message(TurnEnded())

    # --- what each agent event shows ----------------------------------------------------

    async def show(self, token: int, event: Event) -> None:
        """One event from the driver: shown when it belongs to the live turn."""
        # imported with the first event: a dozen dataclasses, slow to build for the first frame
        from agent import events as agent
        from agent.tools.text_editor import EDITOR_NAME

        if isinstance(event, agent.LoadFailed | agent.SessionNotice):
            if isinstance(event, agent.SessionNotice) and event.earlier:
                from tui.turns.earlier import draw

                await draw(self.conversation, event.earlier)
            await self.conversation.add_notice(event.message, "error" if isinstance(event, agent.LoadFailed) else "info")
            return
        if not self.turns.accepts(token, event) or await self.show_command_event(event):
            return
        conversation = self.conversation
        voice = self.voice
        match event:
            case agent.TurnStarted():
                self.turns.said_error = False
            case agent.TextDelta(text=text):
                if voice is not None:
                    voice.reply_delta(text)  # first: the voice need not wait for the drawing
                await conversation.add_text(text)
            case agent.ThinkingStarted():
                await conversation.thinking()
            case agent.Progress(text=text):
                # the model's note between tool calls: dimmed, and one sentence of it said
                await conversation.add_progress(text)
                if voice is not None:
                    voice.progress(event.spoken)
            case agent.ToolInputArriving():
                # a long edit takes the model a minute to write: the status line says so
                self.turns.writing = event.text
                self.activity.tick_activity()
            case agent.ToolStarted(tool_id=tool_id, name=name, summary=summary):
                self.turns.writing = ""
                await conversation.tool_started(tool_id, name, summary)
            case agent.ToolFinished():
                line = conversation.tool_finished(event.tool_id, event.duration, event.is_error, event.summary,
                                                  event.log, event.outcome)
                if line is not None and line.tool_log:
                    self.panes.last_log = line
                if event.log and event.name in ("build", "test") and voice is not None:
                    voice.build_finished(event.log)
                if event.name == EDITOR_NAME and event.summary.startswith("changed"):
                    self.memory_pane.reload()  # an auto write: the memories' evidence follows at once
            case agent.ShowOnScreen(title=title, content=content, format=format):
                await self.screen_pane.show(title, content, format)
                if not self.panes.screen_shown:
                    # in the conversation, where it is read, and it stays: a toast goes
                    await conversation.add_notice(f"On the screen pane (F3 shows it): {title}", "info")
            case agent.AgentError(message=message):
                await conversation.add_notice(message, "error")
                self.turns.said_error = True
            case agent.ContextStatus():
                self.status.update_info(context=event)
            case agent.Compacted(summary=summary):
                # one folded line; the summary itself waits on the screen pane
                await conversation.add_notice("▸ earlier conversation summarised (F3 shows the summary)", "info")
                await self.screen_pane.show("Earlier conversation, summarised", summary, "text")
            case agent.Notice(message=message):
                await conversation.add_notice(message, "info")
            case agent.CodeChangeHeld():
                await self.change_held(event)
            case agent.CodeChangeSettled():
                await self.change_settled(event)
            case agent.TrustAsked(request=request):
                from tui.screens.trust import TrustPrompt

                self.app.push_screen(TrustPrompt(request, self.hears), self._after_trust)
                if voice is not None and self.hears:
                    voice.reply_delta(f"To run the {request.run.tool} I need to run this repository's code. "
                                      "Do you trust it? Say yes or no.\n\n")
            case agent.TurnFinished(usage=usage, cancelled=cancelled):
                if not (cancelled or event.text.strip() or self.turns.said_error):
                    await conversation.add_notice("No answer came back (the model only thought); ask again.", "info")
                await self.end_turn(cancelled)
                total = self.status.info.total
                self.status.update_info(usage=usage, total=usage if total is None else total + usage)
            case agent.TurnDone():
                # the worker returned without a TurnFinished (an error before the turn began)
                await self.end_turn(cancelled=False)
        if not isinstance(event, agent.TurnStarted) and not self.turns.settled.is_set():
            # after the refresh that draws what this event brought (the first words are
            # written by now), not the one before it, which only took the waiting line away:
            # through the app's queue, behind the batch this event came in
            self.app.call_after_refresh(self.turns.answered)

    def _after_trust(self, _answer: bool | None) -> None:
        self.prompt.focus()

    async def show_on_screen(self, title: str, text: str, format: Any) -> None:
        """On the screen pane, shown even when the user had hidden it."""
        await self.screen_pane.show(title, text, format)
        self.panes.screen_choice = True

    def copy(self) -> None:
        """Ctrl+G: the last reply, or the screen pane's item when it has the focus, to the
        clipboard through the terminal (tui.copying)."""
        from tui.screens.copying import what_to_copy
        from tui.widgets.conversation.reply import Reply

        drawn = [reply.source for reply in self.query(Reply)]
        found = what_to_copy(self.focused, self.screen_pane, self.conversation, drawn)
        if found is None:
            self.notify("Nothing to copy yet: no reply, and nothing on the screen pane.")
            return
        text, what = found
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what} ({len(text):,} characters) to the clipboard, through the terminal.", title="Copy")

    # --- what the running turn asks the user --------------------------------------------

    def trust_waiting(self) -> TrustPrompt | None:
        """The trust dialog that waits for an answer, if one is open."""
        from tui.screens.trust import TrustPrompt

        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, TrustPrompt) and screen.decided is None:
                return screen
        return None

    def is_decision(self, text: str) -> bool:
        """Whether `text` would answer what waits ("apply" to a change, "yes" to trust)."""
        from tui.screens.command import spoken_command
        from tui.screens.trust import spoken_trust
        from tui.widgets.conversation.code_review import spoken_decision

        if self.change_waiting() is not None and spoken_decision(text) is not None:
            return True
        if self.command_waiting() is not None and spoken_command(text) is not None:
            return True  # "yes, but with the network" must not run it as it is
        return self.trust_waiting() is not None and spoken_trust(text) is not None

    def answer(self, text: str) -> bool:
        """Typed or spoken words that decide what waits; False when they are not such words."""
        from tui.screens.trust import spoken_trust
        from tui.widgets.conversation.code_review import spoken_decision

        choice = spoken_decision(text)
        if (choice is not None and self.decide_change(choice)) or self.answer_command(text):
            return True
        prompt = self.trust_waiting()
        trusted = spoken_trust(text) if prompt is not None else None
        if prompt is None or trusted is None:
            return False
        prompt.answer(trusted)
        return True

    def close_undecided(self) -> None:
        """The turn ended (cancelled, taken back) while the trust dialog was open: it goes, undecided."""
        prompt = self.trust_waiting()
        if prompt is not None:
            prompt.answer(None)
