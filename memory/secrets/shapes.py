"""Key material known by its shape alone, whatever names it or does not.

- a Solana keypair: a JSON array of exactly 64 numbers from 0 to 255 (its id.json);
- a Bitcoin private key in WIF, and an extended private key (xprv, tprv): Base58Check
  whose checksum holds and whose version byte is a private key's, so an address (same
  alphabet, other version, other length) is never taken for one;
- a BIP39 recovery phrase: twelve or more words in a row, every one from BIP39's list
  (its words are common English, but English never strings twelve of them together
  without "the", "a" or "to");
- what a service's own configuration or console gives a secret to: Redis' `requirepass`
  and `masterauth` and `AUTH` at its prompt, Erlang's `-setcookie`, a Wi-Fi QR code's
  `P:` and `nmcli ... password`, and a value echoed into a file named as a secret's.

Each pattern follows formats.py's rules for linear time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from memory.secrets import values
from memory.secrets.wordlist import bip39_words

Found = tuple[str, int, int]

_BYTE = r"[ \t\r\n]*+(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])[ \t\r\n]*+"
_KEYPAIR = re.compile(r"\[(" + r"(?:" + _BYTE + r",){63}+" + _BYTE + r")\]")


def keypairs(text: str, lowered: str) -> Iterator[Found]:
    for match in _KEYPAIR.finditer(text):
        yield "keypair (64 bytes)", match.start(1), match.end(1)


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_BASE58)}
_B58 = "[1-9A-HJ-NP-Za-km-z]"
_WIF = re.compile(r"[5KL9c](?<![A-Za-z0-9][5KL9c])" + _B58 + r"{50,51}+(?![A-Za-z0-9])")
_XPRV = re.compile(r"[xt]prv(?<![A-Za-z0-9][xt]prv)" + _B58 + r"{100,108}+(?![A-Za-z0-9])")
# Version bytes: 0x80 (mainnet) and 0xef (testnet) before a WIF key; xprv and tprv.
_WIF_VERSIONS = (b"\x80", b"\xef")
_XPRV_VERSIONS = (bytes.fromhex("0488ade4"), bytes.fromhex("04358394"))


def base58check(token: str) -> bytes | None:
    """The payload of a Base58Check string whose checksum holds, else None."""
    number = 0
    for c in token:
        number = number * 58 + _B58_INDEX[c]
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(token) - len(token.lstrip("1"))) + raw
    payload, checksum = raw[:-4], raw[-4:]
    if len(raw) < 5 or hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] != checksum:
        return None
    return payload


def wallet_keys(text: str, lowered: str) -> Iterator[Found]:
    for match in _WIF.finditer(text):
        payload = base58check(match.group())
        if payload is not None and payload[:1] in _WIF_VERSIONS and len(payload) in (33, 34):
            yield "Bitcoin private key (WIF)", match.start(), match.end()
    for match in _XPRV.finditer(text):
        payload = base58check(match.group())
        if payload is not None and payload[:4] in _XPRV_VERSIONS and len(payload) == 78:
            yield "extended private key", match.start(), match.end()


_WORDS = re.compile(r"(?<![A-Za-z\-_])[a-z]{3,8}+(?:[ \t]++[a-z]{3,8}+){11,}+(?![A-Za-z\-_])")
_WORD = re.compile(r"[a-z]++")
PHRASE_WORDS = 12


def recovery_phrases(text: str, lowered: str) -> Iterator[Found]:
    words = None
    for match in _WORDS.finditer(text):
        words = words or bip39_words()
        run_start = run_end = -1
        count = 0
        for word in _WORD.finditer(text, match.start(), match.end()):
            if word.group() in words:
                if count == 0:
                    run_start = word.start()
                count += 1
                run_end = word.end()
                continue
            if count >= PHRASE_WORDS:
                yield "recovery phrase", run_start, run_end
            count = 0
        if count >= PHRASE_WORDS:
            yield "recovery phrase", run_start, run_end


# -- what a service's own syntax gives a secret to ---------------------------------------------

# Quoted, or bare to a space, quote, backtick or semicolon (`-setcookie X` in Markdown).
_VALUE = r"(?:\"([^\"\n]{1,400}+)\"|'([^'\n]{1,400}+)'|([^\s\"'`;]{1,400}+))"
# redis.conf and CONFIG SET; redis-server's flag; Erlang's; AUTH at redis-cli's prompt.
# One literal each, so re finds them by its fast search.
_DIRECTIVES = tuple(
    re.compile(head + r"[ \t]++" + _VALUE)  # each head's value after a space
    for head in (
        r"requirepass(?<![a-z0-9_]requirepass)", r"masterauth(?<![a-z0-9_]masterauth)", r"-setcookie",
        r"auth(?<=[0-9]>auth)", r"auth(?<=[0-9]> auth)",
        # PowerShell's ConvertTo-SecureString "..." -AsPlainText: the string is a password.
        r"convertto-securestring(?:[ \t]++-string)?+",
        # wpa_passphrase SSID PASSPHRASE prints a network block with the PSK.
        r"wpa_passphrase(?<![a-z0-9_]wpa_passphrase)[ \t]++(?:\"[^\"\n]{1,64}+\"|'[^'\n]{1,64}+'|[^\s\"']{1,64}+)",
    )
)
_WIFI_QR = re.compile(r"wifi:(?:(?!p:)[^\n;]{0,100}+;){0,6}+p:((?:[^;\\\n]|\\.){1,64}+);")
_NMCLI = re.compile(r"nmcli[^\n]{0,120}?[ \t]password[ \t]++" + _VALUE)
# echo 'value' > ~/.erlang.cookie, > .secrets/token: a value written to a secret's file.
_ECHOED = re.compile(r"echo[ \t]++(?:-[a-z]{1,3}+[ \t]++)?+" + _VALUE + r"[ \t]*+>>?+[ \t]*+([^\s;&|]{1,200}+)")
_SECRET_FILE = re.compile(r"cookie|secret|token|passw|credential|private|id_(?:rsa|ed25519|ecdsa|dsa)|\.key\b|\.pem\b|keypair|\.netrc|pgpass")


def _group(match: re.Match[str]) -> tuple[int, int]:
    for g in (1, 2, 3):
        if match.group(g) is not None:
            return match.span(g)
    return match.span()


def directives(text: str, lowered: str) -> Iterator[Found]:
    for directive in _DIRECTIVES:
        kind = "Erlang cookie" if "setcookie" in directive.pattern else "password"
        for match in directive.finditer(lowered):
            start, end = _group(match)
            if values.looks_like_password(text[start:end]):
                yield kind, start, end
    for match in _WIFI_QR.finditer(lowered):
        start, end = match.span(1)
        if not values.is_placeholder(text[start:end]):
            yield "Wi-Fi passphrase", start, end
    for match in _NMCLI.finditer(lowered):
        start, end = _group(match)
        if values.looks_like_password(text[start:end]):
            yield "Wi-Fi passphrase", start, end
    for match in _ECHOED.finditer(lowered):
        start, end = _group(match)
        value = text[start:end]
        # Written to a secret's own file: any word that is no variable, path or reference.
        if _SECRET_FILE.search(match.group(4)) and len(value) >= 8 and value[0] not in "$<{%" and not values.is_path(value) and not values.is_reference(value):
            yield "secret written to a file", start, end
