"""Is the value after `password:` or `api_key=` a secret, or something that names one?

Notes about credentials are useful memory: where a password is kept, which variable holds a
token, which class fetches one. These checks let such notes through: placeholders, code
that reads a secret, paths, references to a vault or secret manager, prose, and code
identifiers. What is left must still look like a password or a random token.
Every check is linear in the value and sees at most MAX_VALUE characters of it.
"""

from __future__ import annotations

import math
import re

MAX_VALUE = 4096

_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{.*                              # ${VAR}, ${{ secrets.X }}, ${VAR:-$(< file)}
      | \$[A-Za-z_][A-Za-z0-9_]*+            # $VAR
      | \$\(.*                              # $(command)
      | %\(.*                               # %(name)s
      | %[A-Za-z_][A-Za-z0-9_]*+%           # %VAR%
      | %env\(.*                            # Symfony's %env(NAME)%
      | \{\{?[^}]{0,200}+\}?\}              # {name}, {{ name }}
      | \{\{.*                             # {{ a template's expression, cut at a space
      | <[^>]{0,200}+>                      # <password>
      | \[[A-Za-z][A-Za-z0-9_\-]{1,40}+\]      # [ROOT_PASSWORD], [clientSecret]
      | \[masked:(?:\ [^\]]{0,200}+\])?     # our own marker, cut at its space or whole: masking twice changes nothing
      | \*++ | x++ | X++ | \.++ | •++        # masked already
      | [A-Z][A-Z_]{2,40}+                  # USER, PASSWORD, API_TOKEN: a usage line's names
      | (?i:your[_-]?\w*+|changeme|change[_-]me|example\w*+|placeholder|redacted|secret|password|passwd|token|none|null|nil|true|false|undefined|empty|dummy|fake|test|sample|todo|tbd|xxx+)
    )$""",
    re.VERBOSE,
)

# Code that reads a secret is not a secret: getpass(), os.environ[...], settings.db_password.
_CODE = re.compile(r"^(?:[.$]?+[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)*+[(\[].*|[.$]?+[A-Za-z_]\w*+(?:(?:\.|::|->)[A-Za-z_]\w*+)++)$", re.DOTALL)

# A folder: the shell's PWD in every `env` dump, a key file's path, a Windows build folder.
_PATH = re.compile(r"^(?:(?:~|\.{1,2})?/[\w.~/@+\-]*+|[A-Za-z]:[\\/][^\s]*+|\\\\[^\s]*+|\.{1,2}\\[^\s]*+)$")

# Where a secret is kept, said in the shape a tool understands.
_REFERENCE = re.compile(
    r"""^(?i:
        vault:|vault://|op://|bw://|keyvault:|akv:|azurekeyvault|@microsoft\.keyvault\(|
        arn:aws[\w-]*+:(?:secretsmanager|ssm|kms):|
        projects/[^/\s]++/secrets/|secret/|secrets/|kv/|ref\+|sops:|env:|file:|awssm:|gcpsm:|
        doppler:|infisical:|k8s:|secretref|secretkeyref|valuefrom|
        !(?:vault|secret|env|env_var|ref|sub|getatt|importvalue|include|sops)\b|
        https?://
    )""",
    re.VERBOSE,
)

# Words that make a value a note about where a secret lives, not the secret.
_WHERE_WORDS = frozenset(
    ["vault", "vaults", "1password", "onepassword", "op", "keychain", "keyring", "keepass", "keepassxc", "bitwarden", "lastpass", "dashlane", "passbolt", "doppler", "infisical", "keyvault", "kv", "secretsmanager", "secretmanager", "ssm", "sops", "kms", "hsm", "manager", "kept", "stored", "lives", "living", "held", "see", "ask", "asked", "from", "in", "via", "using", "under", "env", "environment", "variable", "variables", "ci", "pipeline", "settings", "rotated", "redacted", "elsewhere", "shared", "store", "team", "item", "entry", "field"]
)

_PASSWORD_SYMBOL = re.compile(r"[!$%^&*+=?~|]")
_PART = re.compile(r"[A-Za-z0-9]++")
_SEGMENT = re.compile(r"[A-Z]++(?![a-z])|[A-Z]?[a-z]++|[0-9]++")

# Words of class and type names: a value made of them is an identifier, not a password.
_CODE_WORDS = frozenset(
    ["token", "tokens", "source", "credential", "credentials", "client", "default", "azure", "auth", "oauth", "oauth2", "provider", "factory", "manager", "handler", "options", "service", "settings", "config", "configuration", "builder", "context", "request", "response", "exception", "error", "type", "scheme", "bearer", "basic", "secret", "secrets", "key", "keys", "password", "store", "cache", "hasher", "validator", "middleware", "helper", "reader", "writer", "stream", "async", "task", "result", "value", "name", "id", "interface", "base", "abstract", "impl", "util", "utils", "session", "identity", "principal", "claims", "policy", "grant", "grants", "access", "refresh", "cancellation", "source", "async", "delegate", "callback", "listener", "adapter", "resolver", "strategy", "environment", "managed", "chained", "interactive", "browser", "device", "code", "certificate", "cert", "app", "application", "account", "user", "users", "admin", "role", "roles", "scope", "scopes", "permission", "permissions", "header", "headers"]
)


def _bounded(value: str) -> str:
    return value[:MAX_VALUE]


def strip_quotes(value: str) -> str:
    return value.strip().strip("\"'`")


def is_placeholder(value: str) -> bool:
    value = strip_quotes(_bounded(value))
    if not _PLACEHOLDER.match(value):
        return False
    # Capitals name a variable (API_TOKEN), unless no word is in them: an Erlang cookie.
    return not (value.isalpha() and value.isupper() and unpronounceable(value))


# What code is not: text glued to a closing bracket (Pa55(w0rd)9x), or a dotted name with a
# made-up part (Winter2026.Sales, Kx9vQ2.Lm3Qp7): a digit before a letter, or a word and a year.
_AFTER_BRACKET = re.compile(r"[)\]][A-Za-z0-9]")
_MADE_UP_PART = re.compile(r"[0-9][A-Za-z]|[A-Za-z][0-9]{3,}+(?![A-Za-z0-9_])")


def is_code(value: str) -> bool:
    value = _bounded(value)
    if not _CODE.match(value):
        return False
    if "(" in value and ")" not in value and not re.fullmatch(r"(?:[A-Za-z_][\w.]*+)?+", value.rsplit("(", 1)[1]):
        return False  # kjlTBNXsQ(ZQMJ7sgJ: a bracket opened inside a password, no call
    if "(" in value or "[" in value:
        return not _AFTER_BRACKET.search(value)
    return not _MADE_UP_PART.search(value)


# A file named by a relative path: src/Auth/PasswordHasher.cs, config/secrets.yml.
_RELATIVE_FILE = re.compile(r"(?:[\w.\-]++[/\\])++[\w.\-]*\.[A-Za-z][A-Za-z0-9]{0,5}")


def is_path(value: str) -> bool:
    value = _bounded(value)
    if _RELATIVE_FILE.fullmatch(value):
        return not any(looks_random(part, 12) for part in re.split(r"[/\\.]", value))
    if not _PATH.match(value):
        return False
    # One long made-up "folder" is base64 that began with a slash (an AWS secret may).
    rest = value[1:]
    return not (value.startswith("/") and "/" not in rest and len(rest) >= 20 and mixed_case_and_digit(rest))


def is_reference(value: str) -> bool:
    """A pointer to a secret store (vault:..., op://..., !vault, an ARN) or a note saying where it is."""
    value = _bounded(value)
    if _REFERENCE.match(value):
        return True
    if _PASSWORD_SYMBOL.search(value):
        return False  # Kv!Value-88 is a password that happens to hold a word
    parts = _PART.findall(value)
    if not parts or not any(p.lower() in _WHERE_WORDS for p in parts):
        return False
    # Every part a plain word or number: "kept in the 1Password vault", "see 1Password: Shop / db".
    return all(p.isalpha() or p.isdigit() or p.lower() in _WHERE_WORDS for p in parts)


def is_identifier(value: str) -> bool:
    """A class or member name such as CancellationTokenSource or OAuth2ClientCredentials."""
    value = _bounded(value)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*+", value):
        return False
    segments = [s.lower() for s in _SEGMENT.findall(value)]
    if len(segments) < 2:
        return False
    for s in segments:
        if s.isdigit():
            if len(s) > 2:
                return False
        elif len(s) < 2 or not re.search(r"[aeiouy]", s):
            return False
    return any(s in _CODE_WORDS for s in segments)


def is_wordy(value: str) -> bool:
    """Made of words and small numbers: build-2026-11-v2-release, not a4Fq91Zk."""
    parts = _PART.findall(_bounded(value))
    if not parts:
        return True
    for p in parts:
        if p.isdigit():
            if len(p) > 8:
                return False
        elif p.isalpha():
            if len(p) <= 3:
                continue  # db, id, ui, api
            if len(p) > 14 or not re.search(r"[aeiouyAEIOUY]", p) or _case_switches(p) > 1:
                return False
        elif not re.fullmatch(r"[vV]\d{1,3}|\d{1,4}(?:st|nd|rd|th|[a-z])|[a-z]{1,3}\d{1,2}", p):
            return False
    return True


_SWITCH = re.compile(r"[a-z][^A-Za-z]*+(?=[A-Z])|[A-Z][^A-Za-z]*+(?=[a-z])")


def _case_switches(token: str) -> int:
    """How often the letters go from lower to upper case or back (digits between ignored)."""
    return len(_SWITCH.findall(token))


def has_digit_and_letter(token: str) -> bool:
    token = _bounded(token)
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def mixed_case_and_digit(token: str) -> bool:
    token = _bounded(token)
    return any(c.isdigit() for c in token) and any(c.islower() for c in token) and any(c.isupper() for c in token)


def random_letters(token: str) -> bool:
    """Letters in no word's pattern: many switches between upper and lower case, or, in
    one case, letter pairs that English words seldom hold (an Erlang cookie's capitals,
    a generated password's small letters)."""
    token = _bounded(token)
    letters = sum(c.isalpha() for c in token)
    return letters >= 8 and (_case_switches(token) * 4 >= letters or unpronounceable(token))


_LETTER_RUN = re.compile(r"[a-z]{2,}+")
_PAIR_SCORES: dict[str, float] | None = None


def _pair_scores() -> dict[str, float]:
    """How much likelier each letter pair is in English than in random letters (log2),
    from the pairs of the BIP39 English word list: 2048 common words (read on first use)."""
    global _PAIR_SCORES
    if _PAIR_SCORES is None:
        from memory.secrets.wordlist import bip39_words

        counts: dict[str, int] = {}
        for word in bip39_words():
            for i in range(len(word) - 1):
                counts[word[i : i + 2]] = counts.get(word[i : i + 2], 0) + 1
        total = sum(counts.values()) + 0.5 * 676
        letters = "abcdefghijklmnopqrstuvwxyz"
        _PAIR_SCORES = {
            a + b: math.log2((counts.get(a + b, 0) + 0.5) / total * 676) for a in letters for b in letters
        }
    return _PAIR_SCORES


def unpronounceable(token: str) -> bool:
    """At least 12 letters whose pairs are, on average, rarer in English than chance would
    make them: `qfvlquke`, `CRQSDERFNB`; not `harbortiger`, `deploymentkey`, `smtppassword`.
    Random letters score about -2, English words about +1.4."""
    runs = _LETTER_RUN.findall(_bounded(token).lower())
    letters = sum(map(len, runs))
    if letters < 12:
        return False
    scores = _pair_scores()
    pairs = [scores[run[i : i + 2]] for run in runs for i in range(len(run) - 1)]
    return sum(pairs) / len(pairs) < (-0.4 if letters >= 14 else -0.7)


# A GPG key id or fingerprint, an address: 0x and 8, 16 or 40 hex digits (a private key
# written so has 64), or 16 or 40 upper-case hex digits, as gpg prints them.
_KEY_ID = re.compile(r"(?:0x(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})|[0-9A-F]{16}|[0-9A-F]{40})[.,;:]?")
_HEX_ID = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})")


def is_key_id(value: str) -> bool:
    """8, 16 or 40 hex digits in any case: what a GPG or PGP key is known by."""
    return bool(_HEX_ID.fullmatch(strip_quotes(_bounded(value))))
# What documentation writes in place of a key: AWS's ...EXAMPLE keys, runs of x or *, "your
# token here". The jwt.io sample token is known by its signature, which is public.
_MARKED_EXAMPLE = re.compile(r"EXAMPLE|(?i:x{8,}|your[_\-]|[_\-]here\b|replace[_\-]?me)|\*{6,}")
_MARKERS = re.compile(r"EXAMPLE(?:KEY)?|(?i:x{4,}|your|here|replace|token|key)|\*{4,}")
_JWT_IO_SIGNATURE = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
_RUN = re.compile(r"[A-Za-z0-9]{16,}+")


def is_marked_example(token: str) -> bool:
    """A key-shaped text that says it is an example: documentation, not a credential.

    The marks must be what makes it look like a key: with them taken out, no random run of
    16 characters may be left, so a real key with EXAMPLE or xxxxxxxx glued on is no example."""
    token = _bounded(token)
    if _JWT_IO_SIGNATURE in token:
        return True
    if not _MARKED_EXAMPLE.search(token):
        return False
    rest = _MARKERS.sub(" ", token)
    return not any(looks_random(run) for run in _RUN.findall(rest))


# A digest written with its algorithm: SHA256:nThbg6k... (an SSH fingerprint), sha512-...
_DIGEST = re.compile(r"(?i:sha(?:1|224|256|384|512)|md5|blake2[bs]?|xxh(?:32|64|128)?)[:\-]")


# A password's hash, not the password: pbkdf2:sha256:..., bcrypt's $2b$, argon2, crypt's $6$.
_HASHED = re.compile(r"(?i:pbkdf2[:_$]|\$2[abxy]\$|\$argon2|scrypt[:$]|\$[156]\$|\$y\$|\{s?sha\d*\}|bcrypt\$|sha(?:1|256|512)\$)")


# A time or a version: 2026-01-04T00:00:00Z, v1.4.2-rc.1.
_TIME_OR_VERSION = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]{1,9})?)?(?:Z|[+\-][0-9]{2}:?[0-9]{2})?)?"
    r"|[vV]?[0-9]{1,6}(?:\.[0-9]{1,6}){1,3}(?:[\-+][0-9A-Za-z.\-]{1,40})?"
)


def _not_a_secret(value: str) -> bool:
    value = strip_quotes(value)
    return (
        bool(_DIGEST.match(value)) or bool(_HASHED.match(value)) or bool(_TIME_OR_VERSION.fullmatch(value)) or
        is_placeholder(value) or is_code(value) or is_path(value) or is_reference(value) or is_identifier(value)
        or bool(_KEY_ID.fullmatch(strip_quotes(value)))
    )


def looks_like_password(value: str) -> bool:
    """The value of a password field; a bare word such as "required" or "rotated" is prose."""
    value = strip_quotes(_bounded(value))
    if len(value) < 6 or sum(c.isalnum() for c in value) < 3 or _not_a_secret(value):
        return False  # |---|---|, ********: a table's rule or a mask, not a password
    if value.isalpha():
        return random_letters(value)
    return True


def looks_like_token(value: str) -> bool:
    """The value of a key or token field: long, one word, and random rather than wordy."""
    value = strip_quotes(_bounded(value))
    if len(value) < 16 or any(c.isspace() for c in value) or _not_a_secret(value):
        return False
    if is_wordy(value):
        return False  # build-2026-11-v2-release, prod/db/password
    return has_digit_and_letter(value) or random_letters(value)


def looks_random(token: str, minimum: int = 16) -> bool:
    """A bare run of characters that is no word, number or name: a key by its shape alone."""
    token = _bounded(token)
    if len(token) < minimum or is_wordy(token) or is_identifier(token):
        return False
    return has_digit_and_letter(token) or random_letters(token)


def password_in_prose(value: str) -> bool:
    """After "password is" or a bare space the value must look made up: a letter and a
    digit or symbol. "password hashing", "password reset" are prose."""
    value = strip_quotes(_bounded(value)).rstrip(".,;:!?)")
    has_letter = any(c.isalpha() for c in value)
    has_other = any(c.isdigit() or not c.isalnum() for c in value)
    symbol = any(c in "!@#$%^&*+=?~|" for c in value)
    if len(value) >= 12 and value.isalpha() and unpronounceable(value):
        return True  # kldhykmrmyurklalnc: letters no word holds
    if passphrase(value):
        return True  # harbor-tiger-rocket-92: words joined with their number
    return len(value) >= 6 and has_letter and has_other and (symbol or not is_wordy(value))


def random_literal(token: str) -> bool:
    """A quoted run of letters and digits that only a generator writes: at least three of
    each kind, and the case switching on most letters."""
    token = _bounded(token)
    digits = sum(c.isdigit() for c in token)
    upper = sum(c.isupper() for c in token)
    lower = sum(c.islower() for c in token)
    return digits >= 3 and upper >= 3 and lower >= 3 and _case_switches(token) * 3 >= upper + lower


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?:0x)?([0-9a-fA-F]++)")
_UPPER_AND_DIGITS = re.compile(r"(?=(?:[0-9]*+[A-Z]){6})[A-Z0-9]{16,}+")
_BASE64_PREFIX = re.compile(r"^(?:base64:|b64:|0x)")


def looks_generated(value: str) -> bool:
    """Made by a generator, not a person or a program: what a name that may or may not be a
    secret's (wireguard_key, fcmKey, solana_keypair) must hold to count as one. Hex as
    long as a key but not a commit's 40, base64 or an alphabet mixed in case and digits,
    letters no word holds; never a UUID (an id far more often than a token)."""
    value = strip_quotes(_bounded(value))
    if len(value) < 16 or any(c.isspace() for c in value) or _not_a_secret(value) or _UUID.fullmatch(value):
        return False
    hexadecimal = _HEX.fullmatch(value)
    if hexadecimal:
        digits = hexadecimal.group(1)
        return len(digits) >= 32 and len(digits) != 40 and has_digit_and_letter(digits)
    body = _BASE64_PREFIX.sub("", value)
    if is_wordy(body):
        return False
    if body.isalpha():
        return len(body) >= 16 and unpronounceable(body)  # checkNonElements is a name
    if mixed_case_and_digit(body) and len(body) >= 20:
        return True
    if _UPPER_AND_DIGITS.fullmatch(body) and sum(c.isdigit() for c in body) >= 2:
        return True  # base32 (a TOTP seed) or a licence key: capitals and digits, no word
    # One case and digits (rfri76tiyqxk7bol...): its letters must be in no word's pattern.
    return len(body) >= 16 and (random_letters(body) or (has_digit_and_letter(body) and looks_random(body, 20) and unpronounceable(body)))


_PASSPHRASE = re.compile(r"[A-Za-z]{3,}+(?:[\-_.][A-Za-z]{3,}+){2,}+[\-_.]?[0-9]{1,6}+|[0-9]{1,6}+[\-_.]?[A-Za-z]{3,}+(?:[\-_.][A-Za-z]{3,}+){2,}+")


def passphrase(value: str) -> bool:
    """Three or more words and a number, joined: copper-saturn-meadow-harbor-64."""
    return bool(_PASSPHRASE.fullmatch(strip_quotes(_bounded(value))))
