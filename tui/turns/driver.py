"""The turns and their state: the session (started at launch), the live turn, what it waits
for, the questions queued behind it, its cancellation.

Not a widget, and the one owner of a turn's state: the app asks the driver to load,
start, queue, cancel and close; the main screen reads what the turn waits for and tells
it when a change is held. Events come back through the inbox, where every agent event
of a turn arrives with the token of the turn it belongs to, followed by a `TurnDone`.
Only what belongs to the live turn is shown (`accepts`), so nothing a cancelled turn
still says lands.

The work runs off the UI thread in the app's thread workers (`spawn`, Textual's
`run_worker(thread=True)`). One lock guards the driver's own state (the token, the live
turn, its cancellation). Turns themselves queue on the session's lock: a cancelled turn
still winding down in its worker holds the session until it has, and the next one waits
there, not in the UI.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.cancel import Cancellation
from agent.settings.config import AgentConfig, api_key_problem
from tui.turns.inbox import Inbox

if TYPE_CHECKING:
    from agent.events import Event
    from agent.workspace_trust import WorkspaceTrust
    from memory.seam import Store

LOADING_SDK = "the Claude SDK to load"
LOADING_SESSION = "the session to start (memory, tools)"
LOADING_CLIENT = "the API client"

# runs a function off the UI thread: the app's thread worker, under a name
Spawn = Callable[[Callable[[], None], str], object]


class TurnDriver:
    def __init__(self, repo: Path, config: AgentConfig, store: Store, wake: Callable[[], object], spawn: Spawn,
                 *, loaded: Callable[[], None] | None = None, resume: str | None = None) -> None:
        """`wake` is called (from any thread) when the inbox has something; `spawn` runs
        work off the UI thread; `loaded` once the session has loaded or failed to, on the
        loading worker. `resume`: None starts a new session, "" continues the latest saved
        one, an id that one."""
        self.repo = repo
        self.resume = resume
        self.config = config
        self.store = store
        self.inbox = Inbox(wake)
        self.session: Any = None
        self.error: str | None = None
        self.ready = threading.Event()
        # set once the session is up and no question waits on it for its first answer: what
        # can wait (the memory checks, Markdown, the voice) waits for this, so a question
        # asked at launch does not share the interpreter with them
        self.settled = threading.Event()
        # what a turn sent now would still wait for; None once the session and client are up
        self.loading_stage: str | None = LOADING_SDK
        # a held code change the turn waits on: what the status line says of it
        self.code_change_waiting: str | None = None
        # "writing src/x.py… 12 KB" while a tool's input arrives; "" otherwise
        self.writing = ""
        # the live turn showed an error: it ends without an answer, and says why
        self.said_error = False
        # a spoken "apply"/"no" waiting for its recording to end (tui.app's spoken turns)
        self.tentative_decision: str | None = None
        # the live turn is the welcome-back briefing: typing or the talk key skips it
        self.briefing = False
        # questions sent while a turn runs: (what is sent, as typed), oldest first
        self.queue: list[tuple[str, str]] = []
        self._spawn = spawn
        self.started_at = 0.0
        self._on_loaded = loaded
        self._lock = threading.Lock()
        self._loading = False
        self._token = 0
        self._live: int | None = None  # the token of the turn whose events are shown
        self._turn: int | None = None  # the session's number for that turn, once it said
        self._cancel: Cancellation | None = None
        # the turn started last: (its token, its text, its cancellation, set once it returned)
        self._last: tuple[int, str, Cancellation, threading.Event] | None = None
        # set once a withdrawn turn is out of the history: the next turn waits for it
        self._forgetting: threading.Event | None = None

    # --- the session --------------------------------------------------------------------

    def load(self) -> None:
        """Start loading the session in the background; once only, from any thread."""
        with self._lock:
            if self._loading:
                return
            self._loading = True
        self._spawn(self._load, "session-load")

    def wait_until_settled(self, timeout: float) -> None:
        """Block (a worker thread) while the session loads, and then while a question asked
        meanwhile waits for its first answer; at once when the session is not loading."""
        with self._lock:
            loading = self._loading
        if loading:
            self.settled.wait(timeout)

    def _settle_once_ready(self) -> None:
        """No question waits for a first answer any more: what waited may go, once the
        session is up."""
        if self.ready.is_set() and not self.settled.is_set():
            self.settled.set()

    def _settle_unless_asked(self) -> None:
        with self._lock:
            if self._live is None:
                self.settled.set()

    def _load(self) -> None:
        from agent.events import LoadFailed, SessionNotice
        from agent.heap import building_for_good

        try:
            self.loading_stage = LOADING_SESSION
            with building_for_good():
                session = self._open(self.resume)
                self.loading_stage = LOADING_CLIENT
                if not api_key_problem():  # without a key only what needs no model runs (a briefing from git)
                    warm_client(session)
            # set last: a question waits on the session, and then finds its client ready
            self.session = session
            waiting = session.instructions.waiting_for_trust()
            if waiting:
                self.inbox.put(0, SessionNotice(waiting))
        except Exception as exc:
            self.error = f"The agent could not start: {exc}"
            self.inbox.put(0, LoadFailed(self.error))
        finally:
            self.loading_stage = None
            self.ready.set()
            self._settle_unless_asked()
            self._prune_transcripts()
            if self._on_loaded is not None:
                self._on_loaded()

    def _prune_transcripts(self) -> None:
        """Old transcripts go once the session is up (a question asked at launch waits for
        the session, not for this), never the one this session writes."""
        from agent.conversation import saved_sessions as sessions
        transcript = getattr(self.session, "transcript", None)
        sessions.prune_for(self.config, keep=getattr(transcript, "path", None))

    def _open(self, resume: str | None) -> Any:
        """A new session, or the saved one `resume` names (saying which, or why not)."""
        from agent.loop.resume import open_saved
        from agent.loop.session import Session

        if resume is not None:
            session, said = open_saved(self.repo, self.config, resume or None, store=self.store, trust=self.trust())
            if session is None:
                said += " A new session starts instead."
            from agent.events import SessionNotice
            from tui.turns.earlier import earlier_turns

            earlier = tuple(earlier_turns(session.messages)) if session is not None else ()
            self.inbox.put(0, SessionNotice(said, earlier=earlier))
            if session is not None:
                return session
        return Session(self.repo, self.config, store=self.store, trust=self.trust())

    def trust(self) -> WorkspaceTrust:
        """The app can ask: the first tool that would run the repository's code waits for the user."""
        from agent.workspace_trust import WorkspaceTrust

        return WorkspaceTrust(self.repo, interactive=True)

    def switch_to(self, wanted: str) -> None:
        """Between turns, on a worker thread: the saved session `wanted` replaces this one."""
        from agent.events import SessionNotice

        current = self.session
        transcript = getattr(current, "transcript", None)
        if transcript is not None and wanted in transcript.path.name:
            self.inbox.put(0, SessionNotice("That is the session you are in."))
            return
        if current is not None:
            try:
                current.close()  # waits on the session's lock for a turn winding down
            except Exception:
                pass
        self.session = self._open(wanted)

    def new_conversation(self) -> None:
        """On a worker thread: the session forgets the turns so far (after a cancelled turn
        has wound down, on the session's lock)."""
        from agent.events import SessionNotice

        if self.session is not None:
            self.session.new_conversation()
            self.inbox.put(0, SessionNotice("New conversation: Claude no longer sees the turns above."))

    def prepare(self) -> None:
        """A question is on its way (being spoken): what its turn needs is made ready in the
        background (Session.prepare_turn). Nothing before the session is up."""
        session = self.session
        if session is not None and self.ready.is_set():
            threading.Thread(target=session.prepare_turn, name="prepare-turn", daemon=True).start()

    def waiting_for(self) -> str | None:
        """What the live turn still waits for before the model gets it, if anything."""
        if self.code_change_waiting:
            return self.code_change_waiting
        return None if self.ready.is_set() else self.loading_stage

    # --- questions sent while a turn runs -------------------------------------------------

    def enqueue(self, text: str, typed: str | None = None) -> None:
        """`text` goes when the turns before it have ended; `typed` as the prompt showed it."""
        self.queue.append((text, typed or text))

    def next_queued(self) -> str | None:
        return self.queue.pop(0)[0] if self.queue else None

    def unqueue(self, text: str) -> bool:
        """The newest question sent as `text` leaves the queue; False when none is there."""
        for index in range(len(self.queue) - 1, -1, -1):
            if self.queue[index][0] == text:
                del self.queue[index]
                return True
        return False

    def take_queue(self) -> list[str]:
        """Every queued question as typed, oldest first; the queue is empty after."""
        taken, self.queue = [typed for _text, typed in self.queue], []
        return taken

    # --- turns --------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._live is not None

    @property
    def cancellation(self) -> Cancellation | None:
        """The cancellation of the turn started last."""
        return self._cancel

    def decide(self, about: str, yes: bool, *, edited: str | None = None, always: bool = False,
               network: bool = False) -> bool:
        """The user's answer, handed down to the turn that asked `about`; False, and dropped,
        when no question of that id waits (answered already, its turn over). A command's yes
        carries the user's edit, "always" and the network (agent.command_consent)."""
        from agent.decisions import Decision

        session = self.session
        decision = Decision(about, yes, edited=edited, always=always, network=network)
        return session is not None and bool(session.decisions.post(decision))

    def begin(self) -> int:
        """Make a new turn the live one, with a fresh cancellation; its token."""
        with self._lock:
            self._token += 1
            self._live = self._token
            self._turn = None
            self._cancel = Cancellation()
            self.started_at = time.monotonic()
            self.writing = ""
            return self._token

    def start(self, text: str, *, briefing: bool = False) -> int:
        """Send `text` as a new turn in a thread of its own; the turn's token. A `briefing`
        turn is the welcome-back one (agent.loop.welcome_back), `text` only what it shows."""
        token = self.begin()
        self.briefing = briefing
        cancel = self._cancel
        assert cancel is not None
        self.said_error = False
        self.load()  # a turn sent in the first moments does not wait for the start-up timer
        returned, after = threading.Event(), self._forgetting
        with self._lock:
            self._last = (token, text, cancel, returned)
        self._spawn(lambda: self._run(text, token, cancel, returned, after, briefing), f"turn-{token}")
        return token

    def withdraw(self, text: str) -> str | None:
        """Take back the turn started last from `text` (a spoken question the speaker went on
        from): stopped if it runs, then out of the history, so the next request never
        holds it. "live" or "done" for what it was; None when no such turn is the last."""
        with self._lock:
            last = self._last
            if last is None or last[1] != text:
                return None
            token, _text, cancel, returned = last
            self._last = None
            live = self._live == token
            if live:
                self._live, self._turn = None, None
        self._settle_once_ready()
        cancel.cancel()

        forgotten = threading.Event()

        def forget() -> None:
            from agent.events import SessionNotice

            try:
                returned.wait()
                if self.session is not None:
                    said = self.session.withdraw(cancel)
                    if said:
                        self.inbox.put(0, SessionNotice(f"The question taken back had changed files. {said}"))
            finally:
                forgotten.set()

        self._forgetting = forgotten
        self._spawn(forget, "withdraw-turn")
        return "live" if live else "done"

    def _run(self, text: str, token: int, cancel: Cancellation, returned: threading.Event,
             after: threading.Event | None = None, briefing: bool = False) -> None:
        from agent.events import AgentError, TurnDone  # the events are built after the first frame

        def sink(event: Event) -> None:
            self.inbox.put(token, event)

        try:
            if after is not None:
                after.wait()  # a withdrawn turn leaves the history before this one is sent
            self.ready.wait()
            if cancel.cancelled:
                return
            if self.session is None:
                sink(AgentError(-1, self.error or "The agent could not start."))
                return
            if briefing:
                self.session.welcome_back(sink, cancel)
            else:
                self.session.send(text, sink, cancel)
        except Exception as exc:  # the loop reports its own errors; this is a last guard
            sink(AgentError(-1, f"The turn stopped unexpectedly: {exc}"))
        finally:
            returned.set()
            sink(TurnDone())

    def accepts(self, token: int, event: object) -> bool:
        """Whether `event` belongs to the live turn (and so is shown)."""
        from agent.events import TurnStarted

        with self._lock:
            if token != self._live:
                return False  # from a turn that was cancelled or has ended
            if isinstance(event, TurnStarted):
                self._turn = event.turn
                return True
            turn = getattr(event, "turn", -1)
            return self._turn is None or turn in (self._turn, -1)

    def answered(self) -> None:
        """The model's first answer to the live turn is on screen: what waited may go. Not
        as soon as it arrives: the imports that waited (Markdown's above all) would share
        the interpreter with the drawing of it."""
        self._settle_once_ready()

    def finish(self) -> None:
        """The live turn is over as far as the screen goes. What waited is not released
        here: the app calls `answered` after the refresh that draws the turn's end, which
        may hold the first answer too (a short reply arrives with its end, in one batch)."""
        with self._lock:
            self._live = None
            self._turn = None
            self.briefing = False

    def cancel(self) -> None:
        """Stop the live turn's stream and tools; in a thread, so the UI never waits on it."""
        with self._lock:
            cancel = self._cancel
            self._live = None
            self._turn = None
            self.briefing = False
        self._settle_once_ready()
        if cancel is not None:
            self._spawn(cancel.cancel, "cancel-turn")

    def stop(self) -> None:
        """The app is closing: the live turn stops, and nothing waits any more for a first
        answer, so every worker returns before the app joins its threads."""
        if self._cancel is not None:
            self._cancel.cancel()
        self.settled.set()

    def close(self) -> None:
        """The app has left the terminal: stop what runs, save the transcript (and notes)."""
        if self._cancel is not None:
            self._cancel.cancel()
        if self.session is not None:
            try:
                self.session.close()  # waits on the session's lock for a turn winding down
            except Exception:
                pass


def warm_client(session: Any) -> None:
    """Make the API client now, and import what the first request would import on its way."""
    session.client  # noqa: B018  (built on first use; that use is now, not the first turn)
    try:
        import opentelemetry.propagate  # noqa: F401  (the SDK's first request pulls it in)
    except Exception:
        pass
    try:
        # The first streamed event builds pydantic's validator for the event union, a
        # tenth of a second or more; build it now, through the SDK's own cache. (Its module
        # is private: if it moves, the first request simply pays as before.)
        from anthropic._models import construct_type
        from anthropic.types.beta import BetaRawMessageStreamEvent

        construct_type(type_=BetaRawMessageStreamEvent, value={"type": "message_stop"})
    except Exception:
        pass
