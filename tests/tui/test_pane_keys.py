"""Reaching a pane: F4 and F3 go straight to the memory and screen panes (a second press from
inside hides them) without scrolling the conversation; Enter on a memory reads it, where the
arrows still do something and Esc goes back; content for a hidden screen pane says so."""

from __future__ import annotations

from textual.widgets import OptionList

from tests.double.server import reply, text, tool_use
from tests.tui.conftest import screen_lines, wait_for, write_memory
from tui.widgets.conversation.lines import Notice
from tui.widgets.prompt import Prompt


def focus_in(app, widget) -> bool:
    return app.focused is not None and widget in app.focused.ancestors_with_self


async def test_f4_goes_to_the_memory_pane_and_f4_again_hides_it(make_app, store, no_key):
    write_memory(store, "a.md", "Alpha", "first", "A.")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.memory_pane.names == ["Alpha"], 10, "the pane")
        assert app.focused is app.prompt
        await pilot.press("f4")
        await pilot.pause()
        assert app.memory_pane.display and app.focused is app.query_one("#memory-list", OptionList)
        await pilot.press("f4")
        await pilot.pause()
        assert not app.memory_pane.display and app.focused is app.prompt
        await pilot.press("f4")  # hidden: shown, and the focus goes with it
        await pilot.pause(0.2)
        assert app.memory_pane.display and focus_in(app, app.memory_pane)


async def test_f3_goes_to_the_screen_pane_without_scrolling_the_conversation(make_app, claude_double):
    claude_double.add(*[reply(text("\n\n".join(f"line {i} of reply {n}" for i in range(30)))) for n in range(3)])
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        for n in range(3):
            prompt = app.query_one("#prompt", Prompt)
            prompt.value = f"question {n}"
            await pilot.press("enter")
            await wait_for(pilot, lambda n=n: len(claude_double.messages_requests()) == n + 1 and not app.running, 20, "the turn")
        await wait_for(pilot, lambda: any("line 29 of reply 2" in row for row in screen_lines(app)), 10, "the last reply")
        await pilot.pause(0.3)
        scrolled = app.conversation.scroll_y
        assert scrolled > 0
        await pilot.press("f3")
        await pilot.pause(0.2)
        assert focus_in(app, app.screen_pane)
        await pilot.press("f4")
        await pilot.pause(0.2)
        assert focus_in(app, app.memory_pane)
        assert app.conversation.scroll_y == scrolled
        await pilot.press("f3")  # from the memory pane: to the screen pane, not hidden
        await pilot.pause(0.2)
        assert focus_in(app, app.screen_pane) and app.screen_pane.display
        await pilot.press("f3")
        await pilot.pause(0.2)
        assert not app.screen_pane.display and app.focused is app.prompt


async def test_reading_a_memory_keeps_the_arrows_and_esc_goes_back(make_app, store, no_key):
    for name in ("Alpha", "Bravo", "Charlie"):
        write_memory(store, f"{name.lower()}.md", name, name.lower(), f"{name} body.")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: len(app.memory_pane.names) == 3, 10, "the pane")
        await pilot.press("f4")
        await pilot.pause()
        first = app.memory_pane.selected_path
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is app.query_one("#memory-preview")
        assert "Back to list" in screen_lines(app)[-1]
        await pilot.press("down")  # the text fits: the next memory
        await pilot.pause()
        assert app.memory_pane.selected_path != first
        assert app.focused is app.query_one("#memory-preview")
        await pilot.press("up")
        await pilot.pause()
        assert app.memory_pane.selected_path == first
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.query_one("#memory-list", OptionList)


async def test_content_for_a_hidden_screen_pane_says_so_in_the_conversation(make_app, claude_double):
    claude_double.add(
        reply(tool_use("show_on_screen", {"title": "The table", "content": "| a | b |\n|---|---|\n| 1 | 2 |", "format": "markdown"})),
        reply(text("The table is on screen.")),
    )
    app = make_app(memory_mode="none")
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.screen_pane.display
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "a table please"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 2 and not app.running, 20, "the turn")
        await pilot.pause(0.3)
        notices = [str(n.render()) for n in app.query(Notice)]
        assert any("The table" in n and "F3" in n for n in notices), notices


async def test_a_memory_written_while_the_pane_is_hidden_is_marked(make_app, store, no_key):
    write_memory(store, "a.md", "Alpha", "first", "A.")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.memory_pane.names == ["Alpha"], 10, "the pane")
        await pilot.press("f4", "f4")
        await pilot.pause()
        assert not app.memory_pane.display and app.status.info.hidden == ""
        write_memory(store, "b.md", "Bravo", "second", "B.")
        await wait_for(pilot, lambda: "memory: 1 new" in app.status.info.hidden, 10, "the mark")
        assert "(F4)" in app.status.render().plain
        await pilot.press("f4")
        await pilot.pause()
        assert app.memory_pane.display and app.status.info.hidden == ""


def test_the_panes_words_name_the_keys_that_work():
    from types import SimpleNamespace

    from tui.widgets.memory import pane as memory_pane
    from tui.widgets.memory import trust_view as memory_trust
    from tui.widgets.memory.pane import MemoryPane

    bound = {b.key for b in MemoryPane.BINDINGS}
    change = SimpleNamespace(summary="edit /memories/a.md", created="2026-11-09T09:00", status="pending",
                             note="", diff=lambda: "")
    said = memory_trust.diff_preview(change).plain
    assert "Ctrl+Y" in said and "Ctrl+X" in said and {"ctrl+y", "ctrl+x"} <= bound
    assert "Ctrl+W" in memory_pane.EMPTY and "ctrl+w" in bound
    assert not any(k.isalpha() and len(k) == 1 for k in bound)  # no letter is a command


async def test_a_key_pressed_again_does_not_stack_its_toast(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        for _ in range(4):
            await pilot.press("f8")
        await pilot.pause()
        said = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert len([t for t in said if "80 columns" in t]) == 1, said


async def test_a_toast_still_showing_is_not_stacked_again_after_another(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("f8", "f8")  # cannot grow at 80 columns: says why
        await pilot.pause()
        await pilot.press(*["f7"] * 4)  # past the narrowest: says so
        await pilot.pause()
        await pilot.press("f8", "f8", "f8")  # the first sentence again, while it still shows
        await pilot.pause(0.3)
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert len([t for t in toasts if "80 columns" in t]) == 1, toasts
        assert len([t for t in toasts if "as narrow as it goes" in t]) == 1, toasts


async def a_turn_with_tool_lines(pilot, claude_double, calls: int = 8) -> None:
    """A turn of `calls` tool lines and a reply long enough to scroll, the newest at the bottom."""
    app = pilot.app
    claude_double.add(reply(*[tool_use("git_status", {}) for _ in range(calls)]),
                      reply(text("\n\n".join(f"line {i} of the answer" for i in range(40)))))
    app.query_one("#prompt", Prompt).value = "what changed"
    await pilot.press("enter")
    await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 2 and not app.running, 20, "the turn")
    await wait_for(pilot, lambda: any("line 39 of the answer" in row for row in screen_lines(app)), 10, "the end")
    await pilot.pause(0.3)


async def test_tab_goes_round_the_panes_in_a_handful_of_presses_without_scrolling(make_app, claude_double, store):
    write_memory(store, "a.md", "Alpha", "first", "A.")
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await a_turn_with_tool_lines(pilot, claude_double)
        assert len(app.conversation.tool_lines()) == 8
        scrolled = app.conversation.scroll_y
        assert scrolled > 0
        order = [app.conversation, app.query_one("#screen-body"), app.query_one("#memory-list"),
                 app.query_one("#memory-preview"), app.prompt]
        for expected in order:
            await pilot.press("tab")
            await pilot.pause()
            assert app.focused is expected, (expected, app.focused)
            assert app.conversation.scroll_y == scrolled
        for expected in reversed(order[:-1]):
            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.focused is expected, (expected, app.focused)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is app.prompt and app.conversation.scroll_y == scrolled


async def test_f12_goes_to_the_conversation_where_the_arrows_pick_a_tool_line(make_app, claude_double):
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await a_turn_with_tool_lines(pilot, claude_double, calls=3)
        first, second, last = app.conversation.tool_lines()
        await pilot.press("f12")
        await pilot.pause()
        assert app.focused is app.conversation
        assert "Tool lines" in screen_lines(app)[-1] and "Conversation" in screen_lines(app)[-1]
        await pilot.press("up")  # the nearest tool line above, brought into view
        assert app.conversation.picked is last and last.has_class("-picked")
        assert app.conversation.scroll_y <= last.virtual_region.y
        await pilot.press("up", "up")
        assert app.conversation.picked is first
        await pilot.press("down")
        assert app.conversation.picked is second
        await pilot.press("enter")  # what Enter on a focused tool line did: its log
        await pilot.pause(0.2)
        assert app.screen_pane.current.title.startswith("git_status") and app.screen_pane.display
        assert app.focused is app.conversation
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.prompt
        await pilot.press("f12", "f12")  # the key again: back to the prompt
        await pilot.pause()
        assert app.focused is app.prompt
        await pilot.click(last)  # a click opens a log too, and picks its line
        await pilot.pause(0.2)
        assert app.conversation.picked is last and app.focused is app.conversation


async def test_f12_on_a_narrow_terminal_brings_the_conversation_back(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f3")
        await pilot.pause(0.2)
        assert app.screen_pane.display and not app.conversation.display
        await pilot.press("f12")
        await pilot.pause(0.2)
        assert app.conversation.display and not app.screen_pane.display
        assert app.focused is app.conversation
