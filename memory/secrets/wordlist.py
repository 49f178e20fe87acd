"""The BIP39 English word list, vendored as data (data/bip39-english.txt).

From python-mnemonic 0.21 (MIT, data/bip39-english.LICENSE), the list BIP39 itself
publishes: 2048 words, each known by its first four letters. A run of twelve or more of
them is a wallet's recovery phrase, and the pairs of letters its words hold tell English
from a generated string (values.unpronounceable). Read on first use, never at import.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

DATA = Path(__file__).parent / "data"
WORDLIST = DATA / "bip39-english.txt"
# What the vendored file must be: python-mnemonic 0.21's mnemonic/wordlist/english.txt.
WORDLIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"


@cache
def bip39_words() -> frozenset[str]:
    return frozenset(WORDLIST.read_text(encoding="utf-8").split())
