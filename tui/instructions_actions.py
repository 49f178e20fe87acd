"""The app's side of the repository's instructions and of Claude Code's auto memory: the
memory pane's read-only section kept as the session last read the files, and the one-time
offer to bring in what Claude Code already knows about this repository. A mixin of the app.
"""

from __future__ import annotations

from textual import work
from textual.css.query import NoMatches

from tui.app_parts import AppParts

PALETTE_TITLE = "Bring in Claude Code's memory"


class InstructionsActions(AppParts):
    def show_instructions(self) -> None:
        """The memory pane's section, from what the session read of the instruction files
        (after it loaded, and after each turn, which reads them again)."""
        from tui.widgets.memory.instructions import InstructionsShown

        session = self.turns.session
        if session is None or not hasattr(session, "instructions"):
            return
        try:
            pane = self.memory_pane
        except (IndexError, NoMatches):
            return  # the app is closing: no screen to show it on
        pane.show_instructions(InstructionsShown.of(session.instructions))

    @work(thread=True, group="claude-memory", exit_on_error=False)
    def offer_claude_memory(self) -> None:
        """The nested instruction files listed beside the session's load, which then finds the
        listing made (agent.instructions.files.warm); and, once per repository, Claude
        Code's auto memory offered when it has notes about it."""
        from agent.instructions.claude_memory import auto_memory_folder, offer, remember_offered
        from agent.instructions.files import warm

        warm(self.repo).join()

        found = offer(self.repo)
        if not found:
            return
        remember_offered(self.repo)
        folder = auto_memory_folder(self.repo)
        self.call_from_thread(
            self.notify, f"Claude Code's auto memory has {len(found)} note(s) about this repository ({folder}). "
            f"“{PALETTE_TITLE}” in the palette (Ctrl+P) copies them for your review; the files there stay as they are.",
            title="Claude Code's memory", timeout=30)

    @work(thread=True, group="claude-memory", exit_on_error=False)
    def action_bring_in_claude_memory(self) -> None:
        """Each note held for review in the memory pane, its source noted."""
        from agent.instructions.claude_memory import bring_in, sources
        from memory.pending import PendingChanges

        found = sources(self.repo)
        if not found:
            self.call_from_thread(self.notify, "Claude Code's auto memory has nothing about this repository.",
                                  title="Claude Code's memory")
            return
        outcomes = bring_in(self.repo, PendingChanges(self.store), found)
        held = [target for target, said in outcomes if said.startswith("Held for review")]
        other = [f"{target}: {said}" for target, said in outcomes if not said.startswith("Held for review")]
        message = f"{len(held)} note(s) wait for your review in the memory pane (Ctrl+Y accepts, Ctrl+X rejects)."
        if other:
            message += " Not brought in: " + "; ".join(other)
        self.call_from_thread(self.notify, message, title="Claude Code's memory", timeout=20)
