"""What each event of a turn shows: the conversation's lines, the screen pane, the status
line and the voice. The driver's inbox hands the app every event with its turn's token;
only the live turn's are drawn (tui.turns)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.earlier import draw as draw_earlier
from tui.screens import trust as trust_prompt
from tui.widgets.conversation import code_review

if TYPE_CHECKING:
    from tui.host import TurnView


async def show(app: TurnView, token: int, event: object) -> None:
    """One event from the driver: shown when it belongs to the live turn."""
    # imported with the first event: a dozen dataclasses, slow to build for the first frame
    from agent.events import (
        AgentError,
        Compacted,
        ContextStatus,
        LoadFailed,
        Notice,
        Progress,
        SessionNotice,
        ShowOnScreen,
        TextDelta,
        ThinkingStarted,
        ToolFinished,
        ToolInputArriving,
        ToolStarted,
        TurnDone,
        TurnFinished,
        TurnStarted,
    )

    if isinstance(event, LoadFailed | SessionNotice):
        if isinstance(event, SessionNotice) and event.earlier:
            await draw_earlier(app.conversation, event.earlier)
        await app.conversation.add_notice(event.message, "error" if isinstance(event, LoadFailed) else "info")
        return
    if not app.turns.accepts(token, event):
        return
    if await code_review.show_event(app, event) or trust_prompt.show_event(app, event) or await app.show_command_event(event):
        return
    conversation = app.conversation
    match event:
        case TurnStarted():
            app.said_error = False
        case TextDelta(text=text):
            await conversation.add_text(text)
            if app.voice is not None:
                app.voice.reply_delta(text)
        case ThinkingStarted():
            await conversation.thinking()
        case Progress(text=text):
            # the model's note between tool calls: dimmed, and one sentence of it said
            await conversation.add_progress(text)
            if app.voice is not None:
                app.voice.progress(event.spoken)
        case ToolInputArriving():
            # a long edit takes the model a minute to write: the status line says so
            app.activity.writing = event.text
            app.activity.tick_activity()
        case ToolStarted(tool_id=tool_id, name=name, summary=summary):
            app.activity.writing = ""
            await conversation.tool_started(tool_id, name, summary)
        case ToolFinished():
            line = conversation.tool_finished(event.tool_id, event.duration, event.is_error, event.summary,
                                              event.log, event.outcome)
            if line is not None and line.tool_log:
                app.panes.last_log = line
            if event.log and event.name in ("build", "test") and app.voice is not None:
                app.voice.build_finished(event.log)
        case ShowOnScreen(title=title, content=content, format=format):
            await app.screen_pane.show(title, content, format)
            if not app.panes.screen_shown:
                # in the conversation, where it is read, and it stays: a toast goes
                await conversation.add_notice(f"On the screen pane (F3 shows it): {title}", "info")
        case AgentError(message=message):
            await conversation.add_notice(message, "error")
            app.said_error = True
        case ContextStatus():
            app.status.update_info(context=event)
        case Compacted(summary=summary):
            # one folded line; the summary itself waits on the screen pane
            await conversation.add_notice("▸ earlier conversation summarised (F3 shows the summary)", "info")
            await app.screen_pane.show("Earlier conversation, summarised", summary, "text")
        case Notice(message=message):
            await conversation.add_notice(message, "info")
        case TurnFinished(usage=usage, cancelled=cancelled):
            if not (cancelled or event.text.strip() or app.said_error):
                await conversation.add_notice("No answer came back (the model only thought); ask again.", "info")
            await app.end_turn(cancelled=cancelled)
            total = app.status.info.total
            app.status.update_info(usage=usage, total=usage if total is None else total + usage)
        case TurnDone():
            # the thread returned without a TurnFinished (an error before the turn began)
            await app.end_turn(cancelled=False)
    if not isinstance(event, TurnStarted) and not app.turns.settled.is_set():
        # after the refresh that draws what this event brought (the first words are
        # written by now), not the one before it, which only took the waiting line away
        app.call_after_refresh(app.turns.answered)
