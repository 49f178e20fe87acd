"""Credentials known by the name in front of them: `DB_PASSWORD=...`, `"apiKey": "..."`,
`<password>...</password>`, `the staging password is ...`, `creds_<key>.md`.

A name counts when a secret word ends it (password, secret, token, credentials, a
qualified key such as api_key or clientKey); whether the value after it is a secret or
a note about one (`password: kept in 1Password`) is values.py's call. Each keyword is a
literal, so `re` finds it with its fast search on the lower-cased text; the rest of the
name is read in Python around the few places it occurs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.secrets import values

Found = tuple[str, int, int]  # kind, start, end

# keyword, and the shortest value worth a look (a password has 6 characters or more, a
# token 16): a value too short to be a secret then costs no Python at all.
_KEYWORDS = (
    (r"pass(?:word|wd|phrase)?+s?+", 6),
    (r"pwd", 6),
    (r"secrets?+", 8),
    (r"tokens?+", 10),
    (r"cred(?:ential)?+s?+", 8),
    (r"auth", 8),
    (r"pat", 16),
    (r"keys?+", 10),
    (r"session", 16),
    # Key material and the services that name theirs so: an Erlang cookie, a Wi-Fi PSK, a
    # wallet's seed phrase, WIF or xprv, a Solana keypair, a TOTP seed.
    (r"cookies?+", 12),
    (r"psk", 8),
    (r"seeds?+(?:[_\-. ]?+(?:phrase|words))?+", 16),
    (r"mnemonic", 20),
    (r"wif", 20),
    (r"xprv", 20),
    (r"keypairs?+", 20),
    (r"totp", 16),
    (r"wallet", 64),
)
# Rails' secret_key_base, client_secret_value: the secret word need not end the name.
_SUFFIX = r"(?:[_\-.]?+(?:base|value|data|b64|base64|hex|raw|plain|str|string|text|pem|der|json|b58))?+"
# `', '` between a name and a value passed side by side: config.set('db_password', '...').
_SEPARATOR = (
    # What syntaxes put between a name and its value, the longer first (each alternative is
    # tried only until one matches): a Rust constant's type or String::from, a YAML block
    # scalar's indicator and line break, an XML attribute's name then the element's text
    # (<string name="api_key" translatable="false">), a plist's </key><string>, Ruby's ENV
    # fallbacks (ENV['X'] || '...', ENV.fetch('X') { '...' }), a call taking the value
    # (from_key("...")), a table's cell border; then `=`, `:`, `=>` and their kin.
    r"(?:[ \t]*+=[ \t]*+string::from\([ \t]*+"
    r"|:[ \t]*+&[ \t]*+(?:'static[ \t]++)?+(?:str|\[u8\])[ \t]*+=[ \t]*+(?:\r?\n[ \t]*+)?+b?+(?=\")"
    r"|:[ \t]*+(?:!!str[ \t]++)?+[>|][\-+]?+[ \t]*+\r?\n[ \t]++"
    r"|\([ \t]*+(?=[\"'])"
    r"|[\"'][ \t]{0,4}+,[ \t]{0,4}+\"\\(?=\")"  # Gradle's buildConfigField "String", "KEY", "\"...\""
    r"|[\"'`]?[\])]?[ \t]{0,16}+(?::=|=>|\|\|=|[:=>])[ \t]{0,16}+|[\"'][ \t]{0,4}+,[ \t]{0,4}+(?=[\"'`])"
    r"|[\"'](?:[ \t]++[a-z_:\-]{1,40}+=[\"'][^\"'\n]{0,80}+[\"'])*+[ \t]*+>[ \t]*+"
    r"|</key>[ \t\r\n]{0,16}+<string>[ \t]*+"
    r"|[\"']\][ \t]{0,4}+\|\|[ \t]{0,4}+|[\"']\)[ \t]{0,4}+\{[ \t]{0,4}+"
    r"|[\"'`]?[ \t]*+\|[ \t]*+(?=[^\s|])|\t++)"
)
# "the password is ...", "password ...": prose, checked harder.
_PROSE = r"[\"'`]?[ \t]{1,24}+(?:(?:is|was|are|to)[ \t]{1,4}+(?:(?:now|still)[ \t]{1,4}+)?+)?+"
# "API key for the payment sandbox: ...": a short label before the colon.
_LABEL = r"[ \t(][^\n:=\"'`]{0,40}+[:=][ \t]{0,16}+"


def quoted_or_bare(shortest: int) -> str:
    """A value: quoted (to its closing quote, at most 400 characters) or bare (to a space,
    a separator or a quote); four groups, one of which takes part."""
    n = shortest
    return (
        rf"(?:\"([^\"\n]{{{n},400}}+)\"?|'([^'\n]{{{n},400}}+)'?|`([^`\n]{{{n},400}}+)`?"
        # A bare value ends at "&" only where a query's next name= follows: a connection
        # string's Password=a&b is one password.
        # A ")" ends it only where a word ends: (H83%sno*)G@7Hz is one password.
        rf"|((?:[^\s;,\"'`&)<]|&(?![A-Za-z_#][A-Za-z0-9_.\-]{{0,40}}+[=;])|\)++(?=[^\s;,\"'`)<|\]])){{{n},}}+))"
    )


def _pattern(keyword: str, shortest: int) -> re.Pattern[str]:
    # groups: 1 separator, 2 prose, 3-6 value, 7 a key after `_` or `-`
    return re.compile(
        keyword + _SUFFIX + r"(?:(?:(" + _SEPARATOR + r")|(" + _PROSE + r"))" + quoted_or_bare(shortest)
        + r"|[_\-]([a-z0-9_\-!@#$^&*+~]{6,}+))"
    )


_FIELDS = tuple(_pattern(keyword, shortest) for keyword, shortest in _KEYWORDS)
_LABELLED = tuple(re.compile(keyword + _LABEL + quoted_or_bare(16)) for keyword, _ in _KEYWORDS if keyword != r"session")
_LETTERS = re.compile(r"[a-z]++")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.$@")
_LINE_START = re.compile(r"[\s\-\"'{,<]*+(?:(?:export|set|setx)[ \t]++)?+")
_PASSWORD_WORDS = ("pass", "pwd")
_FAMILIES = ("pass", "pwd", "secr", "toke", "cred", "auth", "pat", "keypair", "key", "sess", "cook", "psk", "seed", "mnemonic", "wif", "xprv", "totp", "wallet")
# What makes "..._key" a credential's name: api_key, client_key; not cache_key, sort_key.
_KEY_QUALIFIERS = (
    "api", "access", "secret", "private", "signing", "encryption", "master", "app", "client", "account",
    "storage", "subscription", "admin", "license", "consumer", "webhook", "deploy", "servicerole",
    "service_role", "sharedaccess", "shared_access", "auth", "ssh", "gpg", "pgp", "sas", "hmac", "sandbox",
    "wlan", "wifi", "wpa", "wep",
)
# Keys that hold no secret: a public one, an index's, a cache's. A key named otherwise
# (wireguard_key, fcmKey) is judged by its value, which must then look generated.
_ORDINARY_KEYS = (
    "public", "publishable", "pub", "cache", "sort", "primary", "foreign", "partition", "idempotency", "dedup",
    "dedupe", "group", "lookup", "map", "row", "index", "object", "bucket", "host", "routing", "shard", "hash",
    "unique", "composite", "natural", "surrogate", "message", "translation", "i18n", "label", "locale", "hot", "short",
    "cut", "sequence", "sig", "kid", "trace", "span", "series", "metric", "field", "column", "table", "dict", "json",
)
_JOINED_QUALIFIERS = ("access", "refresh", "auth", "api", "bearer", "session", "client", "private", "secret", "bot", "id")
_PREVIOUS_WORD = re.compile(r"([A-Za-z]{2,20}+)[ \t]$")


def value_span(match: re.Match[str], first: int) -> tuple[int, int]:
    """The span of the value's group: every pattern that calls this has one that matched."""
    for group in range(first, first + 4):
        if match.group(group) is not None:
            return match.span(group)
    raise ValueError(f"no value group from {first} matched in {match.re.pattern[:40]!r}")


def _word_at(lowered: str, start: int) -> str:
    # the field patterns start on a letter, so this always finds a word
    found = _LETTERS.match(lowered, start)
    return found.group() if found else ""


def _family(text: str, word_start: int, word: str) -> str | None:
    """The secret word's family (one of _FAMILIES), or None when the whole name around it
    is not a secret's name."""
    key_start = word_start
    while key_start > 0 and word_start - key_start < 64 and text[key_start - 1] in _KEY_CHARS:
        key_start -= 1
    family = next(f for f in _FAMILIES if word.startswith(f))
    qualifier = text[key_start:word_start]
    after = word_start + len(word)
    if not qualifier and word_start > 0 and text[word_start - 1] == ":" and text[after : after + 1] == ":":
        return None  # arn:aws:secretsmanager:...:secret:name is an identifier
    if qualifier:
        before = qualifier[-1]
        key = text[key_start : word_start + len(word)]
        camel = (before.islower() or before.isdigit()) and text[word_start].isupper()
        joined = (key.isupper() or key.islower()) and family not in ("auth", "pat", "sess") and (family != "pass" or key.isupper())
        # systemAccesstoken, Apikey: run together after a word that qualifies a secret.
        qualified = qualifier.lower().endswith(_JOINED_QUALIFIERS) and family in ("toke", "key", "secr")
        if before not in "_-.$@" and not camel and not joined and not qualified:
            return None  # "bypass", "oauth", "compat"
    elif family in ("pass", "pat") and len(word) <= 4:
        # A bare "pass:" is a field only at the start of its line: "tests pass: 12" is prose.
        low = max(0, key_start - 40)
        line = text.rfind("\n", low, key_start) + 1
        if line == 0 and low > 0 or not _LINE_START.fullmatch(text, line, key_start):
            return None
    if family == "key":
        if not qualifier:  # "API key": the qualifier is the word before
            previous = _PREVIOUS_WORD.search(text, max(0, word_start - 24), word_start)
            qualifier = previous.group(1) if previous else ""
        qualifier = qualifier.lower().rstrip("_-.$@")
        if qualifier.endswith(("gpg", "pgp")):
            return "gpg"  # a GPG key is named by its id; the key itself is a PEM block
        if not qualifier.endswith(_KEY_QUALIFIERS):
            return None if qualifier.endswith(_ORDINARY_KEYS) else "weak"
    if family == "keypair":
        return "weak"
    return family


# A value made of words one of which is a secret's: a name (db_password, mysql-root-password,
# interbroker-password-placeholder), not the secret.
_SECRET_WORD = re.compile(r"pass|pwd|secret|token|key|cred")
_WORDS_ONLY = re.compile(r"[A-Za-z]++(?:[\-_.][A-Za-z]++)++")


def made_up(value: str) -> bool:
    """One word with a digit and a letter, in no word's pattern: Orbit@9624nmg."""
    value = values.strip_quotes(value)
    return (
        not any(c.isspace() for c in value) and values.has_digit_and_letter(value) and not values.is_wordy(value)
        and value[:1] not in ".$*{[<%"
    )


def _verdict(family: str, value: str, prose: bool) -> str | None:
    bare = values.strip_quotes(value)
    if _WORDS_ONLY.fullmatch(bare) and _SECRET_WORD.search(bare.lower()):
        return None
    if "=" in bare[1:] and values.is_placeholder(bare.rsplit("=", 1)[1]):
        return None  # keystore-password=KEYSTORE_PASSWORD: a usage line's names
    if family == "gpg":
        return None if values.is_key_id(value) else _verdict("key", value, prose)
    if family in ("weak", "seed", "mnemonic", "wif", "xprv"):
        # A name that may or may not be a secret's: the value must look generated, or at
        # least made up in mixed case and digits.
        if values.looks_generated(value) or (len(bare) >= 12 and values.mixed_case_and_digit(bare) and made_up(bare)
                                              and values.looks_like_password(bare)):
            return "API key or token"
        return None
    if family == "wallet":
        # Wallet("0x...") takes a private key; an address is 40 digits, a key 64.
        return "private key" if re.fullmatch(r"(?:0x)?[0-9a-fA-F]{64}", bare) else None
    if family == "auth" and (len(bare) < 16 or values.is_wordy(bare)):
        # REDIS_AUTH, X-Redis-Auth: a password; it must look made up (or be a passphrase
        # with its number), not like a scheme (basic, oauth2-client).
        if values.looks_like_password(value) and (made_up(value) or values.passphrase(bare)):
            return "password"
        return None
    if family == "psk":
        family = "pass"
    if family in ("cook", "totp"):
        family = "toke"
    if family in _PASSWORD_WORDS:
        if not values.looks_like_password(value):
            return None
        if prose and not values.password_in_prose(value):
            return None
        return "password"
    if values.looks_like_token(value):
        return "API key or token"
    # A secret or credentials field may hold a password-like value shorter than a token.
    # So may a key or token field a shorter one: api_key="Orbit@9624nmg".
    shortest = 8 if family in ("secr", "cred") else 10 if family in ("key", "toke") else 0
    if family in ("key", "toke") and not made_up(value):
        return None
    if (not prose and shortest and len(value) >= shortest
            and values.looks_like_password(value) and not values.is_wordy(value)):
        return "API key or token"
    # "Created token Violet748%riv": in prose a short one must look made up.
    if (prose and family in ("key", "toke") and len(value) >= 12 and values.looks_like_password(value)
            and values.password_in_prose(value)):
        return "API key or token"
    return None


_CELL_END = re.compile(r"[ \t`\"']*+(?:[|\t]|\r?\n|\Z)")
_CELL_START = re.compile(r"(?:^|[|\t])[ \t`\"'*]*+$")


def _in_a_cell(text: str, word_start: int, value_end: int) -> bool:
    name_start = word_start
    while name_start > 0 and word_start - name_start < 64 and (text[name_start - 1].isalnum() or text[name_start - 1] in "_-. "):
        name_start -= 1
    line_start = text.rfind("\n", 0, name_start) + 1
    return bool(_CELL_START.search(text[max(line_start, name_start - 16) : name_start].lstrip(" ") if name_start - 16 > line_start else text[line_start:name_start])) and bool(_CELL_END.match(text, value_end))


def fields_and_names(text: str, lowered: str) -> Iterator[Found]:
    for pattern in _FIELDS:
        for match in pattern.finditer(lowered):
            word_start = match.start()
            word = _word_at(lowered, word_start)
            if match.group(7) is not None:
                yield from _named(text, match, word_start, word)
                continue
            span = value_span(match, 3)
            prose = match.group(2) is not None
            family = _family(text, word_start, word)
            if family is None or (prose and family == "sess"):
                continue
            if prose and " to" in match.group(2) and not made_up(text[span[0] : span[1]]):
                continue  # "add values from secrets to KongClusterPlugin"
            if prose and text.startswith("-", span[0]):
                continue  # "secret generic my-password --from-literal=...": a command's next flag
            separator = match.group(1) or ""
            border = separator.strip(" \"'`")
            if border in ("|", "\t" * len(border)) and separator and not _in_a_cell(text, word_start, span[1]):
                continue  # a cell's border only where name and value each fill a cell: not `.password | b64enc`
            if match.group(6) is not None:
                # A bare value ends a sentence: its full stop is not part of it.
                span = (span[0], span[0] + len(text[span[0] : span[1]].rstrip(".,!?")))
            kind = _verdict(family, text[span[0] : span[1]], prose)
            if kind is not None:
                yield kind, span[0], span[1]
    for pattern in _LABELLED:
        for match in pattern.finditer(lowered):
            word_start = match.start()
            word = _word_at(lowered, word_start)
            family = _family(text, word_start, word)
            span = value_span(match, 1)
            if family is not None:
                kind = _verdict(family, text[span[0] : span[1]], True)
                if kind is not None:
                    yield kind, span[0], span[1]


def _named(text: str, match: re.Match[str], word_start: int, word: str) -> Iterator[Found]:
    """A key after a word and `_` or `-`: creds_<key>.md, token-<key>, api_key_<key>."""
    if word_start > 0 and text[word_start - 1].isalnum() or word.startswith("session"):
        return
    start, end = match.span(7)
    value = text[start:end]
    password_word = word.startswith(("pass", "pwd", "cred", "secret"))
    if (password_word and values.password_in_prose(value)) or values.looks_random(value):
        yield "credential in a name", start, end


def names_a_secret(name: str) -> bool:
    """A whole name (DbPassword, smtp:password, API_TOKEN) that a secret word ends."""
    return family_of_name(name) is not None


_NAME_SUFFIX = re.compile(r"(?:[_\-.]?(?:base|value|data|b64|base64|hex|raw|plain|str|string|text|pem|der|json|b58))$")


def family_of_name(name: str) -> str | None:
    """The family of the secret word that ends a whole name (or comes before a suffix
    such as _base or Value: secret_key_base), or None."""
    lowered = name.lower()
    word = _WORD_AT_END.search(lowered) or _WORD_AT_END.search(_NAME_SUFFIX.sub("", lowered))
    return None if word is None else _family(name, word.start(), word.group())


def family_of_label(label: str) -> str | None:
    """A table's column header: "Password", "API key", "Token"."""
    label = label.strip().strip("`*_ ")
    if not label or len(label) > 40:
        return None
    return family_of_name(re.sub(r"[ \t]+", "_", label))


def verdict(family: str, value: str, prose: bool) -> str | None:
    """"password", "API key or token", or None when the value is no secret."""
    return _verdict(family, value, prose)


# <add key="PaymentApiKey" value="..."/>: .NET appSettings and its kin.
_ATTRIBUTES = re.compile(r"(?:key|name)=\"([A-Za-z0-9_.:\-]{1,64}+)\"[ \t]{1,8}+value=\"([^\"\n]{1,400}+)\"")
_WORD_AT_END = re.compile(r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|cred(?:ential)?s?|keys?|keypair|cookie|psk|mnemonic|wif|xprv|totp|auth|pat|seeds?(?:[_\-. ]?(?:phrase|words))?)$")


def attribute_pairs(text: str, lowered: str) -> Iterator[Found]:
    for match in _ATTRIBUTES.finditer(text):
        name = match.group(1)
        word = _WORD_AT_END.search(name.lower())
        if word is None:
            continue
        family = _family(name, word.start(), word.group())
        if family is not None and _verdict(family, match.group(2), False):
            yield ("password" if family in _PASSWORD_WORDS else "API key or token"), match.start(2), match.end(2)


# Cookie: a=...; b=... and curl -b 'a=...': every long random value is a session.
_COOKIES = re.compile(r"cookie[ \t]*+:|--cookie[ \t=]|-b(?<![a-z0-9\-]-b)[ \t]")
_COOKIE = re.compile(r"([A-Za-z0-9_.\-]{1,64}+)=([^;\s'\"]{16,}+)")


def cookies(text: str, lowered: str) -> Iterator[Found]:
    done = 0
    for match in _COOKIES.finditer(lowered):
        if match.end() < done:
            continue
        limit = min(len(text), match.end() + 4096)
        stop = text.find("\n", match.end(), limit)
        done = stop = limit if stop < 0 else stop
        for pair in _COOKIE.finditer(text, match.end(), stop):
            if values.looks_random(pair.group(2)):
                yield "session cookie", pair.start(2), pair.end(2)


# A quoted string of 24 or more letters and digits in no word's pattern: a key passed to
# a constructor, with nothing around it that names it.
_LITERAL = re.compile(r"[\"'`]([A-Za-z0-9]{24,128}+)[\"'`]")


def random_literals(text: str, lowered: str) -> Iterator[Found]:
    for match in _LITERAL.finditer(text):
        if values.random_literal(match.group(1)):
            yield "random-looking string", match.start(1), match.end(1)
