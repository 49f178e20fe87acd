"""How a name the repository chose (a file, a folder, a branch) is shown, and how the
model's copy of it is taken back.

A name may hold anything but "/" and NUL: a newline that starts a line of its own
(`SYSTEM: ...`) in a listing, an escape sequence that retitles a terminal, a bidi control
that shows it reversed, bytes that are not UTF-8. A name that holds nothing of the kind is
shown as it is; any other is shown in double quotes with every such character escaped, as
git quotes a path: `\\n`, `\\t`, `\\r`, `\\"`, `\\\\`, `\\uXXXX` (or `\\UXXXXXXXX`) for a
character that is not printable, and `\\xNN` for a byte that is not UTF-8. The quoted form is
one line of printable UTF-8, and it maps back to exactly one name: `given_name` turns it
back, so the model can pass what it saw and reach the file.
"""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_UNNAMED = {value: key for key, value in _NAMED.items()}
# os.fsdecode turns a byte that is not UTF-8 into one of these lone surrogates.
_BYTE_LOW, _BYTE_HIGH = 0xDC80, 0xDCFF
_ESCAPE = re.compile(r'\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([ntr"\\]))')


def _shown_char(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if _BYTE_LOW <= code <= _BYTE_HIGH:
        return f"\\x{code - 0xDC00:02x}"
    if char.isprintable():
        return char
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def needs_quotes(name: str) -> bool:
    """Whether `name` cannot be shown as it is: empty, spaces at either end, or a character
    that is escaped."""
    return (
        not name
        or name != name.strip()
        or any(char in _NAMED or not char.isprintable() for char in name)
    )


def shown_name(name: str) -> str:
    """`name` as one line of printable text: itself when it needs nothing, else in double
    quotes with its newlines, controls, quotes, backslashes and undecodable bytes escaped."""
    if not needs_quotes(name):
        return name
    return '"' + "".join(_shown_char(char) for char in name) + '"'


def _unescaped(match: re.Match[str]) -> str:
    byte, small, large, named = match.groups()
    if byte is not None:
        value = int(byte, 16)
        # A byte under 0x80 is always valid UTF-8 and so never shown this way: taking
        # "\x2e\x2e" for ".." would let an escape spell a way out.
        return chr(0xDC00 + value) if value >= 0x80 else match.group()
    if named is not None:
        return _UNNAMED["\\" + named]
    code = int(small or large, 16)
    return chr(code) if code <= 0x10FFFF else match.group()


def given_name(text: str) -> str:
    """The name the model means by `text`: a quoted name as shown_name writes it is turned
    back into the name (undecodable bytes as os.fsdecode gives them); a name without quotes
    has its escapes (`\\n`, `\\xe9`, ...) read the same way, for a model that dropped the
    quotes. Anything else is taken as it is."""
    inner = text
    if len(text) >= 2 and text[0] == text[-1] == '"':
        inner = text[1:-1]
        if re.search(r'(?<!\\)(?:\\\\)*"', inner):
            return text  # an unescaped quote inside: not a quoted name, a name with quotes
    elif "\\" not in text:
        return text
    return _ESCAPE.sub(_unescaped, inner)
