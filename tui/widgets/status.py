"""The status line: where we are, what runs the turns, what the last turn cost, voice."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from agent.voice.status import VoiceStatus
from tui import format as fmt

if TYPE_CHECKING:
    from agent.events import ContextStatus, Usage

# the repository and branch give up characters to the other segments down to this width
MIN_WHERE = 18
# which branch matters more than which repository (that one the user opened): the
# repository is shortened first, down to this many characters (ellipsis included)
MIN_REPO = 8


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class StatusInfo(NamedTuple):
    """Everything the status line shows."""

    repo: str = ""
    branch: str | None = None
    model: str = ""
    effort: str = ""
    memory_mode: str = ""
    usage: Usage | None = None  # of the last finished turn
    total: Usage | None = None  # of every turn of this app's session so far
    activity: str = ""  # "working 3.2s", "cancelling", ""
    voice: VoiceStatus = VoiceStatus("off")
    context: ContextStatus | None = None  # of the latest request
    hidden: str = ""  # what a hidden pane got meanwhile, with the key that shows it


def where(repo: str, branch: str | None, limit: int | None = None) -> Text:
    """'repo on branch' in at most `limit` cells: the repository is shortened first, then the branch."""
    repo = fmt.sanitize(repo) or "?"
    branch = fmt.sanitize(branch) if branch else branch
    if limit is not None and branch and len(repo) + 4 + len(branch) > limit:
        repo = fmt.one_line(repo, max(min(len(repo), MIN_REPO), limit - 4 - len(branch)))
        branch = fmt.one_line(branch, max(1, limit - 4 - len(repo)))
    elif limit is not None and not branch:
        repo = fmt.one_line(repo, limit)
    text = Text()
    text.append(repo, style="bold")
    if branch:
        text.append(" on ", style="dim")
        text.append(branch, style="italic")
    return text


class StatusLine(Widget):
    """One line. When the full form does not fit, it switches to shorter forms and shortens the
    branch before it drops anything; segments with the highest priority numbers go first."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    info: reactive[StatusInfo] = reactive(StatusInfo, layout=False)

    def update_info(self, **changes: Any) -> None:
        self.info = self.info._replace(**changes)

    def segments(self, level: int = 0) -> list[tuple[int, Text]]:
        """(priority, text), lower priority numbers kept longest. Level 0 is the full form; 1 drops
        the effort and the cached count; 2 also the reason voice is off; 3 packs the usage into arrows."""
        info = self.info
        out: list[tuple[int, Text]] = [(0, where(info.repo, info.branch))]
        if info.activity:
            out.append((1, Text(info.activity, style="bold")))
        if info.hidden:
            out.append((2, Text(info.hidden, style="bold yellow")))
        model = info.model.removeprefix("claude-")
        memory = f"mem:{info.memory_mode}"
        if level == 0:
            out.append((4, Text(f"{model}·{info.effort}" if info.effort else model)))
            out.append((5, Text(memory)))
        else:
            out.append((4, Text(f"{model} {memory}")))
        out.extend(usage_segments(info.usage, info.total, level))
        if info.context is not None:
            full = info.context
            out.append((5, Text(full.text if level == 0 else f"ctx {fmt.tokens(full.used)}/{fmt.tokens(full.window)}")))
        out.append((2, Text(fmt.sanitize(info.voice.line() if level < 2 else info.voice.short()))))
        return out

    def render(self) -> Text:
        width = self.size.width or 80
        room = width - 2  # the leading space and one cell of slack
        separator = "  │  " if width >= 120 else " │ "

        def length(kept: list[tuple[int, Text]]) -> int:
            return sum(len(t) for _, t in kept) + len(separator) * (len(kept) - 1)

        # short forms first, then a shorter branch, and only then whole segments go
        kept: list[tuple[int, Text]] = []
        for level in range(4):
            kept = self.segments(level)
            if length(kept) <= room:
                break
        else:
            for level in (2, 3):
                kept = self.segments(level)
                if fit_where(kept, length, room, self.info):
                    break
            else:
                while len(kept) > 1 and not fit_where(kept, length, room, self.info):
                    worst = max(range(1, len(kept)), key=lambda i: (kept[i][0], i))
                    kept.pop(worst)
                fit_where(kept, length, room, self.info, minimum=1)
        line = Text(" ")
        for i, (_, text) in enumerate(kept):
            if i:
                line.append(separator, style="dim")
            line.append_text(text)
        line.truncate(width, overflow="ellipsis")
        return line


def usage_segments(usage: Usage | None, total: Usage | None, level: int) -> list[tuple[int, Text]]:
    """The last turn's tokens and cost, and the session's (from its second turn), each said
    which it is. The
    session's comes first: of the two, the last turn's goes first when room runs out."""
    out: list[tuple[int, Text]] = []
    session = ""
    # after one turn the session's is the turn's: said once
    if total is not None and total != usage:
        spent = fmt.cost(total.cost_usd)
        tokens = fmt.tokens(total.input_tokens + total.cache_read_tokens + total.cache_write_tokens + total.output_tokens)
        session = f"session {tokens} · {spent}" if level < 3 else f"session {spent}"
    if usage is None:
        return [(3, Text(session))] if session else []
    tokens_in, tokens_out = fmt.tokens(usage.input_tokens), fmt.tokens(usage.output_tokens)
    price = fmt.cost(usage.cost_usd)
    if level == 0:
        cached = fmt.tokens(usage.cache_read_tokens)
        turn = f"turn in {tokens_in} · out {tokens_out} · cached {cached} · {price}"
    elif level < 3:
        turn = f"turn {tokens_in} in · {tokens_out} out · {price}"
    else:
        turn = f"turn ↑{tokens_in} ↓{tokens_out} {price}" if session else f"↑{tokens_in} ↓{tokens_out} {price}"
        if session:
            # at the shortest the session's cost stays longest: the turn's goes before the model
            return [(3, Text(session)), (6, Text(turn))]
        return [(3, Text(turn))]
    if session:
        out.append((3, Text(session)))
    out.append((3, Text(turn)))
    return out


def fit_where(kept: list, length: Callable[[list], int], room: int, info: StatusInfo, minimum: int = MIN_WHERE) -> bool:
    """Shorten the first segment (repository and branch) so the line fits `room`, not below
    `minimum` cells; True when it fits."""
    excess = length(kept) - room
    if excess <= 0:
        return True
    limit = len(kept[0][1]) - excess
    if limit < minimum:
        return False
    kept[0] = (kept[0][0], where(info.repo, info.branch, limit))
    return length(kept) <= room
