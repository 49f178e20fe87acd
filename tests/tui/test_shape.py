"""The pieces the app is built from: the turn driver, the pane layout, the voice types, the CLI."""

from __future__ import annotations

import threading

from textual.app import App

from agent.events import TextDelta, TurnDone, TurnFinished, TurnStarted
from agent.voice.status import VoiceStatus, voice_off
from tests.double.server import reply, text
from tui.turns.driver import TurnDriver
from tui.widgets.panes import WIDE


async def drive(pilot, driver: TurnDriver, until, timeout: float = 120) -> list:
    """What the driver's inbox held, as (token, event), until `until(items)` holds."""
    import time

    items: list = []
    deadline = time.monotonic() + timeout
    while not until(items):
        assert time.monotonic() < deadline, items
        await pilot.pause(0.05)
        items.extend(driver.inbox.take())
    return items


def thread_workers(app: App):
    """The driver's way off the UI thread, as the app gives it: Textual's thread workers."""
    return lambda work, name: app.run_worker(work, name=name, thread=True)


async def test_the_driver_runs_a_turn_and_says_when_its_thread_is_done(repo, store, claude_double):
    from agent.settings.config import AgentConfig

    claude_double.add(text("Hello there."))
    loaded = threading.Event()
    async with App().run_test() as pilot:
        driver = TurnDriver(repo, AgentConfig(thinking="off"), store, lambda: None, thread_workers(pilot.app),
                            loaded=loaded.set)
        token = driver.start("hi")
        items = await drive(pilot, driver, lambda items: any(isinstance(e, TurnDone) for _, e in items))
        assert loaded.is_set() and driver.session is not None and driver.loading_stage is None
        events = [e for t, e in items if t == token]
        assert isinstance(events[0], TurnStarted) and isinstance(events[-1], TurnDone)
        assert isinstance(events[-2], TurnFinished)
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there."
        assert all(driver.accepts(token, e) for e in events)
        driver.finish()
        assert not driver.running and not driver.accepts(token, events[1])
        driver.close()


async def test_a_cancelled_turn_says_nothing_the_app_would_show(repo, store, claude_double):
    from agent.settings.config import AgentConfig

    claude_double.add(reply("slowly " * 400, chunk=7, delay=0.01))
    claude_double.add(text("Fresh."))
    async with App().run_test() as pilot:
        driver = TurnDriver(repo, AgentConfig(thinking="off"), store, lambda: None, thread_workers(pilot.app))
        first = driver.start("talk slowly")
        await drive(pilot, driver, lambda items: any(isinstance(e, TextDelta) for _, e in items))
        driver.cancel()
        assert not driver.running  # at once; the cancellation itself runs in a worker
        while not driver.cancellation.cancelled:
            await pilot.pause(0.01)
        second = driver.start("next")
        items = await drive(pilot, driver, lambda items: any(t == second and isinstance(e, TurnDone) for t, e in items))
        late = [e for t, e in items if t == first]
        assert late and not any(driver.accepts(first, e) for e in late)
        shown = [e for t, e in items if t == second and driver.accepts(t, e)]
        assert "".join(e.text for e in shown if isinstance(e, TextDelta)) == "Fresh."
        driver.close()


async def test_narrow_is_the_screen_class_the_stylesheet_uses(make_app, no_key):
    for width, narrow in ((WIDE - 1, True), (WIDE, False)):
        app = make_app()
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            assert app.screen.has_class("-narrow") is narrow
            assert app.panes.narrow is narrow
            # the layout follows from it: the screen pane shows beside the conversation only when wide
            assert app.screen_pane.display is not narrow and app.conversation.display


def test_voice_status_is_one_type_with_its_parts():
    off = voice_off("no audio input device")
    assert off.off and off.reason == "no audio input device"
    assert str(off) == "voice: off — no audio input device" and off.short() == "voice: off"
    ready = VoiceStatus("ready", "heard nothing", "(F2)")
    assert not ready.off and str(ready) == "voice: ready (F2) — heard nothing"
    assert VoiceStatus("recording", detail="1.2s ▁▃").short() == "● rec 1.2s ▁▃"


def test_the_real_controller_has_every_member_the_app_uses():
    from agent.voice.controller import VoiceController
    from tui.turns.voice import VoiceController as Seam

    assert isinstance(VoiceController(), Seam)
