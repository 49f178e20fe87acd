"""The result texts of the memory tool, as the anthropic SDK's local implementation
writes them (anthropic/lib/tools/_beta_builtin_memory_tool.py).

The model was trained on these strings, so they are reproduced here instead of imported:
importing any part of the SDK costs about two seconds, and the app imports the store at
start-up. tests/memory/test_sdk_parity.py runs both implementations side by side.
"""

from __future__ import annotations

from memory.errors import CommandError
from memory.quoting import quoted

MAX_LINES = 999999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
MAX_LISTED = 50  # line numbers named in one "multiple occurrences" result


def not_found(path: str) -> str:
    return f"The path {quoted(path)} does not exist. Please provide a valid path."


def file_size(bytes_size: int) -> str:
    if bytes_size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min(int(bytes_size.bit_length() - 1) // 10, len(units) - 1)
    size = bytes_size / (1024**i)
    if size == int(size):
        return f"{int(size)}{units[i]}"
    return f"{size:.1f}{units[i]}"


def listing(path: str, dir_size: int, items: list[tuple[int, str]]) -> str:
    # The SDK prints `{path}/{item}`, which doubles the slash after "/memories/"; we
    # print one, because our paths refuse empty segments and the model copies these.
    base = path[:-1] if path.endswith("/") and path != "/" else path
    header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    lines = [f"{file_size(dir_size)}\t{path}"]
    lines.extend(f"{file_size(size)}\t{base}/{rel}" for size, rel in items)
    return f"{header}\n" + "\n".join(lines)


def numbered(path: str, content: str, view_range: list[int] | None) -> str:
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise CommandError(f"File {quoted(path)} exceeds maximum line limit of 999,999 lines.")
    display = lines
    start_num = 1
    if view_range and len(view_range) == 2:
        start = max(1, view_range[0]) - 1
        end = len(lines) if view_range[1] == -1 else view_range[1]
        display = lines[start:end]
        start_num = start + 1
    body = "\n".join(f"{str(i + start_num).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(display))
    return f"Here's the content of {path} with line numbers:\n" + body


def occurrences(path: str, content: str, old: str) -> None:
    """Refuses unless `old` occurs exactly once."""
    count = content.count(old)
    if count == 0:
        raise CommandError(f"No replacement was performed, old_str `{quoted(old)}` did not appear verbatim in {quoted(path)}.")
    if count > 1:
        matching: list[int] = []
        start = 0
        while True:
            pos = content.find(old, start)
            if pos == -1:
                break
            matching.append(content[:pos].count("\n") + 1)
            start = pos + 1
        lines = ", ".join(map(str, matching[:MAX_LISTED]))
        if len(matching) > MAX_LISTED:
            lines += f" and {len(matching) - MAX_LISTED:,} more"
        raise CommandError(
            f"No replacement was performed. Multiple occurrences of old_str `{quoted(old)}` in lines: "
            f"{lines}. Please ensure it is unique"
        )


def replaced(new_content: str, changed_line_index: int) -> str:
    new_lines = new_content.split("\n")
    first = max(0, changed_line_index - 2)
    last = min(len(new_lines), changed_line_index + 3)
    snippet = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[n - 1]}" for n in range(first + 1, last + 1)]
    return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" + "\n".join(
        snippet
    )


def split_lines_keeping_cr(content: str) -> list[str]:
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def inserted(content: str, insert_line: int, text: str) -> str:
    lines = split_lines_keeping_cr(content)
    if insert_line < 0 or insert_line > len(lines):
        raise CommandError(
            f"Invalid `insert_line` parameter: {insert_line}. It should be within the range [0, {len(lines)}]."
        )
    lines.insert(insert_line, text.rstrip("\n"))
    new_content = "\n".join(lines)
    if not new_content.endswith("\n"):
        new_content += "\n"
    return new_content


def created(path: str) -> str:
    return f"File created successfully at: {path}"


def edited(path: str) -> str:
    return f"The file {path} has been edited."


def deleted(path: str) -> str:
    return f"Successfully deleted {path}"


def renamed(old: str, new: str) -> str:
    return f"Successfully renamed {old} to {new}"
