"""Transcripts corrected toward the repository's identifiers: names said as words, letters
and digits put back, and ordinary English left as it was heard."""

from __future__ import annotations

import pytest

from agent.voice.identifier_match import restore_identifiers, spoken
from tests.voice.identifiers import OTHER_CLASSES
from tests.voice.plain_speech import NAME_WORDS_SPEECH, NAMES_SAID, PLAIN_SPEECH

# tests/voice/identifiers.py's repository, as repository_vocabulary ranks it
VOCABULARY = ["CS1591", "TS2322", "PaymentGateway", "Reviews", "ComfyUI", "ComfyUIServer",
              "ReviewOrchestrator", *OTHER_CLASSES, "parseDiffHunk", "renderSideBySide"]


def test_a_name_is_said_as_its_words_letters_and_digits():
    assert spoken("ComfyUIServer") == "comfy u i server"
    assert spoken("E0432") == "e zero four three two"
    assert spoken("parse_diff_hunk") == "parse diff hunk"
    assert spoken("parseDiffHunk") == "parse diff hunk"


@pytest.mark.parametrize(("heard", "written"), [
    # camel case said as words, however the decoder spaced and cased them
    ("Open the ComfyUI server class.", "Open the ComfyUIServer class."),
    ("open the comfy UI server class", "open the ComfyUIServer class"),
    ("Go into your comfyUI folder.", "Go into your ComfyUI folder."),
    ("go into your comfy you eye folder", "go into your ComfyUI folder"),
    ("the comfyu-eye folder", "the ComfyUI folder"),
    ("Why does the Review Orchestrator time out?", "Why does the ReviewOrchestrator time out?"),
    ("Why does the reviewOrchestrator time out?", "Why does the ReviewOrchestrator time out?"),
    # heard a little wrong, where the decoder wrote a name
    ("The build says TS2322 and parse DiffHunt.", "The build says TS2322 and parseDiffHunk."),
    ("BuildSDS2322 in ParsifHunk.", "BuildS TS2322 in parseDiffHunk."),
    ("the Payment Getaway project", "the PaymentGateway project"),
    # letters and a code said digit by digit
    ("fix C.S. 1591 now", "fix CS1591 now"),
    ("fix see ess one five nine one now", "fix CS1591 now"),
    ("fix C S one five nine one now", "fix CS1591 now"),
    ("FixE-S1591 in the PaymentGateway project.", "Fix CS1591 in the PaymentGateway project."),
    # glued to the words around it: they stay, a word apart
    ("FixCs1591 in the PaymentGatewayProject.", "Fix CS1591 in the PaymentGateway Project."),
    ("(ComfyUI server)", "(ComfyUIServer)"),
    # a possessive stays with the name
    ("the comfy UI server's port", "the ComfyUIServer's port"),
])
def test_names_heard_as_words_are_written_as_the_repository_spells_them(heard, written):
    assert restore_identifiers(heard, VOCABULARY) == written


def test_snake_case_and_codes_from_other_languages():
    assert restore_identifiers("call parse-diff-hunk first", ["parse_diff_hunk"]) == "call parse_diff_hunk first"
    assert restore_identifiers("call Parse Diff Hunk first", ["parse_diff_hunk"]) == "call parse_diff_hunk first"
    # the way a snake-case name is read out is also plain English: left as heard
    assert restore_identifiers("call parse diff hunk first", ["parse_diff_hunk"]) == "call parse diff hunk first"
    assert restore_identifiers("Parse_Diff_Hunk!", ["parseDiffHunk"]) == "parseDiffHunk!"
    assert restore_identifiers("why is E zero four three two back", ["E0432"]) == "why is E0432 back"


@pytest.mark.parametrize("plain", PLAIN_SPEECH + NAME_WORDS_SPEECH)
def test_ordinary_sentences_are_left_as_they_were_heard(plain):
    assert restore_identifiers(plain, VOCABULARY) == plain


def test_near_names_in_plain_words_are_not_names():
    for plain in ("Run the build steps one at a time.",          # BuildStep, another ending
                  "The session storage fills up.",               # SessionStore
                  "The review orchestrated it.",                 # ReviewOrchestrator
                  "Commit a graph of it.",                       # CommitGraph, a word between
                  "the payment getaway project",                 # misheard, but plain words
                  "make the tool result shorter",                # ToolResult, but plain words
                  "the revieworchestrator timed out",            # one word: maybe English ("timeout")
                  "Retry PolicyCheck once it is back.",          # RetryPolicy across a glued token
                  "The Workerpools never shrink.",               # WorkerPool, glued, another ending
                  "the reviews are in",                          # Reviews: one plain word
                  "the build says TS 2323"):                     # TS2322's digits differ
        assert restore_identifiers(plain, VOCABULARY) == plain


def test_a_names_own_words_are_the_name_said():
    for heard, written in NAMES_SAID:
        assert restore_identifiers(heard, VOCABULARY) == written


def test_two_names_about_as_close_leave_the_text_as_heard():
    # two spellings of one spoken name
    assert restore_identifiers("call Parse Diff Hunk", ["parse_diff_hunk", "parseDiffHunk"]) == \
        "call Parse Diff Hunk"
    # a mishearing halfway between two names; with one of them alone it is that one
    assert restore_identifiers("the ComfyUI Servce class", ["ComfyUIServer", "ComfyUIService"]) == \
        "the ComfyUI Servce class"
    assert restore_identifiers("the ComfyUI Servce class", ["ComfyUIService"]) == "the ComfyUIService class"


def test_nothing_to_match_changes_nothing():
    assert restore_identifiers("", VOCABULARY) == ""
    assert restore_identifiers("... — café ¿qué?", VOCABULARY) == "... — café ¿qué?"
    assert restore_identifiers("I'm sure it doesn't", VOCABULARY) == "I'm sure it doesn't"
    assert restore_identifiers("open the comfy UI server class", []) == "open the comfy UI server class"


def test_text_already_right_is_left_as_it_is():
    for text in ("the ComfyUIServer's port", "fix CS1591's cause", "open ComfyUIServer", "in parseDiffHunk."):
        assert restore_identifiers(text, VOCABULARY) == text
