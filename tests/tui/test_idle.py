"""An idle app does nothing: no short timer runs unless a turn or the typing needs it."""

from __future__ import annotations

from collections import Counter

from textual.message_pump import MessagePump

from tests.double.server import text
from tests.tui.conftest import wait_for, write_memory
from tui.widgets import prompt as prompt_module

# anything repeating faster than this would show on the idle benchmark
SHORT = 1.0


class ShortTimers:
    """The timers set to repeat faster than SHORT from now on, by name, and their ticks.

    Every node sets its timers through set_interval; wrapped, it gives each such timer a
    callback that counts its ticks. A paused or stopped timer does not tick."""

    def __init__(self, monkeypatch) -> None:
        self.made: list[str] = []
        self.ticks: Counter[str] = Counter()
        set_interval = MessagePump.set_interval

        def counting(node, interval, callback=None, *args, **kwargs):
            if callback is not None and interval < SHORT:
                name = f"{type(node).__name__}.{getattr(callback, '__name__', 'timer')}"
                self.made.append(name)
                callback = self._counted(name, callback)
            return set_interval(node, interval, callback, *args, **kwargs)

        monkeypatch.setattr(MessagePump, "set_interval", counting)

    def _counted(self, name, callback):
        def tick():
            self.ticks[name] += 1
            return callback()

        return tick

    async def ticking(self, pilot) -> list[str]:
        """The short timers that tick over a spell long enough for any of them to tick."""
        self.ticks.clear()
        await pilot.pause(SHORT * 1.5)
        return sorted(self.ticks)


async def test_an_idle_app_runs_no_short_timer(make_app, no_key, monkeypatch):
    monkeypatch.setattr(prompt_module, "BLINK_SECONDS", 0.3)
    timers = ShortTimers(monkeypatch)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: not app.prompt.cursor_blink, 5, "the cursor to stop blinking")
        await pilot.pause(0.1)
        assert await timers.ticking(pilot) == []
        await pilot.press("h")  # a key: the cursor blinks again, for a while
        assert app.prompt.cursor_blink
        await wait_for(pilot, lambda: not app.prompt.cursor_blink, 5, "the cursor to stop again")


async def test_the_activity_timer_runs_only_while_a_turn_does(make_app, claude_double, monkeypatch):
    monkeypatch.setattr(prompt_module, "BLINK_SECONDS", 0.3)
    claude_double.add(text("Done."))
    timers = ShortTimers(monkeypatch)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 120, "the session")
        await app.submit_turn("a question")
        assert any(name.endswith("tick_activity") for name in timers.made)
        # the status is cleared once the turn's end has been shown, just after it stops running
        await wait_for(pilot, lambda: not app.running and app.status.info.activity == "", 60, "the turn's end")
        await wait_for(pilot, lambda: not app.prompt.cursor_blink, 5, "the cursor to stop blinking")
        await pilot.pause(0.2)
        assert await timers.ticking(pilot) == []


async def test_a_periodic_reread_that_finds_nothing_new_redraws_nothing(make_app, no_key, store):
    write_memory(store, "user_short.md", "Short answers", "one or two sentences", "Keep it short.", age_days=3)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.memory_pane
        await wait_for(pilot, lambda: pane.loads >= 1, 10, "the first listing")
        await pilot.pause(0.3)  # the staleness step, if any
        loads = pane.loads
        pane.reload()
        await pilot.pause(0.5)
        assert pane.loads == loads
        write_memory(store, "user_other.md", "Another", "a second note", "More.")
        await wait_for(pilot, lambda: "Another" in pane.names, 10, "the new memory")


def cursor_drawn(prompt) -> bool:
    cursor = prompt.get_component_rich_style("text-area--cursor")
    line = prompt.render_line(0)
    return any(segment.style is not None and segment.style.bgcolor == cursor.bgcolor for segment in line)


async def test_the_cursor_stays_lit_when_it_stops_blinking(make_app, no_key, monkeypatch):
    monkeypatch.setattr(prompt_module, "BLINK_SECONDS", 0.8)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(5):  # whichever phase of the blink it stops in
            await pilot.press("a")
            await wait_for(pilot, lambda: not app.prompt.cursor_blink, 5, "the cursor to stop blinking")
            await pilot.pause(0.05)
            assert cursor_drawn(app.prompt)
            await pilot.pause(0.25)


async def test_a_tick_after_the_screen_has_gone_ends_the_clock_quietly(make_app, claude_double, monkeypatch):
    # quitting while a change waits for the user: the screen's widgets go before the app's
    # timers, and a last tick found no status line (a traceback on the way out)
    from tests.tui.test_code_review import held_change

    timers = ShortTimers(monkeypatch)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await held_change(pilot, app, claude_double)
        assert app.running and "StatusLine.tick_activity" in await timers.ticking(pilot)
        await app.status.remove()
        await timers.ticking(pilot)  # its next ticks find no status line: the app goes on
        # and the clock has stopped
        assert "StatusLine.tick_activity" not in await timers.ticking(pilot)
        assert app.is_running and app.running
