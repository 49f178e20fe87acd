"""Voice for the app, behind the seam the TUI defines (tui/turns/voice.py).

It implements the `VoiceController` protocol of tui/turns/voice.py. The app is a
`VoiceApp`: `call_from_thread`, `set_voice_state` (taking a VoiceStatus), `submit_turn`,
`repo` and `store`, so this module needs no Textual. Events from the
push-to-talk machine arrive on audio and worker threads; one dispatcher thread hands
them to the app, newest status line only, so a slow UI never stalls the recorder.

A tentative transcript (agent/voice/push_to_talk.py) is submitted at once, but the reply
it brings is not spoken until the recording confirms it: while the microphone listens
through the grace window the speaker keeps quiet (it would hear itself), and a withdrawn
question must leave nothing said. The app withdraws the turn (`withdraw_turn`) before the
whole question is submitted.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.voice.push_to_talk import (
    LevelChanged,
    PttEvent,
    PttState,
    RecordingDiscarded,
    StateChanged,
    TranscriptConfirmed,
    TranscriptReady,
    TranscriptWithdrawn,
    VoiceUnavailable,
)
from agent.voice.status import VoiceStatus, voice_off

if TYPE_CHECKING:
    from agent.voice.stack import VoiceStack
    from agent.voice.tts import Speaker
    from memory.seam import Store

METER = "▁▂▃▄▅▆▇█"
METER_INTERVAL = 0.1

# Makes the stack from the repository and the sink of push-to-talk events (tests, benchmarks).
StackFactory = Callable[[Path, Callable[[PttEvent], None]], "VoiceStack"]
# What the dispatcher hands the app: ("status", VoiceStatus), or a transcript for the app's
# method of that name (submit_turn, submit_tentative, withdraw_turn, confirm_turn), or None
# for one that takes nothing (prepare_turn); or does
# itself, in the same order: ("hold", None) the reply's voice, ("release", keep: bool) it.
# None ends it.
_Entry = tuple[str, Any] | None


class VoiceApp(Protocol):
    """What the controller needs of the app (DevAgentApp is one); Textual's App supplies
    call_from_thread, which runs a function on the UI thread."""

    repo: Path

    @property
    def store(self) -> Store | None: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...

    def set_voice_state(self, status: VoiceStatus) -> None: ...

    # These four run on the UI thread through call_from_thread, which awaits them when they
    # are coroutines (the app's are): what they return is not read.
    def submit_turn(self, text: str) -> object: ...

    def withdraw_turn(self, text: str) -> object:
        """A submitted transcript the speaker went on from: its turn goes, unspoken, from the
        conversation and the history (optional: without it the turn runs on)."""

    def submit_tentative(self, text: str) -> object:
        """A transcript that may still be withdrawn (optional: else submit_turn); what
        cannot be taken back, such as a spoken "apply", should wait for confirm_turn."""

    def confirm_turn(self, text: str) -> object:
        """The tentative transcript `text` stands: nothing was said after it (optional)."""

    def prepare_turn(self) -> object:
        """A question is being recorded: get ready what its turn will need, such as the
        connection to the API (optional)."""


def meter(levels: Iterable[float]) -> str:
    return "".join(METER[min(len(METER) - 1, int(level * len(METER)))] for level in levels)


class VoiceController:
    def __init__(self, *, stack_factory: StackFactory | None = None, stt_model: str | None = None,
                 voice: str | None = None, speak: bool = True, talk_key: str = "F2") -> None:
        self._factory = stack_factory
        self._talk_key = talk_key  # as the status line names it
        self._stt_model, self._voice, self._speak = stt_model, voice, speak
        self.stack: VoiceStack | None = None
        self.app: VoiceApp | None = None
        self.loaded = threading.Event()
        self._outbox: queue.Queue[_Entry] = queue.Queue()
        self._levels: deque[float] = deque(maxlen=6)
        self._closed = False
        self._last_meter = 0.0
        # the reply of a tentative transcript, held until the recording confirms it
        self._hold_lock = threading.Lock()
        self._holding = False
        self._held: list[str] = []
        self._held_finished = False

    # -- the seam ---------------------------------------------------------------------

    def attach(self, app: VoiceApp) -> None:
        self.app = app
        self._status(VoiceStatus("loading"))
        threading.Thread(target=self._dispatch, args=(app,), name="voice-ui", daemon=True).start()
        threading.Thread(target=self._load, args=(app,), name="voice-load", daemon=True).start()

    def push_to_talk(self) -> None:
        if self.stack is None:
            self._status(VoiceStatus("loading", detail="still"))
            return
        self.stack.push_to_talk.toggle()

    def cancel(self) -> bool:
        if self.stack is None:
            return False
        speaker = self.stack.speaker
        was_speaking = bool(speaker is not None and speaker.speaking)
        dropped = self.stack.push_to_talk.escape()  # also silences the speaker
        return dropped or was_speaking

    def turn_started(self) -> None:
        """A question went to the model: get the voice ready for the reply while the model
        thinks (optional for the app to call; the first streamed text resumes the output
        stream, but does not warm the voice: that would delay the first sentence)."""
        speaker = self._speaker()
        if speaker is not None:
            speaker.warm()

    def reply_delta(self, text: str) -> None:
        with self._hold_lock:
            if self._holding:
                self._held.append(text)
                return
        speaker = self._speaker()
        if speaker is not None:
            speaker.feed(text)

    def progress(self, sentence: str) -> None:
        """A progress note between tool calls, said only into silence: a note heard late,
        over the reply or another note, is worse than none. Not for a tentative turn."""
        with self._hold_lock:
            if self._holding:
                return
        speaker = self._speaker()
        if speaker is None or speaker.speaking:
            return
        from agent.voice.speakable import speakable_reply

        said = speakable_reply(sentence)
        if said:
            speaker.speak(said)

    def reply_finished(self, cancelled: bool) -> None:
        with self._hold_lock:
            if self._holding:
                if cancelled:
                    self._held = []
                self._held_finished = not cancelled
                return
        speaker = self._speaker()
        if speaker is None:
            return
        if cancelled:
            speaker.stop()
        # After a stop this only closes the reply, so the next one is spoken again.
        speaker.flush()

    def build_finished(self, log: str) -> None:
        """A build or test run's log: its diagnostic codes are the words the user is
        likeliest to say next, so they lead the vocabulary from the next recording on."""
        if self.stack is not None:
            self.stack.push_to_talk.learn_build(log)

    def close(self) -> None:
        self._closed = True
        stack = self.stack
        if stack is not None:
            try:
                stack.push_to_talk.escape()
                if stack.speaker is not None:
                    stack.speaker.close()
            except Exception:
                pass
        self._outbox.put(None)

    # -- beyond the seam --------------------------------------------------------------

    def enter(self) -> bool:
        """Enter while recording stops it; False lets the input box have the key."""
        return bool(self.stack is not None and self.stack.push_to_talk.enter())

    def toggle_mute(self) -> bool:
        speaker = self._speaker()
        if speaker is None:
            return True
        muted = speaker.toggle_mute()
        self._status(self._ready_line())
        return muted

    @property
    def state(self) -> PttState | None:
        return None if self.stack is None else self.stack.push_to_talk.state

    # -- internals --------------------------------------------------------------------

    def _speaker(self) -> Speaker | None:
        return None if self.stack is None else self.stack.speaker

    def _load(self, app: VoiceApp) -> None:
        from agent.voice.priority import yield_to_app

        yield_to_app()  # seconds of CPU, and the models' thread pools are started from here
        try:
            if self._factory is not None:
                stack = self._factory(app.repo, self._on_event)
            else:
                from agent.voice.stack import load_voice

                stack = load_voice(app.repo, self._on_event, store=app.store,
                                   stt_model=self._stt_model, voice=self._voice, speak=self._speak)
        except Exception as error:  # load_voice never raises; a custom factory might
            from agent.voice.status import describe_error

            self._status(voice_off(describe_error(error, "voice failed to start")))
            self.loaded.set()
            return
        self.stack = stack
        if stack.reason:
            self._status(voice_off(stack.reason))
        else:
            self._status(self._ready_line())
        self.loaded.set()

    def _ready_line(self, note: str = "") -> VoiceStatus:
        """Ready, with the talk key; `note` says what just happened ("heard nothing")."""
        stack = self.stack
        if stack is None:
            return VoiceStatus("loading")
        key = f"({self._talk_key})" + (f" {stack.model}" if stack.model else "")
        if stack.speaker_problem:
            return VoiceStatus("ready", stack.speaker_problem, f"{key}, silent")
        if stack.speaker is not None and stack.speaker.muted:
            return VoiceStatus("ready", note, f"{key}, muted")
        return VoiceStatus("ready", note, key)

    def _on_event(self, event: PttEvent) -> None:
        match event:
            case LevelChanged():
                self._levels.append(event.level)
                # Ten repaints a second is a smooth meter; thirty would keep the UI busy.
                now = time.monotonic()
                if now - self._last_meter >= METER_INTERVAL:
                    self._last_meter = now
                    self._status(VoiceStatus("recording", detail=f"{event.elapsed:.1f}s {meter(self._levels)}"))
            case StateChanged(state=PttState.RECORDING):
                self._levels.clear()
                self._status(VoiceStatus("recording", detail="0.0s"))
                self._get_ready()
            case StateChanged(state=PttState.TRANSCRIBING):
                self._status(VoiceStatus("transcribing"))
            case StateChanged(state=PttState.IDLE) if self.stack is not None:
                self._status(self._ready_line())
            case TranscriptReady() if event.text.strip():
                if event.tentative:
                    self._outbox.put(("hold", None))
                self.turn_started()
                self._outbox.put(("submit_tentative" if event.tentative else "submit_turn", event.text.strip()))
            case TranscriptWithdrawn():
                self._outbox.put(("withdraw_turn", event.text.strip()))
                self._outbox.put(("release", False))
            case TranscriptConfirmed():
                self._outbox.put(("confirm_turn", event.text.strip()))
                self._outbox.put(("release", True))
            case RecordingDiscarded(reason="escape"):
                self._outbox.put(("release", False))
            case TranscriptReady() | RecordingDiscarded(reason="no speech"):
                self._status(self._ready_line("heard nothing"))
            case VoiceUnavailable():
                self._status(voice_off(event.reason))

    def _get_ready(self) -> None:
        """The user has begun a question and the machine waits on them: the voice warms
        (its output stream, and the model after an idle spell) and the app readies the
        turn now, not once the transcript is there."""
        speaker = self._speaker()
        if speaker is not None:
            speaker.warm()
        self._outbox.put(("prepare_turn", None))

    def _status(self, status: VoiceStatus) -> None:
        self._outbox.put(("status", status))

    def _dispatch(self, app: VoiceApp) -> None:
        while True:
            item = self._outbox.get()
            batch = [item]
            while True:
                try:
                    batch.append(self._outbox.get_nowait())
                except queue.Empty:
                    break
            latest_status = None
            for entry in batch:
                if entry is None:
                    return
                kind, value = entry
                if kind == "status":
                    latest_status = value
                    continue
                if kind == "hold":
                    self._start_holding()
                    continue
                if kind == "release":
                    self._hold(value)
                    continue
                # A transcript goes after the status lines that came before it.
                if latest_status is not None:
                    self._call(app, app.set_voice_state, latest_status)
                    latest_status = None
                # all but submit_turn are optional: without them a tentative text is a plain one
                handler = getattr(app, kind, None)
                if handler is None and kind == "submit_tentative":
                    handler = app.submit_turn
                if handler is not None:
                    self._call(app, handler, *(() if value is None else (value,)))
            if latest_status is not None:
                self._call(app, app.set_voice_state, latest_status)

    def _start_holding(self) -> None:
        with self._hold_lock:
            self._holding, self._held, self._held_finished = True, [], False

    def _hold(self, keep: bool) -> None:
        """The hold ends: the held reply is spoken (`keep`) or dropped. On the dispatcher
        thread, after the app has taken what came before (a withdrawal above all), so no
        word of a withdrawn turn can slip past it."""
        with self._hold_lock:
            if not self._holding:
                return
            held, finished = self._held, self._held_finished
            self._holding, self._held, self._held_finished = False, [], False
        if not keep:
            return
        speaker = self._speaker()
        if speaker is None:
            return
        for text in held:
            speaker.feed(text)
        if finished:
            speaker.flush()

    def _call(self, app: VoiceApp, function: Callable[..., None], *args: Any) -> None:
        if self._closed:
            return
        try:
            app.call_from_thread(function, *args)
        except Exception:
            pass  # the app is shutting down
