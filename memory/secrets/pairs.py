"""Credentials whose name is on another line than their value.

- a name and a value given as two fields: a Kubernetes or CI `- name: DB_PASSWORD` and the
  `value:` under it, ECS's {"name": ..., "value": ...}, CloudFormation's ParameterKey and
  ParameterValue, Hadoop's <name>...</name><value>...</value>, a plist's <key> and
  <string>, a Terraform variable's default;
- a markdown table whose header names a secret (a "Password" or "API key" column);
- a command's output that announces a token (`Created token`, `Your new API key:`) and
  prints it alone on a following line.

Whether the name is a secret's and the value a secret is fields.py's and values.py's call,
as on one line. Each pattern starts at a literal and reads a bounded stretch after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.secrets import fields, values

Found = tuple[str, int, int]  # kind, start, end

_REACH = 300  # how far after a name its value may be
_NAME = r"[A-Za-z0-9_.:\-/]{1,128}+"
# Matched on the lower-cased text (re's own case folding costs ten times as much); the name
# and the value are then read from the text at the same offsets.
_NAME_FIELD = re.compile(
    r"(?:name|key|parameterkey|variable|secretname|var)[\"']?+[ \t]{0,8}+[:=][ \t]{0,8}+[\"']?+(" + _NAME + r")"
    r"|variable[ \t]++\"(" + _NAME + r")\"[ \t]*+\{"
    r"|<(name|key)>[ \t]*+(" + _NAME + r")[ \t]*+</(?:name|key)>"
)
_VALUE_FIELD = re.compile(
    r"(?:value|parametervalue|default|secretstring)[\"']?+[ \t]{0,8}+[:=][ \t]{0,8}+" + fields.quoted_or_bare(1)
    + r"|<(?:value|string)>[ \t]*+([^<\n]{1,400}+)</"
)
# Another name before the value: the value belongs to that one.
_ANOTHER_NAME = re.compile(r"\b(?:name|key|parameterkey|variable)[\"']?+[ \t]{0,8}+[:=]|<(?:name|key)>|\bvariable[ \t]")


def _judged(name: str, value: str) -> str | None:
    family = fields.family_of_name(name)
    if family is None:
        return None
    return fields.verdict(family, value, False)


def name_value_pairs(text: str, lowered: str) -> Iterator[Found]:
    for match in _NAME_FIELD.finditer(lowered):
        group = next(g for g in (1, 2, 4) if match.group(g) is not None)
        name = text[match.start(group) : match.end(group)]
        if fields.family_of_name(name) is None:
            continue
        value = _VALUE_FIELD.search(lowered, match.end(), min(len(text), match.end() + _REACH))
        if value is None or _ANOTHER_NAME.search(lowered, match.end(), value.start()):
            continue
        group = next(g for g in range(1, 6) if value.group(g) is not None)
        start, end = value.span(group)
        kind = _judged(name, text[start:end].strip())
        if kind is not None:
            yield kind, start, end


# -- markdown tables ----------------------------------------------------------------------

_RULE_LINE = re.compile(r"\n[ \t]*+\|?+[ \t]*+:?+-{3,}+:?+[ \t]*+(?:\|[ \t]*+:?+-{3,}+:?+[ \t]*+)++\|?+[ \t]*+(?=\r?\n)")
_MAX_ROWS = 200


_CELL = re.compile(r"[^|]++")


def _row(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of a table row's cells, each without its padding, backticks or quotes."""
    cells = []
    line = text[start:stop]
    body_start = start + (line.index("|") + 1 if line.lstrip().startswith("|") else 0)
    for cell in _CELL.finditer(text, body_start, stop):
        a, b = cell.span()
        while a < b and text[a] in " \t`\"'":
            a += 1
        while b > a and text[b - 1] in " \t`\"'\r":
            b -= 1
        cells.append((a, b))
    if cells and line.rstrip().endswith("|") and cells[-1][0] == cells[-1][1]:
        cells.pop()
    return cells


def _secret_in_cell(text: str, span: tuple[int, int], family: str) -> Found | None:
    value = text[span[0] : span[1]]
    # One word: a parameter table's description ("Password for the admin user") is none.
    if not value or any(c.isspace() for c in value):
        return None
    kind = fields.verdict(family, value, False)
    return None if kind is None else (kind, span[0], span[1])


def tables(text: str, lowered: str) -> Iterator[Found]:
    """A column whose header names a secret, and a cell that names one followed by its value."""
    done = 0  # the end of the last table read: its rows are not read again as another's
    for rule in _RULE_LINE.finditer(text):
        if rule.start() < done:
            continue
        header_start = text.rfind("\n", 0, rule.start()) + 1
        families = [fields.family_of_label(text[a:b]) for a, b in _row(text, header_start, rule.start())]
        position = rule.end() + 1
        for _ in range(_MAX_ROWS):
            if position >= len(text):
                break
            stop = text.find("\n", position)
            stop = len(text) if stop < 0 else stop
            if "|" not in text[position:stop]:
                break
            cells = _row(text, position, stop)
            for i, span in enumerate(cells):
                family = families[i] if i < len(families) else None
                found = _secret_in_cell(text, span, family) if family else None
                if found is None and i + 1 < len(cells):
                    named = fields.family_of_name(text[span[0] : span[1]])
                    found = _secret_in_cell(text, cells[i + 1], named) if named else None
                if found is not None:
                    yield found
            position = stop + 1
        done = position


# -- output that announces a token ----------------------------------------------------------

_ANNOUNCED = re.compile(
    r"(?:created|generated|new|issued|your|here is|here's|rotated|copy)[^\n]{0,80}?"
    r"(?:token|key|secret|password|credential)[^\n]{0,80}+((?:\r?\n[ \t]*+){1,3}+)[\"'`]?+([^\s\"'`]{16,512}+)[\"'`]?+[ \t]*+(?=\r?\n|\Z)"
    r"|\$[ \t][^\n]{0,120}?\btoken\b[^\n]{0,40}+((?:\r?\n[ \t]*+){1})([^\s]{16,512}+)[ \t]*+(?=\r?\n|\Z)"
)


def announced(text: str, lowered: str) -> Iterator[Found]:
    for match in _ANNOUNCED.finditer(lowered):
        group = 2 if match.group(2) is not None else 4
        start, end = match.span(group)
        value = text[start:end]
        if fields.made_up(value) and (values.looks_like_token(value) or values.looks_like_password(value)):
            yield "API key or token", start, end


# -- a value before its name, in a sentence ------------------------------------------------

_VALUE_THEN_NAME = re.compile(
    r"\b(?:use|used|using|try|tried|paste|pasted)[ \t]{1,4}+[\"'`]?+([^\s\"'`]{8,256}+)[\"'`]?+[ \t]{1,4}+(?:as|for)[ \t]{1,4}+"
    r"(?:(?:the|a|my|our|your|new)[ \t]{1,4}+)?+(?:[a-z]{2,12}+[ \t]{1,4}+)?+(password|passwd|pw|token|secret|key|credentials?)\b"
)
_LOGIN_WITH = re.compile(
    r"\b(?:log(?:ging)?+[ \t]?+in|sign(?:ing)?+[ \t]in|login|authenticate|connect)[ \t]{1,4}+(?:as|with)[ \t]{1,4}+"
    r"[\"'`]?+[^\s\"'`]{1,64}+[\"'`]?+[ \t]{1,4}+(?:and|/|with|password)[ \t]{1,4}+[\"'`]?+([^\s\"'`]{6,256}+)"
)


def value_then_name(text: str, lowered: str) -> Iterator[Found]:
    for match in _VALUE_THEN_NAME.finditer(lowered):
        start, end = match.span(1)
        value = text[start:end].rstrip(".,;:!?)")
        if values.looks_like_token(value) or (match.group(2).startswith("p") and values.password_in_prose(value)):
            yield ("password" if match.group(2).startswith("p") else "API key or token"), start, start + len(value)
    for match in _LOGIN_WITH.finditer(lowered):
        start, end = match.span(1)
        value = text[start:end].rstrip(".,;:!?)")
        if values.password_in_prose(value) and not values.is_placeholder(value):
            yield "password", start, start + len(value)
