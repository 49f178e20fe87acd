"""What may be written to memory: the secret filter, look-alike names and the caps.

Every write, the model's and the editor's, passes `WritePolicy.check` before its atomic
replace; a refusal is a CommandError whose text says what to do instead. Each rule lets
a file keep what it already holds (a secret or an odd name put there by hand, a size over
a cap lowered since): an edit that does not make things worse is never refused.
"""

from __future__ import annotations

import os

from memory import paths
from memory.errors import CommandError
from memory.files import read_regular
from memory.notes import frontmatter
from memory.quoting import quoted
from memory.secrets import find_secrets, mask_secrets
from memory.walk import walk

# what a name or description may not hold, and the backslash of a YAML escape that spells it
_SHOWS_OTHERWISE = paths.BIDI_CONTROLS | paths.INVISIBLE | {"\\"}

_MERGE = "Merge or delete entries that are no longer true, then try again."


class WritePolicy:
    def __init__(self, root: str, max_file_chars: int, max_total_chars: int) -> None:
        self.root = root
        self.max_file_chars = max_file_chars
        self.max_total_chars = max_total_chars
        # real path -> (mtime_ns, size, inode, characters): the total cap reads every file
        # on each write, and most of them have not changed since the last one.
        self._sizes: dict[str, tuple[int, int, int, int]] = {}

    def check(self, real: str, path: str, text: str, old_text: str | None) -> None:
        """Refuses (CommandError) writing `text` to `path`, which now holds `old_text`."""
        self.check_name(path)
        _refuse_lookalike_frontmatter(path, text, old_text)
        _refuse_secrets(path, text, old_text)
        self._refuse_over_caps(real, path, text, old_text)

    @staticmethod
    def check_name(path: str) -> None:
        """A credential must not get in through a file name either."""
        found = find_secrets(path)
        if found:
            masked, _ = mask_secrets(path)
            raise CommandError(
                f"Not written: the path {quoted(masked)} contains something shaped like a credential "
                f"({found[0].kind}). Secrets never go into memory."
            )

    def _refuse_over_caps(self, real: str, path: str, text: str, old_text: str | None) -> None:
        new_size = len(text)
        old_size = len(old_text) if old_text is not None else 0
        if new_size > self.max_file_chars and new_size > old_size:
            raise CommandError(
                f"Not written: {quoted(path)} would be {new_size:,} characters, over the "
                f"{self.max_file_chars:,}-character limit for one memory file. {_MERGE}"
            )
        total_before = self.total_chars()
        total_after = total_before - (self._chars_of(real) if old_text is not None else 0) + new_size
        if total_after > self.max_total_chars and total_after > total_before:
            raise CommandError(
                f"Not written: memory would total {total_after:,} characters, over the "
                f"{self.max_total_chars:,}-character limit for all memory files. {_MERGE}"
            )

    def total_chars(self) -> int:
        """Characters in every memory file, MEMORY.md included."""
        return sum(self._chars_of(f) for f in walk(self.root).files)

    def _chars_of(self, real: str) -> int:
        try:
            info = os.stat(real, follow_symlinks=False)
        except OSError:
            return 0
        key = (info.st_mtime_ns, info.st_size, info.st_ino)
        cached = self._sizes.get(real)
        if cached is not None and cached[:3] == key:
            return cached[3]
        data = read_regular(real)
        if data is None:
            return 0
        chars = len(data.decode("utf-8", errors="replace"))
        self._sizes[real] = (*key, chars)
        return chars


def _refuse_secrets(path: str, text: str, old_text: str | None) -> None:
    found = find_secrets(text)
    old_values = {old_text[s.start : s.end] for s in find_secrets(old_text)} if found and old_text else set()
    for secret in found:
        # A secret already on disk (put there outside the tool) must not block every edit.
        if text[secret.start : secret.end] not in old_values:
            raise CommandError(
                f"Not written: {quoted(path)} would contain something shaped like a credential "
                f"({secret.kind}). Secrets never go into memory: leave the value out, or "
                f"note where it is kept instead."
            )


def _refuse_lookalike_frontmatter(path: str, text: str, old_text: str | None) -> None:
    """The pane shows a memory by its frontmatter name and description: neither may hold
    characters that make it show as something else (unless it already did)."""
    if _SHOWS_OTHERWISE.isdisjoint(text):
        return  # no such character, and no escape that YAML could turn into one: no parse
    meta = frontmatter(text) if text.startswith("---") else {}
    old = frontmatter(old_text) if meta and old_text and old_text.startswith("---") else {}
    for key in ("name", "description"):
        value = meta.get(key)
        if value is None or value == old.get(key):
            continue
        found = next((c for c in str(value) if c in paths.BIDI_CONTROLS or c in paths.INVISIBLE), None)
        if found:
            raise CommandError(
                f"Not written: the {key} in {quoted(path)}'s frontmatter holds U+{ord(found):04X}, "
                f"a bidirectional control or invisible character that makes it show as something "
                f"else. Leave it out."
            )
