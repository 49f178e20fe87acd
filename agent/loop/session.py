"""One conversation with Claude: the manual, streamed tool-use loop. A user turn streams a
reply, runs every tool_use block in it, sends the tool_results back and repeats until the
model ends its turn; the caller sees everything as events through the sink, and nothing
raises out of `send`. Beside it: agent.loop.turn (the running turn's state), stream (one
streamed call), tool_calls (a reply's tool_use blocks run), faults (what each fault
becomes), and agent.conversation.history (the messages and their saved copy).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import prompts
from agent.cancel import Cancellation
from agent.command_consent import CommandConsent
from agent.conversation import utf8
from agent.conversation.history import CANCELLED_NOTE, FAILED_NOTE, History, bound_thinking, prefix_of
from agent.conversation.replay import SessionStart
from agent.conversation.transcripts import SavedSession, Transcript
from agent.conversation.window import Keeper
from agent.decisions import Decisions
from agent.events import AgentError, Notice, Sink, TurnFinished, TurnStarted, Usage
from agent.instructions.block import RepositoryInstructions
from agent.loop import claude, compaction, held_changes, summary_call, welcome_back
from agent.loop.faults import (
    DECLINED,
    OUTPUT_LIMIT,
    WINDOW_FULL,
    TurnCancelled,
    TurnDeclined,
    TurnFailed,
    traceback_worth_keeping,
)
from agent.loop.news import PromptNews
from agent.loop.rewinding import Rewinding
from agent.loop.root_check import open_root, stop_if_moved
from agent.loop.stream import Reply, stream_reply
from agent.loop.tool_calls import run_tools, untrusted
from agent.loop.turn import TurnState, safe
from agent.recall import memory_modes
from agent.recall.changes import MemoryWatch
from agent.settings.choices import MEMORY_TOOL_MODES, REPLAY_MODES
from agent.settings.config import AgentConfig, api_key_problem
from agent.tools.base import Tool, ToolContext
from agent.tools.registry import ToolRegistry
from agent.workspace_trust import WorkspaceTrust

if TYPE_CHECKING:
    from memory.seam import Store

log = logging.getLogger("devagent.session")
# Silent unless the program using the agent sets up logging (the app and `devagent ask` do,
# into the log folder); never Python's last-resort printing to stderr.
logging.getLogger("devagent").addHandler(logging.NullHandler())

class Session(PromptNews, Rewinding):
    def __init__(
        self,
        repo: Path,
        config: AgentConfig,
        *,
        client: Any = None,
        store: Store | None = None,
        now: datetime | Callable[[], datetime] | None = None,
        tools: list[Tool] | None = None,
        save_transcript: bool = True,
        resume: SavedSession | None = None,
        trust: WorkspaceTrust | None = None,
        commands: CommandConsent | None = None,
    ) -> None:
        self.repo = Path(repo).resolve()
        self.root = open_root(self.repo)  # every tool goes through it; a path naming another folder stops the turn
        self.base = self.root.at if self.root is not None else self.repo  # the repository's files, through it
        self.trust = trust or WorkspaceTrust(self.repo)  # no one to ask: code runs only if trusted before
        # no one to ask: only commands allowed before run
        self.commands = commands or CommandConsent(self.repo, interactive=self.trust.interactive)
        config, self._untold = config.for_session(self.repo, resume)
        self.config = config
        self._client = client
        self._no_retry_client: Any = None
        self._now = now
        self.turn = 0
        self.usage = Usage()
        self._lock = threading.Lock()
        self.decisions = Decisions()  # the user's answers to what a turn asks (the app posts them)
        self._closed = False
        self._save_transcript = save_transcript
        self.started = self.now()

        mode = config.memory_mode
        if store is None and mode in MEMORY_TOOL_MODES:
            from memory.roots import open_memory

            store = open_memory(self.repo)
        self.store = store
        if resume is None:
            self.start = memory_modes.prepare(mode, self.repo, store=store, window_turns=config.window_turns,
                                       now=self.started, aging_days=config.memory_aging_days)
        else:
            self.start = memory_modes.resumed(mode, resume, self.repo, store=store, now=self.started,
                                       aging_days=config.memory_aging_days)
        self.registry = ToolRegistry.for_mode(
            mode, store if self.start.memory_tool else None, tools, memory_writes=config.memory_writes,
            code_writes=config.code_writes, user_memory_writes=config.user_memory_writes)
        self.tool_definitions = self.registry.definitions()
        # the repository's own instructions, given once it is trusted (agent.instructions)
        self.instructions = RepositoryInstructions(self.repo, self.trust)
        self._start_checkpoints(config.checkpoints_max_mb, config.checkpoints_max_age_days)
        self._begin_conversation(resume)

    def _begin_conversation(self, resume: SavedSession | None = None) -> None:
        """A new history (with a new transcript) from `self.start`, and the system prompt; or
        the saved conversation `resume`, after its last finished turn, in its own transcript."""
        self.system = self._system_blocks()
        self.prefix = self._prefix()
        self.keeper = Keeper(self.config, memory_tool=self.start.memory_tool)
        self.memory_watch = MemoryWatch(self.store, self.config.memory_mode, self.start.seen)
        self._conversation_turns = 0
        self._resumed = resume is not None
        if resume is not None:
            self.history = self._resumed_history(resume)
            return
        transcript = None
        if self._save_transcript:
            transcript = Transcript(
                self.repo,
                started=self.started,
                model=self.config.model,
                memory_mode=self.config.memory_mode,
                context=self.start.context,
                effort=self.config.effort,
            )
        self.history = History(transcript, self.now, self.prefix)
        prefixes = self.start.replay_prefixes or [None] * len(self.start.replay)
        # Another mode's session had another system prompt or tools: its thinking stays behind.
        replay = bound_thinking(self.start.replay, prefixes, self.prefix)
        for message, when in zip(replay, self.start.replay_times):
            self.history.append(message, turn=self.turn, when=when, replayed=True)

    def _resumed_history(self, saved: SavedSession) -> History:
        # Turn numbers go on after every turn the file has seen, finished or not.
        self.turn = max([m.turn for m in saved.messages] + [int(t.get("turn") or 0) for t in saved.turns] + [0])
        transcript = Transcript.reopen(self.repo, saved) if self._save_transcript else None
        # Memory is the user's: what they deleted or rewrote since is not sent again, neither
        # in the rebuilt block (memory_modes.resumed) nor in the model's earlier memory tool calls.
        self.memory_watch.resume(saved, transcript, self.now())
        return History.resumed(saved, transcript, self.now, self.prefix)

    # --- setup ----------------------------------------------------------------------------

    def now(self) -> datetime:
        if callable(self._now):
            return self._now()
        if isinstance(self._now, datetime):
            return self._now
        return datetime.now().astimezone()

    def _system_blocks(self) -> list[dict[str, Any]]:
        stable = prompts.system_prompt()
        if self.start.memory_tool:
            stable = f"{stable}\n\n{prompts.memory_rules()}"
        # In the first block, so its cache breakpoint covers them and a memory change after
        # them does not write them to the cache again.
        repository = self.instructions.text()
        if repository:
            stable = f"{stable}\n\n{repository}"
        blocks = [{"type": "text", "text": stable}]
        context = self.start.context
        memory = self.registry.get("memory")
        note = memory.mode_note() if memory is not None and hasattr(memory, "mode_note") else ""
        if note:
            context = f"{note}\n\n{context}" if context else note
        if context:
            blocks.append({"type": "text", "text": context})
        return blocks

    def _prefix(self) -> str:
        """What this session's requests bind thinking to: the system blocks and the tools as a
        request carries them. Computed here only, so that a resume, which computes it from the
        same parts, finds the thinking saved under it."""
        return prefix_of(self.config.model, self.system, claude.as_sent(self.tool_definitions))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation as the next request will send it."""
        return self.history.messages

    @property
    def transcript(self) -> Transcript | None:
        return self.history.transcript

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = claude.make_client(self.config)
        return self._client

    def _streaming_client(self) -> Any:
        if self._no_retry_client is None:
            client = self.client
            with_options = getattr(client, "with_options", None)
            self._no_retry_client = with_options(max_retries=0) if with_options else client
        return self._no_retry_client

    def prepare_turn(self) -> None:
        """For a question still being spoken (any thread): its connection opens, its instructions are read."""
        if not (api_key_problem() and self._client is None):
            claude.warm_connection(self._streaming_client())
        self.instructions.read_ahead()

    # --- the turn -------------------------------------------------------------------------

    def send(self, text: str, sink: Sink, cancel: Cancellation | None = None, *, shown: str | None = None) -> Usage:
        """Runs one user turn to its end; reports through `sink` and returns the turn's usage.

        Never raises: whatever goes wrong reaches the sink as an AgentError, and the turn
        always ends with a TurnFinished.
        """
        with self._lock:
            self.turn += 1
            emit = safe(sink)
            text, replaced = utf8.valid(utf8.as_text(text))
            emit(TurnStarted(self.turn, shown or text))  # `shown`: a turn whose words devagent wrote
            turn = TurnState(self.turn, emit, cancel if isinstance(cancel, Cancellation) else Cancellation(), self.decisions)

            problem = api_key_problem() if self._client is None else None
            if problem:
                emit(AgentError(turn.id, problem))
                emit(TurnFinished(turn.id, Usage(), "", False))
                return Usage()

            for note in self._untold:
                emit(Notice(turn.id, note))
            self._untold = []
            if replaced:
                text = f"{text}\n\n({utf8.replaced_note(replaced, 'this message')})"
            cancelled = self._run_turn(turn, text)
            usage = replace(turn.usage, total_time=turn.elapsed())
            self.usage = self.usage + usage
            self._save_turn(turn.id, usage, cancelled)
            self._transcript_notice(emit, turn.id)
            emit(TurnFinished(turn.id, usage, turn.reply_text, cancelled))
            return usage

    def welcome_back(self, sink: Sink, cancel: Cancellation | None = None) -> Usage:
        """The briefing turn (agent.loop.welcome_back): checks run now, then the model's
        briefing of them; without a key, the briefing built from the checks alone."""
        brief = welcome_back.Briefing.prepare(self, cancel)
        if self._client is None and api_key_problem():
            with self._lock:
                self.turn += 1
                return brief.given_here(self.turn, safe(sink))
        return self.send(brief.request(untrusted), sink, cancel, shown=welcome_back.ASKED)

    def _run_turn(self, turn: TurnState, text: str) -> bool:
        """The turn's words and its loop; True when it was cancelled. A turn that did not end
        with a reply is closed in the history as such, or taken out when the API refused it."""
        if self.keeper.own_summary_due():
            compaction.summarise(self.keeper, turn, self.history, self._write_summary)
        start = len(self.history)
        self.history.turn_began(turn.cancel, start, turn=turn.id)
        self._checkpoint_turn(turn.id, text, start)
        self._conversation_turns += 1
        try:
            notes = (self.keeper.notice_due() or "", self._memory_news() or "", self._memory_changed() or "",
                     self._instructions_changed() or "", held_changes.undone_news(self.registry, self.base) or "")
            self.history.add_user_text(text, turn=turn.id, notes=notes)
            self._loop(turn)
        except TurnDeclined as declined:
            log.info("turn %d declined by the model (%s); taken out of the history", turn.id, declined.category or "no category")
            # "Handling streaming refusals": the refused exchange must leave the context.
            self.history.drop_turn(start, None, turn=turn.id)
            turn.say(DECLINED, True)
            turn.emit(Notice(turn.id, declined.notice()))
        except TurnCancelled as stop:
            log.info("turn %d cancelled by the user", turn.id)
            self.history.close_turn(start, CANCELLED_NOTE, stop.shown, turn=turn.id)
            return True
        except TurnFailed as failed:
            turn.emit(AgentError(turn.id, failed.message))
            log.error(
                "turn %d failed: %s [%s]", turn.id, failed.message, claude.error_detail(failed.error),
                exc_info=traceback_worth_keeping(failed.error),
            )
            if failed.refused:
                log.info("turn %d taken out of the history: the API refused the request", turn.id)
                self.history.drop_turn(start, failed.message, turn=turn.id)
            else:
                self.history.close_turn(start, FAILED_NOTE.format(reason=failed.message), failed.shown, turn=turn.id)
        except Exception as err:  # a bug of ours must not take the app down
            message = f"The turn failed unexpectedly: {type(err).__name__}: {err}"
            turn.emit(AgentError(turn.id, message))
            log.exception("turn %d failed unexpectedly", turn.id)
            # Where it broke is unknown: the turn goes, so a bad message cannot stay.
            self.history.drop_turn(start, message, turn=turn.id)
        finally:
            self.memory_watch.learn(self.history.messages[start:])
        return False

    def _loop(self, turn: TurnState) -> None:
        for _ in range(self.config.max_api_calls_per_turn):
            if turn.cancel.cancelled:
                raise TurnCancelled()
            stop_if_moved(self.root, self.repo)
            reply = self._call_with_retries(turn)
            compaction.report(self.keeper, turn, reply)
            if reply.content:
                self.history.append({"role": "assistant", "content": reply.content}, turn=turn.id)
            if reply.stop_reason in ("pause_turn", "compaction"):
                # Not finished: the history goes back as it is and the model goes on.
                continue
            if reply.stop_reason == "refusal":
                details = reply.stop_details or {}
                raise TurnDeclined(str(details.get("explanation") or ""), str(details.get("category") or ""))
            if reply.stop_reason == "model_context_window_exceeded":
                # The window is full: the next turn starts from devagent's own summary.
                self.keeper.overflowed = True
                raise TurnFailed(WINDOW_FULL)
            if reply.stop_reason != "tool_use" or not reply.tool_uses:
                if reply.stop_reason == "max_tokens":
                    raise TurnFailed(OUTPUT_LIMIT)
                return
            ctx = ToolContext(repo=self.repo, cancel=turn.cancel, config=self.config,
                              consent=self.trust.bound(turn), checkpoint=self.turn_checkpoint,
                              commands=self.commands.bound(turn), turn=turn.id, root=self.root)
            ran = run_tools(self.registry, ctx, turn, reply, self.instructions.reading_note)
            results = held_changes.settle(self.registry, turn, ctx, ran)
            self.history.append({"role": "user", "content": results}, turn=turn.id)
            stop_if_moved(self.root, self.repo)
            if turn.cancel.cancelled:
                raise TurnCancelled()
        raise TurnFailed(
            f"Stopped after {self.config.max_api_calls_per_turn} calls to Claude in one turn; ask again more narrowly."
        )

    def _call_with_retries(self, turn: TurnState) -> Reply:
        """One API call, retried with backoff on 429, 529, 5xx and lost connections as long as
        nothing of the reply has reached the user yet. Each attempt adds its own usage to the
        turn (agent.loop.stream)."""
        attempt = 0
        while True:
            params = claude.with_extras(
                claude.request_params(self.config, system=self.system, tools=self.tool_definitions, messages=self.messages),
                self.keeper.request_extras(),
            )
            try:
                return stream_reply(self._streaming_client(), params, turn, self.config.model)
            except TurnFailed as failed:
                if self._refused_betas(failed.error, turn):
                    continue
                delay = None
                if failed.cause is not None and attempt < self.config.max_retries:
                    delay = claude.retry_delay(failed.cause, attempt)
                if delay is None:
                    raise
                log.warning(
                    "turn %d: the call failed before any words were shown; retry %d of %d in %.2f s [%s]",
                    turn.id, attempt + 1, self.config.max_retries, delay, claude.error_detail(failed.error),
                    exc_info=traceback_worth_keeping(failed.error),
                )
            attempt += 1
            if turn.cancel.wait(delay):
                raise TurnCancelled()

    # --- the end --------------------------------------------------------------------------

    def close(self) -> None:
        """Ends the session; summary mode spends one more call writing notes for the next one."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._save_summary()

    def withdraw(self, cancel: Cancellation) -> str | None:
        """Take the turn run under `cancel` back, once it has ended: out of the history when
        it is the last, and what it wrote by itself (code writes `auto`) put back. A sentence
        for the user when it had written files, else None."""
        editor = held_changes.editor_of(self.registry)
        with self._lock:
            self.history.withdraw_turn(cancel)
            return None if editor is None else editor.undo_turn(cancel, self.base)

    def new_conversation(self) -> None:
        """Forgets the conversation so far and starts another, as a new session would, but
        without replaying this one: a new transcript, the memory folder read again, and in
        summary mode the notes on the conversation that ends. Waits for a running turn."""
        with self._lock:
            self._save_summary()
            self.started = self.now()
            mode = self.config.memory_mode
            if mode in REPLAY_MODES:
                self.start = SessionStart()  # replaying would bring this one back
            else:
                self.start = memory_modes.prepare(
                    mode, self.repo, store=self.store, window_turns=self.config.window_turns, now=self.started
                )
            self._begin_conversation()

    def _save_summary(self) -> None:
        if self.config.memory_mode != "summary" or self._conversation_turns == 0:
            return
        notes = self._write_summary()
        if notes and self.transcript is not None:
            try:
                self.transcript.add_summary(notes, time=self.now())
            except Exception as err:
                log.warning("transcript %s: the summary was not saved: %s", self.transcript.path, err)

    def _write_summary(self, ask: str | None = None, messages: list[dict[str, Any]] | None = None) -> str | None:
        if api_key_problem() and self._client is None:
            return None
        if messages is None:
            messages = self.history.with_request([{"type": "text", "text": ask or prompts.summary_request()}])
        notes, usage = summary_call.write(self.client, self.config, system=self.system, tools=self.tool_definitions,
                                          messages=messages, extras=self.keeper.request_extras())
        if usage is not None:
            self.usage = self.usage + usage
        return notes

    def _refused_betas(self, error: BaseException | None, turn: TurnState) -> bool:
        """True when the API refused context management: the call goes again without it."""
        status = getattr(error, "status_code", None)
        if error is None or not self.keeper.refuse(status, claude.describe_api_error(error)):
            return False
        log.warning("turn %d: context management refused, going on without it [%s]", turn.id, claude.error_detail(error))
        turn.emit(Notice(turn.id, self.keeper.refusal_notice()))
        return True

    def _transcript_notice(self, emit: Sink, turn: int) -> None:
        """A transcript that cannot be written (a full disk) is said once, not only logged."""
        problem = self.transcript.problem if self.transcript is not None else None
        if problem and problem != getattr(self, "_told_transcript", None):
            emit(Notice(turn, problem))
        self._told_transcript = problem

    def _save_turn(self, turn: int, usage: Usage, cancelled: bool) -> None:
        if self.transcript is not None:
            try:
                self.transcript.add_turn(turn, usage.to_dict(), time=self.now(), cancelled=cancelled)
            except Exception as err:
                log.warning("transcript %s: turn %d's usage was not saved: %s", self.transcript.path, turn, err)
        self.memory_watch.save_known(self.transcript, self.now())

