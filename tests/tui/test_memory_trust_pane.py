"""The memory pane shows evidence, aging, findings and held changes, and lets the user act."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from memory.freshness import verified_date
from memory.location import user_memory_dir
from memory.pending import PendingChanges
from memory.roots import open_memory
from tests.repos import git
from tests.tui.conftest import memory_text, wait_for, write_memory
from tui.widgets.memory.pane import MemoryPane

CALL = "src/ReviewOrchestrator.cs"


def pane(app) -> MemoryPane:
    return app.query_one(MemoryPane)


def preview(app) -> str:
    return str(app.query_one("#memory-text").render())


def options(app) -> list[str]:
    found = app.query_one("#memory-list", OptionList)
    return [str(found.get_option_at_index(i).id) for i in range(found.option_count)]


async def select(pilot, option_id: str) -> None:
    found = pilot.app.query_one("#memory-list", OptionList)
    found.focus()
    found.highlighted = options(pilot.app).index(option_id)
    await pilot.pause()


async def marked(pilot, predicate, what: str) -> None:
    await wait_for(pilot, lambda: pane(pilot.app).listing.trust is not None and predicate(pane(pilot.app).listing.trust), 10, what)


@pytest.fixture
def memory(repo):
    return open_memory(repo)


@pytest.fixture
def app_on(make_app, memory):
    def make(**config):
        app = make_app(**config)
        app.store = memory
        return app

    return make


async def test_evidence_marks_follow_a_real_commit(repo, memory, app_on, no_key):
    (repo / CALL).write_text("class ReviewOrchestrator\n{\n    void Run() => Use(file.Patch);\n}\n")
    git(repo, "commit", "-qam", "Call site")
    note = memory_text("Call site", "what is left of the rename", f"{CALL}:3 still uses file.Patch.", "project")
    assert memory.run({"command": "create", "path": "/memories/call.md", "file_text": note})[1] is False
    app = app_on()
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: t.marks["/memories/call.md"].worst == "intact", "intact")
        (repo / CALL).write_text("class ReviewOrchestrator\n{\n    void Run() => Use(file.Diff);\n}\n")
        git(repo, "commit", "-qam", "Finish the rename")
        pane(app).reload()
        await marked(pilot, lambda t: t.marks["/memories/call.md"].worst == "changed", "changed")
        await select(pilot, "/memories/call.md")
        assert f"≠ {CALL}:3 changed since" in preview(app)
        assert "≠ 1 changed" in str(pane(app).border_subtitle)


async def test_aging_shows_and_v_verifies(repo, memory, app_on, no_key):
    path = write_memory(memory.repository, "old.md", "Tuesdays", "reviews happen on Tuesdays", "Reviews on Tuesdays.", "project", age_days=45)
    app = app_on()
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: t.marks["/memories/old.md"].age.aging, "aging")
        await select(pilot, "/memories/old.md")
        assert "◷ aging: neither written nor verified for 45 days" in preview(app)
        assert "◷ 1 aging" in str(pane(app).border_subtitle)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: verified_date(path.read_text()) is not None, 5, "the verified date")
        await marked(pilot, lambda t: not t.marks["/memories/old.md"].age.aging, "fresh again")
        assert "Reviews on Tuesdays." in path.read_text()


async def test_two_groups_and_a_move_between_them(repo, memory, app_on, no_key):
    write_memory(memory.repository, "core.md", "Core", "the project that matters", "Core matters.", "project")
    note = memory_text("Short answers", "how answers should sound", "One line, details on screen.", "user")
    memory.run({"command": "create", "path": "/memories/terse.md", "file_text": note})
    app = app_on()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: len(pane(app).names) == 2, 10, "two memories")
        found = app.query_one("#memory-list", OptionList)
        headers = [str(found.get_option_at_index(i).prompt) for i in range(found.option_count) if found.get_option_at_index(i).disabled]
        assert headers == ["THIS REPOSITORY · 2", "YOU, IN EVERY REPOSITORY · 0"]
        await select(pilot, "/memories/terse.md")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: "/memories/user/terse.md" in options(app), 10, "the move")
        assert (user_memory_dir() / "terse.md").read_text() == note
        headers = [str(found.get_option_at_index(i).prompt) for i in range(found.option_count) if found.get_option_at_index(i).disabled]
        assert headers == ["THIS REPOSITORY · 1", "YOU, IN EVERY REPOSITORY · 1"]


async def test_a_held_change_shows_its_diff_and_a_accepts_it(repo, memory, app_on, no_key):
    memory.run({"command": "create", "path": "/memories/core.md", "file_text": memory_text("Core", "d", "Core matters.", "project")})
    pending = PendingChanges(memory)
    pending.hold({"command": "str_replace", "path": "/memories/core.md", "old_str": "Core matters.", "new_str": "Core matters most."})
    pending.hold({"command": "create", "path": "/memories/cli.md", "file_text": memory_text("Cli", "d", "The CLI is a wrapper.", "project")})
    edit, create = pending.list()
    app = app_on(memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: len(t.pending) == 2, "two held changes")
        assert options(app)[1:3] == [f"pending:{edit.id}", f"pending:{create.id}"]
        assert "● 2 waiting" in str(pane(app).border_subtitle)
        await select(pilot, f"pending:{edit.id}")
        assert "-Core matters." in preview(app) and "+Core matters most." in preview(app)
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: f"pending:{edit.id}" not in options(app), 10, "the accepted change to leave the list")
        assert memory.read("/memories/core.md").endswith("Core matters most.\n")
        await select(pilot, f"pending:{create.id}")
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: not any(o.startswith("pending:") for o in options(app)), 10, "the rejected change to leave")
        assert [m.path for m in memory.memories()] == ["/memories/core.md"]
        assert "rejected create /memories/cli.md" in pending.take_news()


def row_text(app, option_id: str) -> str:
    found = app.query_one("#memory-list", OptionList)
    return "".join(left.plain for left, _ in found.get_option(option_id).prompt.lines)


async def conflicted(pilot, memory) -> str:
    """A held edit of core.md that meets the user's own edit when accepted; its option id."""
    memory.run({"command": "create", "path": "/memories/core.md", "file_text": memory_text("Core", "d", "Core matters.", "project")})
    pending = PendingChanges(memory)
    pending.hold({"command": "str_replace", "path": "/memories/core.md", "old_str": "Core matters.", "new_str": "Core matters most."})
    change = pending.list()[0]
    row = f"pending:{change.id}"
    await marked(pilot, lambda t: len(t.pending) == 1, "the held change")
    memory.save("/memories/core.md", memory.read("/memories/core.md") + "Mine.\n")
    await select(pilot, row)
    await pilot.press("ctrl+y")
    await marked(pilot, lambda t: [c.id for c in t.conflicts] == [change.id], "the conflict")
    return row


async def test_a_conflict_stays_in_review_and_a_brings_it_back_against_the_file_as_it_is(repo, memory, app_on, no_key):
    app = app_on(memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: True, "the marks")
        row = await conflicted(pilot, memory)
        assert row in options(app) and "ctrl+y" in app.screen.active_bindings
        assert row_text(app, row) == "! edit core.md"
        found = app.query_one("#memory-list", OptionList)
        assert str(found.get_option_at_index(options(app).index(row) - 1).prompt) == "NOT APPLIED · 1"
        await select(pilot, row)
        assert "Not applied:" in preview(app) and "Ctrl+Y puts it back in review" in preview(app)
        assert memory.read("/memories/core.md").endswith("Mine.\n")
        await pilot.press("ctrl+y")
        await marked(pilot, lambda t: not t.conflicts and len(t.pending) == 1, "the change back in review")
        await wait_for(pilot, lambda: row_text(app, row) == "● edit core.md", 10, "the row to say so")
        await select(pilot, row)
        await wait_for(pilot, lambda: "-Mine." in preview(app), 10, "the diff against the file as it is")
        await pilot.press("ctrl+y")
        await marked(pilot, lambda t: not t.waiting, "the change applied")
        assert memory.read("/memories/core.md").endswith("Core matters most.\n")


async def test_r_drops_a_conflict_and_the_agent_hears_so(repo, memory, app_on, no_key):
    app = app_on(memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: True, "the marks")
        row = await conflicted(pilot, memory)
        await select(pilot, row)
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: row not in options(app), 10, "the conflict to leave the list")
        assert "ctrl+y" not in app.screen.active_bindings
        assert memory.read("/memories/core.md").endswith("Mine.\n")
        # it had not heard of the conflict yet: it hears of the decision alone
        assert PendingChanges(memory).take_news() == "Memory review since your last turn: the user rejected edit /memories/core.md."


async def test_the_palette_accepts_every_held_change(repo, memory, app_on, no_key):
    pending = PendingChanges(memory)
    for name in ("a", "b"):
        pending.hold({"command": "create", "path": f"/memories/{name}.md", "file_text": memory_text(name, "d", f"Note {name}.", "project")})
    app = app_on(memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: len(t.pending) == 2, "two held changes")
        pane(app).action_decide_all("accept")
        await wait_for(pilot, lambda: len(pane(app).names) == 2, 10, "both applied")
        assert pending.list() == []


async def test_findings_show_as_tags(repo, memory, app_on, no_key):
    write_memory(memory.repository, "friday.md", "Friday", "the build", "The build is red; 3 uncommitted files.", "project")
    app = app_on()
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: any(f.kind == "state" for f in t.marks["/memories/friday.md"].findings), "the state finding")
        await select(pilot, "/memories/friday.md")
        assert "▲ state: records tool state" in preview(app)
        assert "▲ index: no line in /memories/MEMORY.md" in preview(app)


async def test_tidy_memory_runs_one_turn_whose_fixes_wait_for_review(repo, memory, app_on, claude_double):
    from tests.double.server import reply, tool_use
    write_memory(memory.repository, "friday.md", "Friday", "the build", "The build is red.", "project")
    claude_double.add(reply("Deleting the state note.", tool_use("memory", {"command": "delete", "path": "/memories/friday.md"})))
    claude_double.add("I deleted the note that only recorded the build state; it waits for you.")
    app = app_on(memory_mode="preloaded", memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await app.memory_pane.action_tidy().wait()
        # the session imports the SDK first: seconds on a busy machine
        await wait_for(pilot, lambda: len(claude_double.messages_requests()) == 2, 120, "the tidy turn's two requests")
        await wait_for(pilot, lambda: not app.running, 20, "the tidy turn to end")
        asked = claude_double.messages_requests()[0].last_user_text()
        assert "\nTidy my memory. `devagent memory check` found" in asked and "- /memories/friday.md (state): records tool state" in asked
        assert "- /memories/friday.md (index):" in asked
        held = PendingChanges(memory).list()
        assert [c.summary for c in held] == ["delete /memories/friday.md"]
        assert (memory.repository.directory / "friday.md").exists()
        await marked(pilot, lambda t: len(t.pending) == 1, "the held delete in the pane")


async def test_tidy_with_nothing_found_starts_no_turn(repo, memory, app_on, claude_double):
    app = app_on(memory_mode="preloaded")
    async with app.run_test(size=(160, 48)) as pilot:
        await app.memory_pane.action_tidy().wait()
        await pilot.pause(0.2)
        assert claude_double.messages_requests() == [] and not app.running


async def test_accept_and_reject_are_keys_only_while_a_change_waits(repo, memory, app_on, no_key):
    write_memory(memory.repository, "core.md", "Core", "the project that matters", "Core matters.", "project")
    app = app_on(memory_writes="review")
    async with app.run_test(size=(160, 48)) as pilot:
        await marked(pilot, lambda t: not t.pending, "the marks")
        await select(pilot, "/memories/core.md")
        assert "ctrl+y" not in app.screen.active_bindings and "ctrl+x" not in app.screen.active_bindings
        PendingChanges(memory).hold({"command": "create", "path": "/memories/cli.md",
                                     "file_text": memory_text("Cli", "d", "The CLI is a wrapper.", "project")})
        await marked(pilot, lambda t: len(t.pending) == 1, "the held change")
        assert "ctrl+y" in app.screen.active_bindings and "ctrl+x" in app.screen.active_bindings
