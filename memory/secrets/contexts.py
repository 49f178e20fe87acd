"""Credentials known by what surrounds them: a field name, a flag, a URL, a file's format.

The value's own shape is judged in values.py, so a note saying where a password is kept
passes where the password itself would not. The patterns keep formats.py's discipline
(possessive, bounded where something follows, anchored at a literal or a run's start) and
what regexes cannot say cheaply (the whole field name, the command on the line) is read
in Python around each match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memory.secrets import values
from memory.secrets.formats import Rule

Found = tuple[str, int, int]  # kind, start, end


@dataclass(frozen=True)
class Finder:
    # (text, its lower-cased copy of the same length) -> (kind, start, end) of each secret
    find: Callable[[str, str], Iterator[Found]]
    triggers: tuple[str, ...] = ()


# -- name = value, and a key after a name: creds_<key> -----------------------------------

# Each keyword is a literal, so `re` finds it by its fast search instead of trying an
# alternation at every character.
# keyword, and the shortest value worth a look (a password has 6 characters or more, a
# token 16): a value too short to be a secret then costs no Python at all.
_KEYWORDS = (
    (r"pass(?:word|wd|phrase)?+s?+", 6),
    (r"pwd", 6),
    (r"secrets?+", 8),
    (r"tokens?+", 16),
    (r"cred(?:ential)?+s?+", 8),
    (r"auth", 16),
    (r"pat", 16),
    (r"keys?+", 16),
)
_SEPARATOR = r"[\"'`]?[ \t]{0,16}+(?::=|=>|[:=])[ \t]{0,16}+"


def _quoted_or_bare(shortest: int) -> str:
    n = shortest
    return rf"(?:\"([^\"\n]{{{n},400}}+)\"?|'([^'\n]{{{n},400}}+)'?|`([^`\n]{{{n},400}}+)`?|([^\s;,\"'`&)]{{{n},}}+))"


_QUOTED_OR_BARE = _quoted_or_bare(1)
_FIELDS = tuple(
    re.compile(keyword + r"(?:" + _SEPARATOR + _quoted_or_bare(shortest) + r"|[_\-]([a-z0-9]{6,}+))")
    for keyword, shortest in _KEYWORDS
)
_LETTERS = re.compile(r"[a-z]++")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.$@")
_LINE_START = re.compile(r"[\s\-\"'{,]*+(?:(?:export|set|setx)[ \t]++)?+")
_PASSWORD_WORDS = ("pass", "pwd")
# What makes "..._key" a credential's name: api_key, client_key; not cache_key, sort_key.
_KEY_QUALIFIERS = (
    "api", "access", "secret", "private", "signing", "encryption", "master", "app", "client", "account",
    "storage", "subscription", "admin", "license", "consumer", "webhook", "deploy", "servicerole",
    "service_role", "sharedaccess", "shared_access", "auth", "ssh", "gpg", "pgp", "sas", "hmac",
)


def _value(match: re.Match[str], first: int) -> tuple[int, int] | None:
    for group in range(first, first + 4):
        if match.group(group) is not None:
            return match.span(group)
    return None


def _field_kind(text: str, key_start: int, word_start: int, word: str) -> str | None:
    """"password", "token" or None, from the whole field name before the separator."""
    family = next((w for w in _PASSWORD_WORDS if word.startswith(w)), word[:4])
    if word_start > key_start:
        before = text[word_start - 1]
        key = text[key_start : word_start + len(word)]
        camel = (before.islower() or before.isdigit()) and text[word_start].isupper()
        joined = (key.isupper() or key.islower()) and (family != "pass" or key.isupper())
        if family in ("auth", "pat", "keys", "key"):
            joined = False
        if before not in "_-.$@" and not camel and not joined:
            return None  # "bypass", "oauth", "compat"
    elif word in ("pass", "pat"):
        # A bare "pass:" is a field only at the start of its line: "tests pass: 12" is prose.
        line = text.rfind("\n", 0, key_start) + 1
        if not _LINE_START.fullmatch(text, line, key_start):
            return None
    if family.startswith("key"):
        qualifier = text[key_start:word_start].lower().rstrip("_-.")
        if not qualifier.endswith(_KEY_QUALIFIERS):
            return None
    return "password" if family in _PASSWORD_WORDS else family


def _field_value(family: str, value: str) -> str | None:
    if family in ("pass", "pwd"):
        return "password" if values.looks_like_password(value) else None
    if values.looks_like_token(value):
        return "API key or token"
    # A secret or credentials field may hold a password-like value shorter than a token.
    if family in ("secr", "cred") and len(value) >= 8 and values.looks_like_password(value) and not values.is_wordy(value):
        return "API key or token"
    return None


def _fields(text: str, lowered: str) -> Iterator[Found]:
    for pattern in _FIELDS:
        for match in pattern.finditer(lowered):
            word_start, word = match.start(), _LETTERS.match(lowered, match.start()).group()
            if match.group(5) is not None:
                yield from _named(text, match, word_start, word)
                continue
            key_start = word_start
            while key_start > 0 and word_start - key_start < 64 and text[key_start - 1] in _KEY_CHARS:
                key_start -= 1
            family = _field_kind(text, key_start, word_start, word)
            span = _value(match, 1)
            if family is None or span is None:
                continue
            kind = _field_value("pass" if family == "password" else family, text[span[0] : span[1]])
            if kind is not None:
                yield kind, span[0], span[1]


def _named(text: str, match: re.Match[str], word_start: int, word: str) -> Iterator[Found]:
    """A key after a word and `_` or `-`: creds_<key>.md, token-<key>, api_key_<key>."""
    if word_start > 0 and text[word_start - 1].isalnum():
        return
    start, end = match.span(5)
    value = text[start:end]
    password_word = word.startswith(("pass", "pwd", "cred"))
    if (password_word and values.mixed_case_and_digit(value)) or values.looks_random(value):
        yield "credential in a name", start, end


# -- command lines -----------------------------------------------------------------------

_LONG_FLAG = re.compile(
    r"--(?<![A-Za-z0-9\-]--)(password|passwd|pass|token|api-key|apikey|secret|client-secret|access-token|auth-token)"
    r"[ \t]{1,4}+" + _QUOTED_OR_BARE
)
_SHORT_P = re.compile(r"-p(?<![A-Za-z0-9\-]-p)([ \t]{1,4}+)?+" + _QUOTED_OR_BARE)
_USER_PASS = re.compile(r"-(?<![A-Za-z0-9\-]-)(?:u|a|-user)(?:[ \t]{1,4}+|=)[\"']?[^\s:\"']{1,128}+:([^\s\"']{1,256}+)")
_MYSQL = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b")
_LOGIN = re.compile(r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry)\b[^\n]{0,80}?\blogin\b|\bsshpass\b")
_CURL = re.compile(r"\b(?:curl|http|https|xh)\b")


def _line_before(text: str, position: int) -> str:
    line = text.rfind("\n", 0, position) + 1
    return text[max(line, position - 300) : position].lower()


def _plausible(value: str) -> bool:
    value = values.strip_quotes(value)
    return len(value) >= 3 and not values.is_placeholder(value) and not values.is_reference(value)


def _command_lines(text: str, lowered: str) -> Iterator[Found]:
    for match in _LONG_FLAG.finditer(text):
        start, end = _value(match, 2)
        password = match.group(1).startswith("pass")
        value = text[start:end]
        if values.looks_like_password(value) if password else values.looks_like_token(value):
            yield ("password" if password else "API key or token"), start, end
    for match in _SHORT_P.finditer(text):
        start, end = _value(match, 2)
        line = _line_before(text, match.start())
        # `mysql -pSECRET` has no space; `docker login -p SECRET` and `sshpass -p SECRET` do.
        command = _LOGIN.search(line) if match.group(1) is not None else _MYSQL.search(line)
        if command and _plausible(text[start:end]):
            yield "password", start, end
    for match in _USER_PASS.finditer(text):
        if _CURL.search(_line_before(text, match.start())) and _plausible(match.group(1)):
            yield "password", match.start(1), match.end(1)


# -- credential files --------------------------------------------------------------------

_NETRC = re.compile(r"password(?<![A-Za-z0-9_\-]password)[ \t]{1,16}+([^\s]{1,256}+)")
# .pgpass: host:port:database:user:password. The cheap search finds ":5432:" or ":*:";
# the whole line is then checked once.
_PGPASS_HINT = re.compile(r":(?:\*|[0-9]{2,5}+):")
_PGPASS = re.compile(r"[ \t]*+(?:\S{0,200}+[ \t]++)?+[A-Za-z0-9.\-_*]{1,253}+:(?:\*|[0-9]{2,5}+):([^:\s]{1,63}+):([^:\s]{1,63}+):(\S{1,256}+)[ \t]*+\r?")


def _netrc(text: str, lowered: str) -> Iterator[Found]:
    for match in _NETRC.finditer(text):
        around = text[max(0, match.start() - 300) : match.start()]
        if ("machine " in around or "default " in around or "login " in around) and _plausible(match.group(1)):
            yield "password", match.start(1), match.end(1)


def _pgpass(text: str, lowered: str) -> Iterator[Found]:
    done = -1
    for hint in _PGPASS_HINT.finditer(text):
        line = text.rfind("\n", 0, hint.start()) + 1
        if line <= done:
            continue
        stop = text.find("\n", hint.end())
        done = stop = len(text) if stop < 0 else stop
        match = _PGPASS.fullmatch(text, line, stop)
        if match is None:
            continue
        database, user, password = match.groups()
        if database != "*" and not any(c.isalpha() for c in database):
            continue  # file.c:120:5:... is a compiler's line and column
        if user != "*" and not any(c.isalpha() for c in user):
            continue
        if len(password) >= 4 and _plausible(password):
            yield "password", match.start(3), match.end(3)


_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_END_KEY = re.compile(r"-----END (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
# Without an END line, the key's body still follows its header: base64 lines and the
# "Proc-Type:" headers of an encrypted key, each line whole.
_BODY = re.compile(
    r"(?:[ \t]*+\r?\n[ \t]*+(?:[A-Za-z0-9+/=]{1,128}+|[A-Za-z][A-Za-z0-9\-]{0,40}+:[^\n]{0,200}+)?+(?=[ \t]*+(?:\r?\n|\Z)))*+"
)
_MAX_KEY = 64 * 1024


def _private_keys(text: str, lowered: str) -> Iterator[Found]:
    # The next END after a position is remembered: many headers without an END must not
    # each search to the end of the text.
    searched, end_match = False, None
    covered = 0
    for begin in _BEGIN.finditer(text):
        if begin.start() < covered:
            continue
        if not searched or (end_match is not None and end_match.start() < begin.end()):
            end_match = _END_KEY.search(text, begin.end())
            searched = True
        if end_match is not None and end_match.start() - begin.end() <= _MAX_KEY:
            stop = end_match.end()
        else:
            stop = _BODY.match(text, begin.end()).end()
        covered = stop
        yield "private key", begin.start(), stop


# -- URLs and headers --------------------------------------------------------------------

_URL_PASSWORD = re.compile(r"://(?<=[A-Za-z0-9+.\-]://)[^\s:/@\"'<>]{0,256}+:([^\s/@\"'<>]{1,256}+)@")
_AUTH_HEADER = re.compile(
    r"authorization(?<![a-z0-9]authorization)[\"']?[ \t]{0,8}+[:=][ \t]{0,8}+[\"']?"
    r"(?:token|bot|ssws|apikey|api-key|key|sharedaccesssignature)[ \t]{1,8}+([^\s\"',;]{8,}+)"
)


def _urls_and_headers(text: str, lowered: str) -> Iterator[Found]:
    for match in _URL_PASSWORD.finditer(text):
        if not values.is_placeholder(match.group(1)):
            yield "password in URL", match.start(1), match.end(1)
    for match in _AUTH_HEADER.finditer(lowered):
        start, end = match.span(1)
        value = text[start:end]
        if not values.is_placeholder(value) and (values.looks_like_token(value) or values.has_digit_and_letter(value)):
            yield "authorization header", start, end


RULES: tuple[Rule, ...] = (
    Rule(
        "bearer token",
        re.compile(r"bearer(?<![a-z0-9]bearer)[ \t]{1,8}+([a-z0-9\-._~+/]{16,}+=*+)"),
        (1,),
        lambda v: values.has_digit_and_letter(v) or values.random_letters(v),
        ("bearer",),
        lowered=True,
    ),
    Rule(
        "basic auth credentials",
        re.compile(r"authorization(?<![a-z0-9]authorization)[ \t]{0,8}+:[ \t]{0,8}+basic[ \t]{1,8}+([a-z0-9+/]{8,}+={0,2}+)"),
        (1,),
        None,
        ("basic",),
        lowered=True,
    ),
)

FINDERS: tuple[Finder, ...] = (
    Finder(_private_keys, ("private key",)),
    Finder(_urls_and_headers, ("://", "authorization")),
    Finder(_command_lines, ("-p", "-u", "-a", "--")),
    Finder(_netrc, ("password",)),
    Finder(_pgpass, (":",)),
    # Last: a specific rule that finds the same value names it better.
    Finder(_fields, ("pass", "pwd", "secret", "token", "cred", "auth", "pat", "key")),
)
