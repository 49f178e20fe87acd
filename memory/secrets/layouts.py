"""Credentials whose name and value a layout ties together, not a separator beside the name.

- a column: a CSV, TSV or table header names a secret (`api_token`, `Password`), and the
  rows below hold it in that column; an SQL INSERT's column list does the same for its
  VALUES;
- a line: a name or label on one line (`Private key for prod:`, `# DB_PASSWORD`,
  `$ cat ~/.erlang.cookie`) and the value alone on the next;
- a sentence: a commit message or a chat line that names a secret and then gives it
  (`Rotate the token; new one is ...`), where the value must look generated;
- Terraform's state: an output marked `"sensitive": true`, a random_password's result, a
  GitHub secret's plaintext_value.

Whether a name is a secret's and a value a secret is fields.py's and values.py's call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.secrets import fields, values

Found = tuple[str, int, int]

# A word that may end a secret's name, found by re's fast search on the lowered text.
_SECRET_WORD = re.compile(r"pass|pwd|secret|token|cred|auth|key|cookie|psk|seed|mnemonic|wif|xprv|totp|pat(?![a-z])")
_NAME_PART = re.compile(r"[A-Za-z0-9]++")


# An element's tag names what it holds (<WireguardKey>); a plist's or a map's own
# structure (<key>, <string>) names nothing.
_MARKUP = re.compile(r"</?+([A-Za-z_][\w.:\-]{0,60}+)[^<>\n]{0,80}+>")
_STRUCTURAL_TAGS = frozenset(["key", "string", "value", "data", "dict", "entry", "name", "array", "integer", "true", "false"])
_WORD_ONLY = re.compile(r"(?i:pass(?:word|wd|phrase)?|pwd|secret|token|cred(?:ential)?s?|keys?|keypair|cookie|psk|mnemonic|wif|xprv|totp|auth|pat)")


def _family_in(label: str) -> str | None:
    """The family of the strongest secret's name in a short label: a whole name
    (DB_PASSWORD, wgPrivateKey), or a bare secret word taken with the word before it
    (API key, private key; a public key is none)."""
    best: str | None = None
    label = _MARKUP.sub(lambda m: " " if m.group(1).lower() in _STRUCTURAL_TAGS else f" {m.group(1)} ", label)
    names = re.findall(r"[A-Za-z0-9_.\-]++", label)
    for i, name in enumerate(names):
        if name.lower() == "pass" and not label.rstrip().endswith(":"):
            continue  # Python's `pass`, a test that passes: a label says "pass:"
        family = fields.family_of_name(name)
        if family is not None and _WORD_ONLY.fullmatch(name) and i > 0:
            family = fields.family_of_name(f"{names[i - 1]}_{name}")
        if family is not None and (best is None or best == "weak"):
            best = family
    return best


def _judge(family: str, value: str) -> str | None:
    if not value or any(c.isspace() for c in value):
        return None
    return fields.verdict(family, value, False)


# -- columns ---------------------------------------------------------------------------------

_HEADER_CELL = re.compile(r"[ \t\"'`*]*+[A-Za-z][A-Za-z0-9 _.\-]{0,48}+[ \t\"'`*]*+")
_RULE = re.compile(r"[ \t|+:=\-]*+")
_MAX_ROWS = 200


def _cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """Each cell's span in the line, without its padding and quotes; a table's outer bars
    make no cells."""
    spans = []
    position = 0
    parts = line.split(delimiter)
    for i, part in enumerate(parts):
        start, end = position, position + len(part)
        position = end + 1
        if delimiter == "|" and (i == 0 or i == len(parts) - 1) and not part.strip():
            continue
        while start < end and line[start] in " \t\"'`\r":
            start += 1
        while end > start and line[end - 1] in " \t\"'`\r":
            end -= 1
        spans.append((start, end))
    return spans


def _line_at(text: str, position: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return start, len(text) if end < 0 else end


def columns(text: str, lowered: str) -> Iterator[Found]:
    done = -1
    for hit in _SECRET_WORD.finditer(lowered):
        if hit.start() < done:
            continue
        line_start, line_end = _line_at(text, hit.start())
        done = line_end
        line = text[line_start:line_end]
        if len(line) > 400:
            continue
        for delimiter in (",", ";", "\t", "|"):
            if line.count(delimiter) < 1:
                continue
            header = _cells(line, delimiter)
            if len(header) < 2 or not all(_HEADER_CELL.fullmatch(line, a, b) for a, b in header if a < b):
                continue
            families = [fields.family_of_label(line[a:b]) if a < b else None for a, b in header]
            if not any(families):
                continue
            yield from _rows(text, line_end, delimiter, families)
            break


def _rows(text: str, position: int, delimiter: str, families: list[str | None]) -> Iterator[Found]:
    for _ in range(_MAX_ROWS):
        if position >= len(text):
            return
        start = position + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        position = end
        line = text[start:end]
        if not line.strip():
            return
        if _RULE.fullmatch(line):
            continue
        if delimiter not in line:
            return
        for (a, b), family in zip(_cells(line, delimiter), families):
            if family is not None:
                kind = _judge(family, line[a:b])
                if kind is not None:
                    yield kind, start + a, start + b


# -- SQL INSERT ------------------------------------------------------------------------------

_INSERT = re.compile(r"insert[ \t\r\n]++into[ \t\r\n]++[^\s(]{1,128}+[ \t\r\n]*+\(([^)\n]{1,2000}+)\)[ \t\r\n]*+values[ \t\r\n]*+")
_SQL_VALUE = re.compile(
    r"[ \t\r\n]*+(?:[enbxENBX]?+'((?:[^'\\\n]|''|\\.){0,400}+)'|\"((?:[^\"\\\n]|\\.){0,400}+)\"|([^,()\s']{1,200}+(?:\([^()\n]{0,200}+\))?+))[ \t\r\n]*+([,)])"
)


def sql_inserts(text: str, lowered: str) -> Iterator[Found]:
    for match in _INSERT.finditer(lowered):
        names = [name.strip(" \t\"'`[]") for name in text[match.start(1) : match.end(1)].split(",")]
        families = [fields.family_of_name(name) for name in names]
        if not any(families):
            continue
        position = match.end()
        for _ in range(_MAX_ROWS):
            if not text.startswith("(", position):
                break
            position += 1
            for i in range(len(names)):
                value = _SQL_VALUE.match(text, position)
                if value is None:
                    break
                position = value.end()
                group = next((g for g in (1, 2, 3) if value.group(g) is not None), 3)
                family = families[i] if i < len(families) else None
                if family is not None:
                    kind = _judge(family, value.group(group))
                    if kind is not None:
                        yield kind, value.start(group), value.end(group)
                if value.group(4) == ")":
                    break
            comma = re.compile(r"[ \t\r\n]*+,[ \t\r\n]*+").match(text, position)
            if comma is None:
                break
            position = comma.end()


# -- the name on the line before -------------------------------------------------------------

_LONE = re.compile(r"^[ \t>]*+[\"'`]?+([^\s\"'`]{8,512}+)[\"'`]?+[ \t]*+\r?$", re.MULTILINE)


# A line that gives its own name a value (`db_password: !vault |`) labels nothing below it.
_OWN_VALUE = re.compile(r"[:=][ \t]*+[^\s:=]")


# A YAML anchor or alias, a decorator, a variable, a tag: what a line holds alone in code.
_NOT_A_VALUE = re.compile(r"[&*][A-Za-z_][\w\-]*+|@[\w.]++(?:\(.*\))?+|\$\{?+\w++\}?+|![\w!]++|%[\w(].*")


_ONE_CELL = re.compile(r"\|++[ \t]*+([^|\s]++)[ \t]*+\|++")


def line_before(text: str, lowered: str) -> Iterator[Found]:
    for match in _LONE.finditer(text):
        value = match.group(1)
        start, end = match.span(1)
        cell = _ONE_CELL.fullmatch(value)
        if cell:  # |value| under ||Header||: a wiki table's one cell
            value = cell.group(1)
            start, end = start + cell.start(1), start + cell.end(1)
        if "<" in value or ">" in value or "," in value or ";" in value or "|" in value or _NOT_A_VALUE.fullmatch(value):
            # markup (read as a field), a CSV or table row (read cell by cell), a variable
            continue
        # Alone on its line, a value must look made up (`volumes:`, `checkNonElements` are
        # no secrets); under a password's label, a word with digits and a symbol will do.
        made_up = fields.made_up(value) or values.looks_generated(value) or (value.isalpha() and values.random_letters(value))
        if not made_up and (value.endswith(":") or not values.password_in_prose(value)):
            continue
        # The label: the line above, or the one above a blank line.
        above_end = match.start() - 1
        for _ in range(2):
            if above_end < 0:
                break
            above_start = text.rfind("\n", 0, above_end) + 1
            label = text[above_start:above_end]
            if label.strip():
                if len(label) <= 120 and _SECRET_WORD.search(label.lower()) and not _OWN_VALUE.search(label):
                    family = _family_in(label)
                    if family is not None and not made_up and family not in ("pass", "pwd", "psk"):
                        break
                    kind = _judge(family, value) if family is not None else None
                    if kind is not None:
                        yield kind, start, end
                break
            above_end = above_start - 1


# -- a sentence that names a secret and then gives it -----------------------------------------

_TOKEN = re.compile(r"(?<![^\s\"'`(\[{,;<>])[^\s\"'`()\[\]{},;<>]{8,}+")
_REACH = 80
# Before the name only a generated value counts: 16 characters or more, a digit among them.
_TOKEN_BEFORE = re.compile(r"(?<![^\s\"'`(\[{,;<>])(?=[^\s\"'`()\[\]{},;<>0-9]{0,512}+[0-9])[^\s\"'`()\[\]{},;<>]{16,}+")
# "the token is now <uuid>": a UUID given to a token's name, not an id beside it.
_COPULA = re.compile(r"(?![^\n]*\bid\b)[^\n]{0,24}?(?:\b(?:is|now|to)\b|->|=|:)[ \t]*+[\"'`]?+")
_UUID_SHAPE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_WORD_REST = re.compile(r"[^\s\"'`]*+")
_BEFORE = 60


_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_NAME_CHARS = _WORD_CHARS + "_-"
_NAME_AFTER = re.compile(r"[a-z0-9_.\-]{0,64}+")
_PER_LINE = 4


def mentions(text: str, lowered: str) -> Iterator[Found]:
    line_end, looked = -1, 0
    done = -1
    for hit in _SECRET_WORD.finditer(lowered):
        if hit.start() < done:
            continue
        if hit.start() > line_end:
            line_end = lowered.find("\n", hit.start())
            line_end = len(lowered) if line_end < 0 else line_end
            looked = 0
        looked += 1
        if looked > _PER_LINE:
            done = line_end  # a line of names (a hostile run, a minified file): its first few
            continue
        if (_TOKEN.search(text, hit.end(), min(line_end, hit.end() + 64 + _REACH)) is None
                and _TOKEN_BEFORE.search(text, max(0, hit.start() - _BEFORE), hit.start()) is None):
            done = min(line_end, hit.end() + _REACH)  # nothing long enough to be a secret follows it
            continue
        after = _NAME_AFTER.match(lowered, hit.end())
        done = after.end() if after else hit.end()  # one look a name, however many secret words it holds
        word_end = done
        while word_end > hit.end() and lowered[word_end - 1] in "_-.":
            word_end -= 1
        # str.rstrip walks back over the name in C: a regex searched backwards would try
        # every start in the window.
        window = text[max(0, hit.start() - 64) : hit.start()]
        word_start = hit.start() - (len(window) - len(window.rstrip(_NAME_CHARS)))
        name = text[word_start:word_end]
        family = fields.family_of_name(name)
        if family is None:
            continue
        if _WORD_ONLY.fullmatch(name):
            gap = text[max(0, word_start - 8) : word_start]
            space = gap.rstrip(" \t_-")
            if len(space) < len(gap) and space:
                words = text[max(0, word_start - 32) : word_start - (len(gap) - len(space))]
                previous = words[len(words.rstrip(_WORD_CHARS)) :]
                if previous:
                    family = fields.family_of_name(f"{previous}_{name}")  # a publishable key is none
                    if family is None:
                        continue
        # A generated value just before the name: "try Kx9... as the key", "X... is the token".
        line_start = text.rfind("\n", max(0, word_start - _BEFORE), word_start) + 1
        for token in _TOKEN_BEFORE.finditer(text, max(line_start, word_start - _BEFORE), word_start):
            if token.end() < word_start and values.looks_generated(token.group().rstrip(".,:!?")):
                done = word_end
                yield "API key or token", token.start(), token.start() + len(token.group().rstrip(".,:!?"))
                break
        for token in _TOKEN.finditer(text, word_end, line_end):
            if token.start() > word_end + _REACH:
                break
            if token.group()[0] in ":=/":
                continue  # the name's own field (OLDPWD=/home/...), not a sentence
            value = token.group().rstrip(".,:!?")
            if _given(family, value) or (family in _STRONG and _UUID_SHAPE.fullmatch(value) and _COPULA.fullmatch(text, word_end, token.start())):
                # To the end of its word: a bracket inside a generated value ends no value.
                word = _WORD_REST.match(text, token.end())
                end = token.end() + len(word.group().rstrip(".,:!?)]}\"'`")) if word else token.start() + len(value)
                done = max(end, token.end())
                yield ("password" if family in ("pass", "pwd", "psk") else "API key or token"), token.start(), max(end, token.start() + len(value))
                break


_STRONG = ("toke", "secr", "cred", "auth", "cook", "totp")


def _given(family: str, value: str) -> bool:
    """In a sentence a value must look generated; a password, made up; after a token's or
    secret's name, made up of letters and digits (hex as short as a Pusher secret's)."""
    if family in _STRONG and fields.made_up(value) and values.looks_like_token(value) and not values.is_key_id(value) and not _UUID_SHAPE.fullmatch(value):
        return True
    shaped = fields.made_up(value) or values.passphrase(value) or (value.isalpha() and values.unpronounceable(value))
    if family in ("pass", "pwd", "psk") and shaped and values.password_in_prose(value) and values.looks_like_password(value):
        return True  # made up, a passphrase with its number, or letters no word holds
    return values.looks_generated(value)


# -- Terraform state -------------------------------------------------------------------------

_SENSITIVE = re.compile(r"\"sensitive\"[ \t]*+:[ \t]*+true")
_TF_VALUE = re.compile(r"\"(?:value|result|plaintext_value)\"[ \t]*+:[ \t]*+\"((?:[^\"\\\n]|\\.){6,4096}+)\"")
_TF_SECRET_ATTRIBUTE = re.compile(r"\"(?:plaintext_value|result)\"[ \t]*+:[ \t]*+\"((?:[^\"\\\n]|\\.){6,4096}+)\"")
# A GitHub secret's plaintext_value is one whatever the resource.
_TF_PLAINTEXT = re.compile(r"\"plaintext_value\"[ \t]*+:[ \t]*+\"((?:[^\"\\\n]|\\.){6,4096}+)\"")
_TF_RANDOM = re.compile(r"\"type\"[ \t]*+:[ \t]*+\"(?:random_password|random_string|github_actions_secret|github_actions_environment_secret|github_dependabot_secret)\"")
_TF_NEAR = 600


def terraform(text: str, lowered: str) -> Iterator[Found]:
    for match in _SENSITIVE.finditer(lowered):
        # The output's value sits in the same object, before or after the mark.
        low, high = max(0, match.start() - _TF_NEAR), min(len(text), match.end() + _TF_NEAR)
        for value in _TF_VALUE.finditer(text, low, high):
            if _plausible(value.group(1)):
                yield "sensitive value", value.start(1), value.end(1)
    for value in _TF_PLAINTEXT.finditer(text):
        if _plausible(value.group(1)):
            yield "sensitive value", value.start(1), value.end(1)
    for match in _TF_RANDOM.finditer(lowered):
        for value in _TF_SECRET_ATTRIBUTE.finditer(text, max(0, match.start() - _TF_NEAR), min(len(text), match.end() + 4 * _TF_NEAR)):
            if _plausible(value.group(1)):
                yield "sensitive value", value.start(1), value.end(1)


def _plausible(value: str) -> bool:
    return not values.is_placeholder(value) and not values.is_reference(value) and (
        values.looks_like_password(value) or values.looks_generated(value)
    )
