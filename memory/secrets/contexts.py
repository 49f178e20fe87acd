"""Credentials known by what surrounds them: a flag on a command line, a credential
file's layout (.netrc, .pgpass, a private key), a URL's userinfo, an Authorization
header; and FINDERS, the list of every such finder the scanner runs, field names
(fields.py) included.

The value's own shape is judged in values.py, so a note saying where a password is kept
passes where the password itself would not. The patterns keep formats.py's discipline
(possessive, bounded where something follows, anchored at a literal or a run's start) and
what regexes cannot say cheaply (the command on the line) is read in Python around each
match, each line once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memory.secrets import fields, layouts, pairs, shapes, values
from memory.secrets.fields import quoted_or_bare, value_span
from memory.secrets.formats import Rule

Found = tuple[str, int, int]  # kind, start, end


@dataclass(frozen=True)
class Finder:
    # (text, its lower-cased copy of the same length) -> (kind, start, end) of each secret
    find: Callable[[str, str], Iterator[Found]]
    triggers: tuple[str, ...] = ()


# -- command lines -----------------------------------------------------------------------

_LONG_FLAG = re.compile(
    r"--(?<![A-Za-z0-9\-]--)(password|passwd|passphrase|pass|psk|token|api-key|apikey|secret|client-secret|access-token|auth-token|private-key|secret-key|auth-key)"
    r"[ \t]{1,4}+" + quoted_or_bare(1)
)
# Any long flag whose name is a secret's (--erlang-cookie, --wg-private-key=...): judged
# as the same name would be in a config file.
_NAMED_FLAG = re.compile(r"--(?<![A-Za-z0-9\-]--)([A-Za-z0-9][A-Za-z0-9\-]{0,48}+)(?:=|[ \t]{1,4}+)" + quoted_or_bare(1))
_SHORT_P = re.compile(r"-p(?<![A-Za-z0-9\-]-p)([ \t]{1,4}+)?+" + quoted_or_bare(1))
_USER_PASS = re.compile(r"-(?<![A-Za-z0-9\-]-)(?:u|a|-user)(?:[ \t]{1,4}+|=)[\"']?[^\s:\"']{1,128}+:([^\s\"']{1,256}+)")
# Commands that take a secret as a positional argument or a --value.
_POSITIONAL = re.compile(r"rabbitmqctl[ \t]++(?:add_user|change_password)[ \t]++\S{1,128}+[ \t]++" + quoted_or_bare(1))
_REDIS_PASS = re.compile(r"-(?<![A-Za-z0-9\-]-)(?:a|-pass)[ \t]++" + quoted_or_bare(1))
# htpasswd -b [-c] FILE USER PASSWORD, or -nb USER PASSWORD.
_HTPASSWD = re.compile(r"htpasswd((?:[ \t]++-[A-Za-z]{1,6}+)++)((?:[ \t]++(?!-)\S{1,256}+){2,3}+)")
_ARGUMENT = re.compile(r"\S++")
_VALUE_FLAG = re.compile(r"--(?<![A-Za-z0-9\-]--)(?:value|body|secret-string|secret-value)(?:[ \t]{1,4}+|=)" + quoted_or_bare(1))
_SECRET_NAME = re.compile(r"--(?:name|secret-name|id|key)[ \t=]++[\"']?([A-Za-z0-9_.:\-/]{1,128}+)")
_MYSQL = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b")
_LOGIN = re.compile(r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry|az|oc|cf|argocd)\b[^\n]{0,80}?\blogin\b|\bsshpass\b")
_CURL = re.compile(r"\b(?:curl|http|https|xh)\b")
# ldapsearch, ldapmodify, ldapadd, ldapwhoami...: -w takes the bind password (-W asks for it).
_LDAP_W = re.compile(r"-w(?<![A-Za-z0-9\-]-w)[ \t]{1,4}+" + quoted_or_bare(1))
_LDAP = re.compile(r"\bldap[a-z]{3,10}+\b")
# Oracle's tools take user/password@database as one argument: sqlplus scott/tiger@orcl.
_ORACLE_LOGIN = (
    r"\b(?:[ \t]++-[a-z]{1,10}+)*+[ \t]++(?:target[ \t]++|auxiliary[ \t]++|catalog[ \t]++|userid=)?+[\"']?+[a-z0-9_$#.]{1,64}+/"
    r"([^\s/\"']{1,128}+)"
)
# Two patterns, each with a literal start for re's fast search: the tools, and SQL*Plus's
# own CONNECT at the start of a line of a script or after its prompt.
_ORACLE = (
    re.compile(r"(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)" + _ORACLE_LOGIN, re.MULTILINE),
    re.compile(r"conn(?:ect)?+" + _ORACLE_LOGIN, re.MULTILINE),
)


class _Lines:
    """The start of the line holding a position (its first 300 characters, lower case),
    for positions met in order: each line is found once, so a megabyte on one line with
    a flag every few characters costs one search, not one per flag."""

    def __init__(self, lowered: str) -> None:
        self._text = lowered
        self._start = self._end = -1
        self._head = ""

    def head(self, position: int) -> str:
        if not self._start <= position < self._end:
            # Back only to the last line's end: together the searches read the text once.
            low = self._end if 0 <= self._end <= position else 0
            start = self._text.rfind("\n", low, position) + 1
            end = self._text.find("\n", position)
            self._start, self._end = start, len(self._text) if end < 0 else end
            self._head = self._text[start : start + 300]
        return self._head


def _plausible(value: str) -> bool:
    value = values.strip_quotes(value)
    return len(value) >= 3 and not values.is_placeholder(value) and not values.is_reference(value)


def _command_lines(text: str, lowered: str) -> Iterator[Found]:
    short_p_lines, user_lines, redis_lines, value_lines = (_Lines(lowered) for _ in range(4))
    for match in _LONG_FLAG.finditer(text):
        start, end = value_span(match, 2)
        password = match.group(1).startswith(("pass", "psk"))
        value = text[start:end]
        if values.looks_like_password(value) if password else values.looks_like_token(value):
            yield ("password" if password else "API key or token"), start, end
    for match in _NAMED_FLAG.finditer(text):
        family = fields.family_of_name(match.group(1).replace("-", "_"))
        if family is not None:
            start, end = value_span(match, 2)
            kind = fields.verdict(family, text[start:end], False)
            if kind is not None:
                yield kind, start, end
    for match in _SHORT_P.finditer(text):
        start, end = value_span(match, 2)
        line = short_p_lines.head(match.start())
        # `mysql -pSECRET` has no space; `docker login -p SECRET` and `sshpass -p SECRET` do.
        command = _LOGIN.search(line) if match.group(1) is not None else _MYSQL.search(line)
        if command and _plausible(text[start:end]):
            yield "password", start, end
    for match in _USER_PASS.finditer(text):
        if _CURL.search(user_lines.head(match.start())) and _plausible(match.group(1)):
            yield "password", match.start(1), match.end(1)
    for match in _POSITIONAL.finditer(text):
        start, end = value_span(match, 1)
        if _plausible(text[start:end]):
            yield "password", start, end
    for match in _REDIS_PASS.finditer(text):
        start, end = value_span(match, 1)
        if "redis-cli" in redis_lines.head(match.start()) and _plausible(text[start:end]):
            yield "password", start, end
    for match in _HTPASSWD.finditer(text):
        options = match.group(1)
        arguments = list(_ARGUMENT.finditer(text, match.start(2), match.end(2)))
        wanted = 1 if "n" in options else 2
        if "b" in options and len(arguments) > wanted and _plausible(arguments[wanted].group()):
            yield "password", arguments[wanted].start(), arguments[wanted].end()
    ldap_lines = _Lines(lowered)
    for match in _LDAP_W.finditer(text):
        start, end = value_span(match, 1)
        if _LDAP.search(ldap_lines.head(match.start())) and _plausible(text[start:end]):
            yield "password", start, end
    for match in _VALUE_FLAG.finditer(text):
        # az keyvault secret set --name DbPassword --value ..., aws secretsmanager --secret-string ...
        start, end = value_span(match, 1)
        line = value_lines.head(match.start())
        named = _SECRET_NAME.search(line)
        secretish = "secret" in line or (named is not None and fields.names_a_secret(named.group(1)))
        if secretish and values.looks_like_password(text[start:end]):
            yield "password", start, end


def _oracle(text: str, lowered: str) -> Iterator[Found]:
    for tools, pattern in enumerate(_ORACLE):
        for match in pattern.finditer(lowered):
            before = lowered[lowered.rfind("\n", max(0, match.start() - 80), match.start()) + 1 : match.start()]
            if before.strip() not in ("", "sql>") if tools else before[-1:].isalnum() or before[-1:] == "_":
                continue  # CONNECT only where SQL*Plus reads it; a tool's name not inside a word
            start, end = match.span(1)
            if "@" in lowered[start:end]:
                end = lowered.rindex("@", start, end)  # the database follows the last "@"
            if values.looks_like_password(text[start:end]):
                yield "password", start, end


# -- credential files --------------------------------------------------------------------

_NETRC = re.compile(r"password(?<![A-Za-z0-9_\-]password)[ \t]{1,16}+([^\s]{1,256}+)")
# .pgpass: host:port:database:user:password. The cheap search finds ":5432:" or ":*:";
# the whitespace-delimited word around it is then checked once.
_PGPASS_HINT = re.compile(r":(?:\*|[0-9]{2,5}+):")
_PGPASS = re.compile(r"[A-Za-z0-9.\-_*]{1,253}+:(?:\*|[0-9]{2,5}+):([^:\s]{1,63}+):([^:\s]{1,63}+):(\S{1,256}+)")
_SPACE = re.compile(r"\s")


def _netrc(text: str, lowered: str) -> Iterator[Found]:
    for match in _NETRC.finditer(text):
        around = text[max(0, match.start() - 300) : match.start()]
        if ("machine " in around or "default " in around or "login " in around) and _plausible(match.group(1)):
            yield "password", match.start(1), match.end(1)


def _pgpass(text: str, lowered: str) -> Iterator[Found]:
    done = -1
    for hint in _PGPASS_HINT.finditer(text):
        if hint.start() < done:
            continue
        start = hint.start()
        while start > 0 and hint.start() - start < 260 and not text[start - 1].isspace():
            start -= 1
        space = _SPACE.search(text, hint.end())
        done = stop = space.start() if space else len(text)
        match = _PGPASS.fullmatch(text, start, stop)
        if match is None:
            continue
        database, user, password = match.groups()
        if database != "*" and not any(c.isalpha() for c in database):
            continue  # file.c:120:5:... is a compiler's line and column
        if user != "*" and not (user[0].isalpha() or user[0] == "_"):
            continue  # 3C:22:FB:1A:9E:04 is a MAC address
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
            body = _BODY.match(text, begin.end())  # matches, if only the empty string
            stop = body.end() if body else begin.end()
        covered = stop
        yield "private key", begin.start(), stop


# -- URLs and headers --------------------------------------------------------------------

# The user may be an e-mail address (smtp://me@acme.io:pw@smtp.acme.io) and the password may
# hold an "@": the host starts after the last "@" before the path. The password's run is
# bounded and ends at the first "/" or space, so the search back for that "@" is short.
_URL_PASSWORD = re.compile(r"://(?<=[A-Za-z0-9+.\-]://)[^\s:/\"'<>]{0,256}+:([^\s/\"'<>]{1,256})@(?=[A-Za-z0-9\[])")
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
    # Composer's auth.json: {"github-oauth": {"github.com": "<token>"}}.
    Rule(
        "API key or token",
        re.compile(r"-oauth\"(?:(?<=github-oauth\")|(?<=gitlab-oauth\")|(?<=bitbucket-oauth\"))[ \t]*+:[ \t]*+\{[ \t\n]*+\"[^\"\n]{1,100}+\"[ \t]*+:[ \t]*+\"([^\"\n]{8,400}+)\""),
        (1,),
        None,
        ('-oauth"',),
        lowered=True,
    ),
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

_SECRET_WORDS = ("pass", "pwd", "secret", "token", "cred", "auth", "pat", "key", "cookie", "psk", "seed", "mnemonic", "wif", "xprv", "totp")

FINDERS: tuple[Finder, ...] = (
    Finder(_private_keys, ("private key",)),
    Finder(_urls_and_headers, ("://", "authorization")),
    Finder(_command_lines, ("-p", "-u", "-a", "-w", "--", "rabbitmqctl", "htpasswd", "redis-cli")),
    Finder(_oracle, ("sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "conn ", "connect ")),
    Finder(_netrc, ("password",)),
    Finder(_pgpass, (":",)),
    Finder(fields.attribute_pairs, ("value=",)),
    Finder(pairs.name_value_pairs, ("name", "key", "variable", "var")),
    Finder(pairs.tables, ("---",)),
    Finder(pairs.announced, ("token", "key", "secret", "password", "credential")),
    Finder(pairs.value_then_name, (" as ", " for ", " with ", " and ", "/")),
    Finder(fields.cookies, ("cookie", "-b")),
    Finder(shapes.keypairs, (",",)),
    Finder(shapes.wallet_keys),
    Finder(shapes.recovery_phrases),
    Finder(shapes.directives, ("requirepass", "masterauth", "setcookie", "auth", "wifi:", "nmcli", "echo", "wpa_passphrase", "securestring")),
    Finder(layouts.sql_inserts, ("insert",)),
    Finder(layouts.terraform, ('"sensitive"', '"type"', '"plaintext_value"')),
    Finder(layouts.columns, _SECRET_WORDS),
    Finder(layouts.line_before, _SECRET_WORDS),
    Finder(layouts.mentions, _SECRET_WORDS),
    # Last: a specific rule that finds the same value names it better.
    Finder(fields.fields_and_names, (*_SECRET_WORDS, "session", "wallet")),
    Finder(fields.random_literals, ('"', "'", "`")),
)
