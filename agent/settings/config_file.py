"""Reading the user's config.toml without ever failing on it.

A file that cannot be read or parsed is ignored whole; a key of the wrong kind is ignored
alone. Either way the rest starts with its defaults, and each ignored part becomes a
`Problem` that the app shows and the command line prints, in one line: a broken file must
not stop devagent, and must not silently change what it does either.

What a file may hold (anything else is reported as unknown)::

    model = "claude-sonnet-5-5"
    effort = "medium"                 # one of EFFORTS
    memory_mode = "window"            # one of MEMORY_MODES ("memory" is the same key)
    memory_writes = "review"          # one of MEMORY_WRITES: auto, review (the user accepts each), off
    code_writes = "auto"              # one of CODE_WRITES: review (the default), auto, off
    max_write_mb_per_reply = 12       # what one reply's file changes may write in all
    user_memory_writes = "review"     # writes to /memories/user/; the stricter of the two applies
    memory_aging_days = 30            # a memory neither written nor verified this long is aging
    welcome_back = true               # a checked briefing when you come back to a repository
    welcome_back_hours = 8            # ... after this many hours away
    thinking = "adaptive"             # "adaptive", "off", or a token budget of 1024 or more
    max_tokens = 8000                 # a reply in words only; one that may call a tool gets the model's maximum
    # also window_turns, max_retries, max_api_calls_per_turn
    request_timeout = 120.0

    [repos."/home/me/src/shop"]
    build = "make build"
    test = "make check"
    network = true                    # build and test may reach the network from their sandbox

    [context]                         # agent/conversation/window.py; thresholds in input tokens
    management = true                 # false: no clearing or compaction
    clear_at = 60000
    compact_at = 90000
    keep_tool_uses = 3

    [transcripts]                     # removed at start, oldest first
    max_age_days = 90
    max_total_mb = 500

    [checkpoints]                     # each turn's, for rewind; removed at start, oldest first
    max_age_days = 30
    max_total_mb = 200

    [voice]
    key = "f9"
    stt_model = "base"
    voice = "/voices/amy.onnx"
    speak = false
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from agent.settings.choices import CODE_WRITES, EFFORTS, MEMORY_MODES, MEMORY_WRITES

# The API refuses a smaller thinking budget.
MIN_THINKING_BUDGET = 1024


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class Problem(NamedTuple):
    """A part of the settings that was ignored: where it was, which key, and why."""

    source: str  # the file's path, or the environment variable's name
    key: str | None  # None: the whole source was ignored
    reason: str

    def describe(self) -> str:
        if self.key is None:
            return f"{self.source} was ignored ({self.reason})"
        return f"{self.key} was ignored ({self.reason})"


def notice(problems: tuple[Problem, ...] | list[Problem]) -> str | None:
    """One line naming every ignored part, source by source, or None when nothing was."""
    if not problems:
        return None
    parts: list[str] = []
    sources = list(dict.fromkeys(p.source for p in problems))
    for source in sources:
        mine = [p for p in problems if p.source == source]
        whole = [p for p in mine if p.key is None]
        if whole:
            parts.append(whole[0].describe())
        else:
            parts.append(f"in {source}, " + "; ".join(p.describe() for p in mine))
    line = "; ".join(parts)
    return f"{line[0].upper()}{line[1:]}. The defaults apply instead."


# --- checking one value: each returns (value, None) or (None, why it was refused) ----------

Check = Callable[[Any], tuple[Any, str | None]]


def _kind(value: Any) -> str:
    names = {bool: "true/false", int: "a number", float: "a number", str: "text", dict: "a table", list: "a list"}
    return names.get(type(value), type(value).__name__)


def text(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    if isinstance(value, str):
        return None, "it is empty"
    return None, f"expected text, found {_kind(value)}"


def one_of(choices: tuple[str, ...]) -> Check:
    def check(value: Any) -> tuple[Any, str | None]:
        word, why = text(value)
        if why:
            return None, why
        if word not in choices:
            return None, f'"{word}" is not one of {", ".join(choices)}'
        return word, None

    return check


def count(minimum: int) -> Check:
    def check(value: Any) -> tuple[Any, str | None]:
        if isinstance(value, bool) or not isinstance(value, int):
            return None, f"expected a whole number, found {_kind(value)}"
        if value < minimum:
            return None, f"{value} is under {minimum}"
        return value, None

    return check


def seconds(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"expected a number of seconds, found {_kind(value)}"
    if value <= 0:
        return None, f"{value} is not a positive number of seconds"
    return float(value), None


def thinking(value: Any) -> tuple[Any, str | None]:
    """"adaptive", "off" or a budget as digits; 0 and false mean off, true means adaptive."""
    if isinstance(value, bool):
        return ("adaptive" if value else "off"), None
    if isinstance(value, int):
        value = str(value)
    word, why = text(value)
    if why:
        return None, why
    word = word.lower()
    if word in ("adaptive", "on", "true", "yes"):
        return "adaptive", None
    if word in ("off", "false", "no", "none") or (word.isdigit() and int(word) == 0):
        return "off", None
    if word.isdigit():
        if int(word) < MIN_THINKING_BUDGET:
            return None, f"a thinking budget of {word} tokens is under the API's minimum of {MIN_THINKING_BUDGET}"
        return str(int(word)), None
    return None, f'"{word}" is not adaptive, off or a number of tokens'


def flag(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, bool):
        return value, None
    return None, f"expected true or false, found {_kind(value)}"


SETTINGS: dict[str, Check] = {
    "model": text,
    "effort": one_of(EFFORTS),
    "memory_mode": one_of(MEMORY_MODES),
    "memory": one_of(MEMORY_MODES),
    "memory_writes": one_of(MEMORY_WRITES),
    "code_writes": one_of(CODE_WRITES),
    "max_write_mb_per_reply": count(1),
    "user_memory_writes": one_of(MEMORY_WRITES),
    "memory_aging_days": count(1),
    "welcome_back": flag,
    "welcome_back_hours": count(1),
    "thinking": thinking,
    "max_tokens": count(1),
    "window_turns": count(1),
    "max_retries": count(0),
    "max_api_calls_per_turn": count(1),
    "request_timeout": seconds,
}
# keys the app or the terminal already give a meaning (README.md's keys table)
TAKEN_KEYS = {
    "f1": "help", "f3": "the screen pane", "f4": "the memory pane", "f5": "older screen items",
    "f6": "mute", "f7": "narrower", "f8": "wider", "f12": "the conversation", "ctrl+c": "copy",
    "ctrl+d": "the confirmation key",
    "ctrl+h": "Backspace", "ctrl+i": "Tab", "ctrl+j": "a new line", "ctrl+m": "Enter",
    "ctrl+l": "the last log", "ctrl+n": "a new conversation", "ctrl+p": "the command palette",
    "ctrl+q": "quit",
}


def talk_key(value: Any) -> tuple[Any, str | None]:
    """A key push-to-talk can take without taking a letter from typing: F1 to F24, or Ctrl
    and a letter, in Textual's names ("f9", "ctrl+t")."""
    word, why = text(value)
    if why:
        return None, why
    key = word.strip().lower()
    if key in TAKEN_KEYS:
        return None, f'"{word}" is taken: it is {TAKEN_KEYS[key]}'
    if re.fullmatch(r"f([1-9]|1[0-9]|2[0-4])|ctrl\+[a-z]", key):
        return key, None
    return None, f'"{word}" is not a key push-to-talk can use: F1 to F24, or Ctrl and a letter ("ctrl+t")'


REPO_SETTINGS: dict[str, Check] = {"build": text, "test": text, "network": flag}
VOICE_SETTINGS: dict[str, Check] = {"key": talk_key, "stt_model": text, "model": text, "voice": text,
                                    "speak": flag}
CONTEXT_SETTINGS: dict[str, Check] = {
    "management": flag,
    "clear_at": count(1000),
    "compact_at": count(1000),
    "keep_tool_uses": count(0),
}
TRANSCRIPT_SETTINGS: dict[str, Check] = {"max_age_days": count(1), "max_total_mb": count(1)}


# --- the file -----------------------------------------------------------------------------


def read(path: Path) -> tuple[dict[str, Any], list[Problem]]:
    """The file's valid settings and what was ignored; a missing file is no problem."""
    source = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, []
    except OSError as err:
        return {}, [Problem(source, None, f"it could not be read: {err.strerror or err}")]
    import tomllib  # its patterns compile as it loads: only a file that is there pays, not every start

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        return {}, [Problem(source, None, f"it is not UTF-8 text: byte {raw[err.start]:#04x} at offset {err.start}")]
    except tomllib.TOMLDecodeError as err:
        return {}, [Problem(source, None, f"TOML syntax error: {err}")]
    return checked(data, source)


def checked(data: dict[str, Any], source: str) -> tuple[dict[str, Any], list[Problem]]:
    """`data` without the keys of the wrong kind, and a Problem for each one left out."""
    problems: list[Problem] = []
    clean = _table(data, SETTINGS, "", source, problems, tables=("repos", "voice", "context", "transcripts", "checkpoints"))
    if "repos" in data:
        repos = data["repos"]
        if not isinstance(repos, dict):
            problems.append(Problem(source, "repos", f"expected a table of repositories, found {_kind(repos)}"))
        else:
            clean["repos"] = {}
            for name, values in repos.items():
                key = f'repos."{name}"'
                if not isinstance(values, dict):
                    problems.append(Problem(source, key, f"expected a table with build and test, found {_kind(values)}"))
                    continue
                clean["repos"][name] = _table(values, REPO_SETTINGS, f"{key}.", source, problems)
    if "voice" in data:
        voice = data["voice"]
        if not isinstance(voice, dict):
            problems.append(Problem(source, "voice", f"expected a table, found {_kind(voice)}"))
        else:
            clean["voice"] = _table(voice, VOICE_SETTINGS, "voice.", source, problems)
    for name, checks in (("context", CONTEXT_SETTINGS), ("transcripts", TRANSCRIPT_SETTINGS),
                         ("checkpoints", TRANSCRIPT_SETTINGS)):
        if name in data:
            if isinstance(data[name], dict):
                clean[name] = _table(data[name], checks, f"{name}.", source, problems)
            else:
                problems.append(Problem(source, name, f"expected a table, found {_kind(data[name])}"))
    return clean, problems


def _table(
    data: dict[str, Any], checks: dict[str, Check], prefix: str, source: str, problems: list[Problem], tables: tuple[str, ...] = ()
) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for key, value in data.items():
        if key in tables:
            continue
        check = checks.get(key)
        if check is None:
            problems.append(Problem(source, f"{prefix}{key}", "not a setting devagent knows"))
            continue
        good, why = check(value)
        if why:
            problems.append(Problem(source, f"{prefix}{key}", why))
        else:
            clean[key] = good
    return clean
