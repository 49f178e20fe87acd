"""Text shaped like a credential.

Memory is fed back into every later prompt, and tool output goes to the model and the
screen, so a key that slips into either is copied again and again. This is a denylist of
well-known shapes: it catches the common ones, not every secret. It is tuned so that
ordinary engineering notes (commit hashes, UUIDs, paths, warning codes, versions) pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


def _has_digit_and_letter(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _mixed_case_and_digit(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        and any(c.islower() for c in token)
        and any(c.isupper() for c in token)
    )


_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_][A-Za-z0-9_]*\}?      # $VAR, ${VAR}
      | \$\(.*                              # $(command)
      | %\(.*                               # %(name)s
      | %[A-Za-z_][A-Za-z0-9_]*%            # %VAR%
      | \{\{?[^}]*\}?\}                     # {name}, {{ name }}
      | <[^>]*>                             # <password>
      | \[masked:(?:\ [^\]]*\])?            # our own marker, cut at its space or whole: masking twice changes nothing
      | \*+ | x+ | X+ | \.+                 # masked already
      | (?i:your[_-]?\w*|changeme|example\w*|placeholder|redacted|secret|password|passwd|token|none|null|true|false)
    )$""",
    re.VERBOSE,
)


# Code that reads a secret is not a secret: getpass(), os.environ[...], settings.db_password.
_CODE = re.compile(r"^(?:[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)$")


def _not_placeholder(token: str) -> bool:
    return not _PLACEHOLDER.match(token.strip("\"'`"))


# The shell's PWD and OLDPWD, printed by every `env` in a build log, hold a folder.
_PATH_VALUE = re.compile(r"^(?:~|\.{1,2})?/[\w.~/-]*$")


def _password_value(token: str) -> bool:
    # A bare word such as "required" or "rotated" after "password:" is prose, not a password.
    token = token.strip("\"'`")
    if len(token) < 6 or not _not_placeholder(token) or _CODE.match(token) or _PATH_VALUE.match(token):
        return False
    return any(not c.isalpha() for c in token)


def _generic_token_value(token: str) -> bool:
    token = token.strip("\"'`")
    if len(token) < 16 or not _not_placeholder(token):
        return False
    if "/" in token and not re.search(r"[A-Za-z0-9]{16}", token):
        return False  # a path, not a key
    if _CODE.match(token):
        return False
    return _has_digit_and_letter(token)


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    # Which groups hold the secret itself (the first that took part is used); the rest of
    # the match is context, kept when masking so "Password=" stays readable.
    groups: tuple[int, ...] = (0,)
    check: Callable[[str], bool] | None = None
    # Lower-case substrings one of which every match contains. Scanning with `in` is far
    # cheaper than a regex, so a rule runs only on text that has one: a whole 300 KB
    # build log costs milliseconds instead of a third of a second.
    triggers: tuple[str, ...] = ()


# Word edges for keys: a key never continues into a letter, digit, '-' or '_'.
_B = r"(?<![A-Za-z0-9_\-])"
_E = r"(?![A-Za-z0-9_\-])"

_KEY_WORDS = (
    r"(?:api[_\-.]?key|apikey|api[_\-.]?token|access[_\-.]?key(?:[_\-.]?id)?|secret[_\-.]?key|"
    r"access[_\-.]?token|auth[_\-.]?token|refresh[_\-.]?token|id[_\-.]?token|client[_\-.]?secret|"
    r"app[_\-.]?secret|private[_\-.]?key|signing[_\-.]?key|encryption[_\-.]?key|webhook[_\-.]?secret|"
    r"secret|token|credentials?|auth)"
)

_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
        ),
        triggers=("private key",),
    ),
    _Rule("Anthropic API key", re.compile(_B + r"sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}" + _E), triggers=("sk-ant-",)),
    _Rule(
        "OpenAI API key",
        re.compile(_B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}" + _E),
        check=lambda t: not t.startswith("sk-ant-") and _has_digit_and_letter(t),
        triggers=("sk-",),
    ),
    _Rule(
        "AWS access key ID",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}(?![A-Z0-9])"),
        triggers=("akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "apka", "aroa"),
    ),
    _Rule(
        "AWS secret access key",
        re.compile(
            r"(?i:aws_?secret(?:_?access)?_?key|secret_?access_?key|aws_?secret)[\"']?\s*[:=]\s*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        groups=(1,),
        triggers=("secret",),
    ),
    _Rule("GitHub token", re.compile(_B + r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}" + _E), triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _Rule("GitHub token", re.compile(_B + r"github_pat_[A-Za-z0-9_]{22,}" + _E), triggers=("github_pat_",)),
    _Rule("GitLab token", re.compile(_B + r"gl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_\-]{20,}" + _E), triggers=("gl",)),
    _Rule("Slack token", re.compile(_B + r"xox[abposre]-[A-Za-z0-9\-]{10,}" + _E), triggers=("xox",)),
    _Rule("Slack token", re.compile(_B + r"xapp-\d-[A-Za-z0-9\-]{10,}" + _E), triggers=("xapp-",)),
    _Rule(
        "Slack webhook URL",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}"),
        triggers=("hooks.slack.com",),
    ),
    _Rule("Google API key", re.compile(_B + r"AIza[0-9A-Za-z_\-]{35}" + _E), triggers=("aiza",)),
    _Rule("Google OAuth secret", re.compile(_B + r"GOCSPX-[A-Za-z0-9_\-]{20,}" + _E), triggers=("gocspx-",)),
    _Rule("Google OAuth token", re.compile(_B + r"ya29\.[A-Za-z0-9_\-]{20,}" + _E), triggers=("ya29.",)),
    _Rule("Stripe key", re.compile(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E), triggers=("_live_", "_test_")),
    _Rule("Stripe key", re.compile(_B + r"whsec_[A-Za-z0-9]{24,}" + _E), triggers=("whsec_",)),
    _Rule("npm token", re.compile(_B + r"npm_[A-Za-z0-9]{36}" + _E), triggers=("npm_",)),
    _Rule("PyPI token", re.compile(_B + r"pypi-AgE[A-Za-z0-9_\-]{50,}" + _E), triggers=("pypi-age",)),
    _Rule("Hugging Face token", re.compile(_B + r"hf_[A-Za-z0-9]{30,}" + _E), check=_mixed_case_and_digit, triggers=("hf_",)),
    _Rule("SendGrid API key", re.compile(_B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E), triggers=("sg.",)),
    _Rule("DigitalOcean token", re.compile(_B + r"do[opr]_v1_[a-f0-9]{64}" + _E), triggers=("_v1_",)),
    _Rule("Shopify token", re.compile(_B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E), triggers=("shp",)),
    _Rule(
        "Azure storage key",
        re.compile(r"(?i:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9/+]{20,}={0,2})"),
        groups=(1,),
        triggers=("accountkey", "sharedaccesskey"),
    ),
    _Rule(
        "JSON Web Token",
        re.compile(_B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _E),
        triggers=("eyj",),
    ),
    _Rule(
        "bearer token",
        re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9\-._~+/]{16,}=*)"),
        groups=(1,),
        check=_has_digit_and_letter,
        triggers=("bearer",),
    ),
    _Rule(
        "basic auth credentials",
        re.compile(r"(?i:\bauthorization\s*:\s*basic)\s+([A-Za-z0-9+/]{8,}={0,2})"),
        groups=(1,),
        triggers=("basic",),
    ),
    _Rule(
        "password in URL",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'<>]*:([^\s/@\"'<>]+)@"),
        groups=(1,),
        check=_not_placeholder,
        triggers=("://",),
    ),
    _Rule(
        "password",
        re.compile(
            r"(?i:\b(?:[A-Za-z0-9]+_)*(?:password|passwd|passphrase|pwd))[\"']?\s*(?:[:=]|:=|=>)\s*"
            r"(?:\"([^\"\n]{6,})\"|'([^'\n]{6,})'|([^\s;,\"'&)]{6,}))"
        ),
        groups=(1, 2, 3),
        check=_password_value,
        triggers=("pass", "pwd"),
    ),
    _Rule(
        "API key or token",
        re.compile(
            # .npmrc spells it `_authToken`: a leading underscore does not hide a key word.
            r"(?i:\b_*(?:[A-Za-z0-9]+[_\-.])*" + _KEY_WORDS + r")[\"']?\s*(?:[:=]|:=|=>)\s*"
            r"[\"']?([A-Za-z0-9_\-./+=]{16,})"
        ),
        groups=(1,),
        check=_generic_token_value,
        triggers=("key", "token", "secret", "credential", "auth"),
    ),
)


def find_secrets(text: str) -> list[Secret]:
    """Every credential-shaped span, in order, without overlaps (the earliest, then longest, wins)."""
    if not isinstance(text, str) or not text:
        return []
    found: list[Secret] = []
    lowered = text.lower()
    for rule in _RULES:
        if rule.triggers and not any(t in lowered for t in rule.triggers):
            continue
        for match in rule.pattern.finditer(text):
            group = next((g for g in rule.groups if match.group(g) is not None), 0)
            start, end = match.span(group)
            value = match.group(group)
            if rule.check is not None and not rule.check(value):
                continue
            found.append(Secret(rule.kind, start, end))
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    kept: list[Secret] = []
    for secret in found:
        if kept and secret.start < kept[-1].end:
            continue
        kept.append(secret)
    return kept


def mask_secrets(text: str) -> tuple[str, list[Secret]]:
    """The text with each secret replaced by "[masked: <kind>]", and the secrets found (in the original's offsets)."""
    secrets = find_secrets(text)
    if not secrets:
        return text, []
    parts: list[str] = []
    position = 0
    for secret in secrets:
        parts.append(text[position : secret.start])
        parts.append(f"[masked: {secret.kind}]")
        position = secret.end
    parts.append(text[position:])
    return "".join(parts), secrets
