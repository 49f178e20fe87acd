"""Bytes of a repository file as text, or None when they are not text.

UTF-8 first (with or without a byte-order mark, or UTF-16 with one). A file that is not
UTF-8 is most often an old source file or a CSV saved by a Windows editor: Latin-1 or
Windows-1252. Both are single-byte encodings that decode any byte, so what decides between
them and binary is what the decoded text looks like: binary data is full of control
characters, text is not. A general charset guesser was left out on purpose: on a short
file it names a Cyrillic or Central European code page as readily as these two, and a
wrong guess shown with confidence is worse than these two rules.
"""

from __future__ import annotations

import codecs

# Bytes 0x80-0x9f are control characters in Latin-1 and printable (€, “, —) in
# Windows-1252; a file without them reads the same in both.
_C1 = bytes(range(0x80, 0xA0))
_ALLOWED_CONTROLS = {"\t", "\n", "\r", "\f", "\v", "\x1b"}
# Random bytes give about one control character in eight; text almost none.
MAX_CONTROL_SHARE = 0.005
SNIFF_BYTES = 8192


def _controls(text: str) -> int:
    return sum(1 for ch in text if ord(ch) < 32 and ch not in _ALLOWED_CONTROLS)


def _looks_like_text(text: str) -> bool:
    return _controls(text) <= max(1, int(len(text) * MAX_CONTROL_SHARE))


def _legacy(data: bytes) -> tuple[str | None, str]:
    if any(b in _C1 for b in data):
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d are unassigned there
            return None, ""
        name = "Windows-1252"
    else:
        text = data.decode("latin-1")
        name = "Latin-1 (ISO-8859-1)"
    if not _looks_like_text(text):
        return None, ""
    return text, f"the file is not UTF-8; it was read as {name}."


def decode(data: bytes) -> tuple[str | None, str]:
    """Text of a file, or None for binary; the second value is a note about the encoding."""
    for bom, codec in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(codec), ""
            except UnicodeDecodeError:
                return None, ""
    if b"\0" in data[:SNIFF_BYTES]:
        return None, ""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        pass
    replaced = data.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd")
    good = sum(1 for ch in replaced if ord(ch) > 0x7F and ch != "\ufffd")
    # Real UTF-8 characters outnumbering the bad bytes: a UTF-8 file with a stray legacy
    # byte or two, where a single-byte reading would garble every good character.
    if good > bad and _looks_like_text(replaced):
        return replaced, f"{bad} byte sequence{'s' if bad != 1 else ''} that are not UTF-8 are shown as \ufffd."
    return _legacy(data)
