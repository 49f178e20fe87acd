"""The status line: where we are, what runs the turns, what the last turn cost, voice."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tui import format as fmt


@dataclass(frozen=True)
class StatusInfo:
    repo: str = ""
    branch: str | None = None
    model: str = ""
    effort: str = ""
    memory_mode: str = ""
    usage: object | None = None  # agent.events.Usage of the last finished turn
    activity: str = ""  # "working 3.2s", "cancelling", ""
    voice: str = "voice: off"


class StatusLine(Widget):
    """One line; segments drop from the right-hand priorities first when the terminal is narrow."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    info: reactive[StatusInfo] = reactive(StatusInfo, layout=False)

    def update_info(self, **changes) -> None:
        self.info = replace(self.info, **changes)

    def segments(self) -> list[tuple[int, Text]]:
        """(priority, text): lower priority numbers are kept longest."""
        info = self.info
        out: list[tuple[int, Text]] = []
        where = Text()
        where.append(info.repo or "?", style="bold")
        if info.branch:
            where.append(" on ", style="dim")
            where.append(info.branch, style="italic")
        out.append((0, where))
        if info.activity:
            out.append((1, Text(info.activity, style="bold")))
        model = info.model.removeprefix("claude-")
        out.append((4, Text(f"{model}·{info.effort}" if info.effort else model)))
        out.append((5, Text(f"mem:{info.memory_mode}")))
        usage = info.usage
        if usage is not None and self._compact:
            out.append((3, Text(f"{fmt.tokens(usage.input_tokens)} in · {fmt.tokens(usage.output_tokens)} out · {fmt.cost(usage.cost_usd)}")))
        elif usage is not None:
            cached = getattr(usage, "cache_read_tokens", 0)
            out.append(
                (
                    3,
                    Text(
                        f"in {fmt.tokens(usage.input_tokens)} · out {fmt.tokens(usage.output_tokens)}"
                        f" · cached {fmt.tokens(cached)} · {fmt.cost(usage.cost_usd)}"
                    ),
                )
            )
        out.append((2, Text(info.voice)))
        return out

    def _fits(self, kept, separator: str, width: int) -> bool:
        return sum(len(t) for _, t in kept) + len(separator) * (len(kept) - 1) + 2 <= width

    _compact = False

    def render(self) -> Text:
        width = self.size.width or 80
        separator = "  │  " if width >= 120 else " │ "
        self._compact = False
        kept = self.segments()
        if not self._fits(kept, separator, width):
            # short forms before anything is dropped: "voice: off — why" keeps its first
            # words, the usage loses the cached count
            self._compact = True
            kept = [(p, Text(t.plain.split(" — ")[0]) if t.plain.startswith("voice") else t) for p, t in self.segments()]
        while len(kept) > 1 and not self._fits(kept, separator, width):
            worst = max(range(len(kept)), key=lambda i: (kept[i][0], i))
            kept.pop(worst)
        line = Text(" ")
        for i, (_, text) in enumerate(kept):
            if i:
                line.append(separator, style="dim")
            line.append_text(text)
        line.truncate(width, overflow="ellipsis")
        return line
