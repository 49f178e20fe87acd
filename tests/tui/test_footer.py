"""The key bar is rebuilt when the keys it shows change, and only then."""

from __future__ import annotations

from textual.widgets import OptionList

from tests.tui.conftest import screen_lines, wait_for, write_memory
from tui.widgets.footer import Footer
from tui.widgets.memory.pane import MemoryPane


async def test_the_key_bar_is_rebuilt_only_when_its_keys_change(make_app, store, no_key, monkeypatch):
    write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    built: list[int] = []
    rebuild = Footer.recompose

    async def counting(self: Footer) -> None:
        before = self.shown_keys
        await rebuild(self)
        if self.shown_keys is not before:
            built.append(1)

    monkeypatch.setattr(Footer, "recompose", counting)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(MemoryPane).names) == 1, 10, "the memory")
        await pilot.pause()
        bottom = screen_lines(app)[-1]
        assert "Help" in bottom and "Edit" not in bottom
        at_launch = len(built)
        assert at_launch <= 2  # Textual asks five times or more while the app starts

        # asked again with nothing changed (as focus moves and screens do): nothing rebuilt
        for _ in range(5):
            app.screen.refresh_bindings()
            await pilot.pause()
        assert len(built) == at_launch
        shown_again = len(built)

        # other keys: the memory list's own show up
        app.query_one("#memory-list", OptionList).focus()
        await wait_for(pilot, lambda: "Edit" in screen_lines(app)[-1], 5, "the memory keys")
        assert len(built) == shown_again + 1
        app.prompt.focus()
        await wait_for(pilot, lambda: "Edit" not in screen_lines(app)[-1], 5, "the prompt's keys")



def footer_labels(app) -> list[str]:
    """What each key the footer holds says: its key and its description."""
    return [f"{key.key_display} {key.description}".strip() for key in app.query_one(Footer).query("*")
            if hasattr(key, "key_display")]


async def footer_in(pilot, state: str, seen: dict) -> None:
    """The footer as it shows in this focus state, and each key it holds, whole or cut."""
    await pilot.pause(0.3)  # the footer rebuilds after the refresh that moved the focus
    line = screen_lines(pilot.app)[-1]
    seen[state] = line
    labels = footer_labels(pilot.app)
    cut = [label for label in labels if label not in line]
    assert not cut, (pilot.app.size, state, cut, line)
    assert "f1 Help" in labels and line.rstrip().endswith("^p palette"), (pilot.app.size, state, line)


async def test_every_key_in_the_footer_shows_whole_at_160_and_80_columns(repo, make_app, no_key):
    from memory.pending import PendingChanges
    from memory.roots import open_memory
    from tests.tui.conftest import memory_text

    memory = open_memory(repo)
    for name in ("Core", "Build"):
        memory.run({"command": "create", "path": f"/memories/{name.lower()}.md",
                    "file_text": memory_text(name, "d", f"{name} matters.", "project")})
    # a change waiting for review brings Accept and Reject into the memory pane's keys
    PendingChanges(memory).hold({"command": "str_replace", "path": "/memories/core.md",
                                 "old_str": "Core matters.", "new_str": "Core matters most."})
    for size in ((160, 48), (80, 24)):
        app = make_app(memory_writes="review")
        app.store = memory
        async with app.run_test(size=size) as pilot:
            pane = app.query_one(MemoryPane)
            await wait_for(pilot, lambda pane=pane: pane.listing.trust is not None and pane.listing.trust.waiting,
                           10, "the held change")
            seen: dict[str, str] = {}
            await footer_in(pilot, "prompt", seen)
            await pilot.press("f12")
            await footer_in(pilot, "conversation", seen)
            await pilot.press("f3")
            await footer_in(pilot, "screen pane", seen)
            await pilot.press("f4")
            await footer_in(pilot, "memory list", seen)
            await pilot.press("enter")
            await footer_in(pilot, "memory preview", seen)
            await pilot.press("escape", "end", "delete", "ctrl+d")  # a delete to undo: Ctrl+Z shows
            await wait_for(pilot, lambda pane=pane: len(pane.deleted) == 1, 10, "the delete")
            await pilot.pause(0.3)
            app.query_one("#memory-list", OptionList).focus()
            await footer_in(pilot, "memory list, after a delete", seen)
            # what matters where the focus is stays, at either width
            assert "^y Accept" in seen["memory list"] and "^x Reject" in seen["memory list"], seen
            assert "^e Edit" in seen["memory preview"] and "esc Back to list" in seen["memory preview"], seen
            assert "Tool lines" in seen["conversation"] and "esc Prompt" in seen["conversation"], seen
            assert "f12 Conversation" in seen["prompt"], seen
            if size[0] >= 160:
                assert "^z Undo delete" in seen["memory list, after a delete"], seen
                for state, line in seen.items():
                    assert all(key in line for key in ("^q Quit", "f3 Screen", "f4 Memory")), (state, line)


async def test_esc_cancel_shows_at_80_columns_while_a_turn_runs(make_app, claude_double):
    from tests.double.server import reply, text
    from tui.widgets.prompt import Prompt

    # held after message_start until the footer of the running turn has been read
    gate = claude_double.gate(after=1)
    claude_double.add(reply(text("A slow answer, word by word, to keep the turn running."), hold=gate))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        seen: dict[str, str] = {}
        await footer_in(pilot, "prompt, idle", seen)
        assert "esc Cancel" not in seen["prompt, idle"], seen  # F12 has the room between turns
        app.query_one("#prompt", Prompt).value = "why is it red"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.running, 5, "the turn")
        await footer_in(pilot, "prompt, a turn running", seen)
        assert "esc Cancel" in seen["prompt, a turn running"], seen
        gate.open()
        await wait_for(pilot, lambda: not app.running, 20, "the end of the turn")
        await footer_in(pilot, "prompt, after the turn", seen)
        assert "esc Cancel" not in seen["prompt, after the turn"], seen
