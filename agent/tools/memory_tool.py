"""Claude's memory tool (memory_20250818), carried out by the repository's MemoryStore.

The definition has no schema of ours: the API knows the tool and its six commands. All the
checking (paths, caps, secrets, the lock) is the store's; this adapts its answer to a
ToolResult, words the one-line summary the app shows, masks credentials in it, and
applies the user's choice of memory writes: `auto` runs them, `review` holds them for the
user (memory/pending.py), `off` refuses them with a sentence that says it is the user's
choice. A write to /memories/user/ follows the stricter of that choice and the one for the
user-wide folder (review by default): what lands there is preloaded into every other
repository's sessions, so a README asking the model to save an instruction there would
otherwise reach them all at once.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent.marks import escape_marks
from agent.settings.choices import MemoryWrites
from agent.tools.base import ToolContext, ToolResult
from agent.tools.masking import ScanCancelled, mask_result, mask_text, withheld
from memory.pending import news_since

if TYPE_CHECKING:
    from memory.pending import PendingChanges
    from memory.seam import Store

WRITE_COMMANDS = ("create", "str_replace", "insert", "delete", "rename")
_STRICTNESS = {"auto": 0, "review": 1, "off": 2}
USER_ROOT = "/memories/user"


def _touches_user_folder(input: dict[str, Any]) -> bool:
    for key in ("path", "old_path", "new_path"):
        value = input.get(key)
        if isinstance(value, str) and (value == USER_ROOT or value.startswith(USER_ROOT + "/")):
            return True
    return False


class MemoryTool:
    name = "memory"

    def __init__(
        self, store: Store, writes: MemoryWrites = "auto", pending: PendingChanges | None = None,
        *, user_writes: MemoryWrites = "review",
    ) -> None:
        self.store = store
        self.writes = writes
        self.user_writes = user_writes
        if pending is None and "review" in (writes, self._user_mode()):
            from memory.pending import PendingChanges

            pending = PendingChanges(store)
        self.pending = pending

    def definition(self) -> dict[str, Any]:
        return {"type": "memory_20250818", "name": "memory"}

    def summarize_input(self, input: dict[str, Any]) -> str:
        command = input.get("command")
        if not isinstance(command, str):
            return "?"
        if command == "rename":
            return f"rename {input.get('old_path', '?')} -> {input.get('new_path', '?')}"
        path = input.get("path")
        return f"{command} {path}" if isinstance(path, str) else command

    def _user_mode(self) -> MemoryWrites:
        """The mode of a write to /memories/user/: the stricter of the two choices."""
        return max(self.writes, self.user_writes, key=_STRICTNESS.__getitem__)

    def _carry_out(self, input: dict[str, Any]) -> tuple[str, bool]:
        command = input.get("command")
        mode = self._user_mode() if _touches_user_folder(input) else self.writes
        if command in WRITE_COMMANDS and mode == "off":
            from memory.pending import read_only_result

            return read_only_result(command), True
        if command in WRITE_COMMANDS and mode == "review" and self.pending is not None:
            return self.pending.hold(input)
        return self.store.run(input)

    def _texts(self, paths: list[str]) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        for path in paths:
            try:
                found[path] = self.store.current_text(path)
            except Exception:  # a path the store refuses: the command's own result says so
                continue
        return found

    def _checkpointed(self, input: dict[str, Any], ctx: ToolContext) -> tuple[str, bool]:
        """Carries the command out; a write's files, before and after, go to the turn's
        checkpoint (a held one by its id), so a rewind can put memory back."""
        checkpoint = getattr(ctx, "checkpoint", None)
        if checkpoint is None or input.get("command") not in WRITE_COMMANDS:
            return self._carry_out(input)
        paths = [v.rstrip("/") for k in ("path", "old_path", "new_path") if isinstance(v := input.get(k), str)]
        before = self._texts(paths)
        text, is_error = self._carry_out(input)
        held = re.search(r"\(pending change ([\w-]+)\)", text)
        if held and not is_error:
            checkpoint.record_held_memory(held.group(1))
        elif not is_error:
            after = self._texts(paths)
            checkpoint.record_memory((p, before[p], after.get(p)) for p in before if before[p] != after.get(p))
        return text, is_error

    def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            text, is_error = self._checkpointed(input, ctx)
        except Exception as err:  # the store promises not to raise; a turn must survive if it does
            text, is_error = f"Error: the memory command failed: {err}", True
        command = input.get("command") if isinstance(input.get("command"), str) else "memory"
        if is_error:
            summary = text.splitlines()[0][:80] if text else "failed"
        elif command == "view":
            summary = f"{len(text.splitlines())} lines"
        elif text.startswith("Held for review"):
            summary = "held for your review"
        else:
            summary = text.splitlines()[0][:80] if text else "done"
        # The store refuses credentials in writes, but a file edited by hand can hold one:
        # what `view` shows goes through the same mask as every tool result.
        try:
            return mask_result(ToolResult(text=text, is_error=is_error, summary=summary), getattr(ctx, "cancel", None))
        except ScanCancelled:
            return withheld(self.name)
        except Exception as exc:
            return ToolResult(
                text=f"Error: memory output withheld: the secret filter is unavailable ({type(exc).__name__}).",
                is_error=True,
                summary="output withheld",
            )

    def news(self, *, first_turn: bool = False) -> str | None:
        """One line about the user's decisions on held changes since the last turn (or, at a
        new session's `first_turn`, since the last session)."""
        if self.pending is None:
            return None
        try:
            news = self.pending.take_news(first_turn=first_turn)
        except Exception:  # a busy or unreadable folder: tell it next turn instead
            return None
        if not news:
            return None
        # It quotes the held changes' summaries, which the model wrote; it reaches the
        # model through the same mask as every tool result.
        try:
            return escape_marks(mask_text(news, "line")[0])
        except Exception:
            return f"Memory review {news_since(first_turn)}: the user decided on held changes (details withheld)."

    def mode_note(self) -> str:
        """What the session's prompt says about memory writes, when they are not plain."""
        if self.writes == "review":
            return (
                "Memory writes in this session wait for the user's review: a change you make with the memory "
                "tool is held until the user accepts or rejects it, and is not in memory until then."
            )
        if self.writes == "off":
            return "Memory is read-only in this session by the user's choice: view it, but do not try to change it."
        if self._user_mode() == "off":
            return "/memories/user/ is read-only in this session by the user's choice."
        return ""
