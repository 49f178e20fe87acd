"""Where typed keys go: the prompt, whatever was focused, and never into a destructive answer."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, TextArea

from tests.tui.conftest import memory_text, notified, type_text, wait_for, write_memory
from tui.screens.confirm import Confirm
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.screens.memory_editor import MemoryEditor
from tui.widgets.memory.pane import MemoryPane


async def pane_focused(pilot, count: int = 1) -> MemoryPane:
    app = pilot.app
    pane = app.query_one(MemoryPane)
    await wait_for(pilot, lambda: len(pane.names) == count, 10, "the memory pane")
    app.query_one("#memory-list", OptionList).focus()
    await pilot.pause()
    return pane


async def test_a_sentence_typed_on_the_memory_pane_lands_in_the_prompt(make_app, store, no_key):
    path = write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pane_focused(pilot)
        await type_text(pilot, "why does my build fail")
        await pilot.pause()
        assert app.prompt.value == "why does my build fail"
        assert app.focused is app.prompt
        assert path.exists() and not isinstance(app.screen, Confirm)


async def test_sentences_that_start_with_the_old_pane_letters_change_no_memory(make_app, store, no_key, user_dirs):
    # each began with a letter that moved, verified, edited or deleted the selected memory
    path = write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    text = path.read_text()
    for sentence in ("maybe later", "very nice", "explain the build", "do it now", "undo that", "accept it", "run it"):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pane_focused(pilot)
            await type_text(pilot, sentence)
            await pilot.pause(0.3)
            assert app.prompt.value == sentence, sentence
            assert isinstance(app.screen, MainScreen), sentence
            assert app.focused is app.prompt
            assert path.exists() and path.read_text() == text, sentence
            assert app.memory_pane.names == ["Style"]


async def test_delete_takes_a_deliberate_key_and_can_be_undone(make_app, store, no_key):
    text = memory_text("Style", "how answers should sound", "Short answers.")
    path = Path(store.directory) / "user_style.md"
    path.write_text(text)
    index = Path(store.directory) / "MEMORY.md"
    index.write_text("# Index\n- user_style.md: short answers, no lists\n")
    app = make_app()
    messages = notified(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pane_focused(pilot)
        await pilot.press("delete")
        assert isinstance(app.screen, Confirm)
        await pilot.press("enter")  # Enter on the focused Cancel button keeps the memory
        await pilot.pause()
        assert path.exists() and not isinstance(app.screen, Confirm)
        assert app.focused is app.prompt, "focus goes back to the prompt after a dialog"

        await pane_focused(pilot)
        await pilot.press("delete")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not path.exists(), 20, "the delete")
        await wait_for(pilot, lambda: app.memory_pane.names == [], 20, "the pane to reload")
        assert any("bring it back" in m for m in messages)
        # its index line goes with it: its words would still reach the agent
        assert index.read_text() == "# Index\n"

        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("ctrl+z")
        await wait_for(pilot, path.exists, 20, "the undo")
        assert path.read_text() == text
        await wait_for(pilot, lambda: app.memory_pane.names == ["Style"], 20, "the restored memory in the pane")
        await wait_for(pilot, lambda: "- user_style.md: short answers" in index.read_text(), 20, "its index line back")


async def test_tab_to_the_delete_button_and_enter_deletes(make_app, store, no_key):
    path = write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pane_focused(pilot)
        await pilot.press("delete")
        await pilot.press("shift+tab")  # from Cancel back to Delete
        assert app.screen.focused.id == "yes"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not path.exists(), 20, "the delete")


async def test_undo_of_a_memory_the_store_would_refuse_keeps_the_text(make_app, store, no_key):
    # placed by hand over the per-file cap: the store will not write it back as it was
    body = "x" * (store.max_file_chars + 50)
    path = write_memory(store, "reference_big.md", "Big", "a hand-placed long note", body)
    text = path.read_text()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pane_focused(pilot)
        await pilot.press("delete", "ctrl+d")
        await wait_for(pilot, lambda: not path.exists(), 20, "the delete")
        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: isinstance(app.screen, MemoryEditor), 20, "the editor with the text")
        assert app.screen.query_one("#text", TextArea).text == text


async def test_focus_returns_to_the_prompt_after_the_editor(make_app, store, no_key):
    write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pane_focused(pilot)
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, MemoryEditor)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, MemoryEditor)
        assert app.focused is app.prompt
        await type_text(pilot, "done")
        assert app.prompt.value == "done"


async def test_typing_on_the_help_screen_closes_it_into_the_prompt(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await type_text(pilot, "quick one")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        assert app.prompt.value == "quick one"


async def test_typing_on_the_conversation_goes_to_the_prompt(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.conversation.focus()
        await pilot.pause()
        await type_text(pilot, "hello")
        assert app.prompt.value == "hello" and app.focused is app.prompt


async def burst(pilot, text: str) -> None:
    """Keys as a terminal delivers a fast typist: all queued before the first is handled."""
    from textual import events

    for char in text:
        pilot.app.post_message(events.Key("space" if char == " " else char, char))
    await pilot.pause(0.5)


async def test_a_burst_of_keys_on_the_memory_pane_lands_whole_in_the_prompt(make_app, store, no_key):
    path = write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    for start, sentence in (("#memory-preview", "why does my build fail"), ("#memory-list", "does my build fail")):
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pane_focused(pilot)
            app.query_one(start).focus()
            await pilot.pause()
            await burst(pilot, sentence)
            await wait_for(pilot, lambda app=app, sentence=sentence: app.prompt.value == sentence, 20,
                           f"the sentence typed on {start}")
            assert path.exists() and isinstance(app.screen, MainScreen), start
            assert app.prompt.value == sentence, start
            assert app.focused is app.prompt


async def test_enter_right_behind_the_delete_key_does_not_delete(make_app, store, no_key):
    from textual import events

    path = write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pane_focused(pilot)
        app.post_message(events.Key("delete", None))
        app.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: not isinstance(app.screen, Confirm), 20, "the dialog to close")
        await pilot.pause(0.5)
        assert path.exists()


async def test_undo_when_the_name_was_taken_again_keeps_both(make_app, store, no_key):
    text = memory_text("Style", "how answers should sound", "Short answers.")
    path = Path(store.directory) / "user_style.md"
    path.write_text(text)
    index = Path(store.directory) / "MEMORY.md"
    index.write_text("# Index\n- user_style.md: short answers, no lists\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pane_focused(pilot)
        await pilot.press("delete", "ctrl+d")
        await wait_for(pilot, lambda: not path.exists(), 20, "the delete")
        newer = memory_text("Style", "written again by the agent", "Long answers.")
        path.write_text(newer)
        await wait_for(pilot, lambda: app.memory_pane.names == ["Style"], 20, "the new file in the pane")
        app.query_one("#memory-list", OptionList).focus()
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: isinstance(app.screen, MemoryEditor), 20, "the editor with the old text")
        assert path.read_text() == newer, "the file written meanwhile is left alone"
        editor = app.screen
        assert editor.query_one("#text", TextArea).text == text
        assert editor.query_one("#name").value == "user_style_restored.md"
