"""The repository's instructions in the app: said at start while the repository is not
trusted, and listed by source in the memory pane's read-only section."""

from __future__ import annotations

import pytest

from agent.workspace_trust import TrustStore
from tests.tui.conftest import ask, wait_for
from tui.widgets.conversation.lines import Notice
from tui.widgets.memory.instructions import InstructionsSection

pytestmark = pytest.mark.usefixtures("claude_double")


async def test_an_untrusted_repository_says_so_at_start_and_the_pane_names_the_files(make_app, repo, claude_double):
    (repo / "AGENTS.md").write_text("Run the tests with `make test`.\n")
    (repo / "src" / "AGENTS.md").write_text("Keep src/ typed.\n")
    app = make_app(memory_mode="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: any("has instructions for coding agents" in str(n.render())
                                          for n in app.query(Notice)), 20, "the notice at start")
        section = app.query_one(InstructionsSection)
        await wait_for(pilot, lambda: section.shown is not None, 10, "the pane's section")
        drawn = str(section.render())
        assert "AGENTS.md" in drawn and "src/AGENTS.md" in drawn and "src/" in drawn
        assert "not followed until you trust" in drawn and "read-only" in drawn
        # trusted meanwhile: the next turn gives them, and the section says so
        TrustStore().remember(repo, True)
        claude_double.add("Noted.")
        await ask(pilot, "what should I know?")
        await wait_for(pilot, lambda: "followed by the agent" in str(section.render()), 10, "the section updated")
    assert "make test" in claude_double.messages_requests()[-1].system_text()


async def test_a_repository_without_instructions_shows_no_section(make_app):
    app = make_app(memory_mode="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.turns.session is not None, 20, "the session")
        await pilot.pause()
        assert not app.query_one(InstructionsSection).has_class("-shown")
