"""The repository's words, cut to what the decoder takes and split between its two
ways in: faster-whisper's `hotwords` and the initial prompt.

Both go before the start-of-transcript token, hotwords first; Whisper reads at most
half its 448-token text context there (faster-whisper cuts each part at 223 tokens),
and what is given costs decoder time on every clip. Measured on tiny.en with speech
made for the test (identifiers said as people say them, tests/voice/identifiers.py): the
whole list as hotwords missed 18 of 42 identifiers, as a glossary prompt 13, the eight
likeliest as hotwords 11. A short, sharp hotword list does the most; the glossary prompt
names the likeliest terms again and carries the long tail. On the live transcript's short
pieces the hotwords alone lost words the glossary had kept ("README"), so the glossary
starts from the top too. Both end in a full stop: without punctuation before it, Whisper
writes none either, and the end-pointer reads the full stops (agent/voice/endpoint.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Whisper's own limit for a prompt: half the text context less the start token.
PROMPT_BUDGET = 223
# About eight identifiers; past that each new hotword weakens the others.
HOTWORD_BUDGET = 40
# A glossary as long as this already names every term a turn is likely to use; a longer
# prompt only slows each decode.
PROMPT_TOKENS = 120


@dataclass(frozen=True)
class Hints:
    hotwords: str | None
    prompt: str | None
    terms: int  # how many of the vocabulary's terms made it in


def decoder_hints(vocabulary: Iterable[str], encode: Callable[[str], list[int]] | None = None,
                  *, hotword_budget: int = HOTWORD_BUDGET, prompt_tokens: int = PROMPT_TOKENS) -> Hints:
    """The vocabulary, likeliest first, as hotwords and a glossary prompt within the
    decoder's budget. `encode` counts tokens (the model's tokenizer); without one a token
    is taken as three characters, about what Whisper's tokenizer makes of identifiers."""
    def count(text: str) -> int:
        return len(encode(text)) if encode is not None else -(-len(text) // 3)

    terms = _unique(vocabulary)
    hot: list[str] = []
    for term in terms:
        if count(" " + ", ".join([*hot, term])) > hotword_budget:
            break
        hot.append(term)
    hotwords = ", ".join(hot) + "." if hot else None
    room = min(prompt_tokens, PROMPT_BUDGET - (count(" " + hotwords) if hotwords else 0))
    glossary: list[str] = []
    for term in terms:
        if count(_glossary([*glossary, term])) > room:
            break
        glossary.append(term)
    prompt = _glossary(glossary) if glossary else None
    return Hints(hotwords, prompt, max(len(hot), len(glossary)))


def _glossary(terms: list[str]) -> str:
    return "Glossary: " + ", ".join(terms) + "."


def _unique(vocabulary: Iterable[str]) -> list[str]:
    terms: list[str] = []
    seen: set[str] = set()
    for term in vocabulary:
        term = term.strip()
        if term and term.lower() not in seen:
            seen.add(term.lower())
            terms.append(term)
    return terms
