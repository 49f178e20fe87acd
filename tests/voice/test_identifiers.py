"""The repository's identifiers, said the way people say them, heard as the repository
spells them: the vocabulary it is read from, the decoder's budget it is cut to, and real
speech through the real model."""

from __future__ import annotations

import queue

import numpy as np
import pytest

from agent.voice.hints import HOTWORD_BUDGET, PROMPT_BUDGET, decoder_hints
from agent.voice.vocabulary import repository_vocabulary, with_build
from tests.system_packages import need
from tests.voice.identifiers import (
    BUILD_LOG,
    MEMORY,
    OTHER_CLASSES,
    identifier_misses,
    make_repository,
    recordings,
)
from tests.voice.words import word_error_rate


@pytest.fixture
def studio(tmp_path, monkeypatch):
    """(repository, memory store) of a project that names the things said."""
    from memory.store import MemoryStore

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = MemoryStore(tmp_path / "data" / "memories" / "studio")
    message, is_error = store.run({"command": "create", "path": "/memories/payments.md", "file_text": MEMORY})
    assert not is_error, message
    return make_repository(tmp_path / "studio"), store


def test_folders_functions_and_the_last_build_reach_the_vocabulary(studio):
    repo, store = studio
    words = repository_vocabulary(repo, store, build_log=BUILD_LOG)
    # the build's codes first (the user is fixing them), the most frequent first, then memory
    assert words[:3] == ["CS1591", "TS2322", "PaymentGateway"]
    for expected in ("ComfyUI", "ComfyUIServer", "ReviewOrchestrator", "parseDiffHunk"):
        assert expected in words
    # a folder named as one compound word ranks with the project names, before the classes
    assert words.index("ComfyUI") < words.index("ReviewOrchestrator") < words.index("SessionStore")


def test_a_new_build_puts_its_codes_in_front():
    assert with_build(["CS1591", "PaymentGateway", "CS0246"], "x.cs(1,1): error CS0246: y") == [
        "CS0246", "CS1591", "PaymentGateway"]


def test_the_hints_fit_the_decoders_budget(transcriber):
    vocabulary = [f"Generated{n}WidgetFactory" for n in range(300)]
    hints = transcriber.hints(vocabulary)
    encode = transcriber._model.hf_tokenizer.encode  # faster-whisper's own tokenizer

    def tokens(text: str) -> int:
        return len(encode(text, add_special_tokens=False).ids)

    assert hints.hotwords and hints.prompt
    assert tokens(" " + hints.hotwords) <= HOTWORD_BUDGET
    assert tokens(" " + hints.hotwords) + tokens(" " + hints.prompt) <= PROMPT_BUDGET
    hot = hints.hotwords.rstrip(".").split(", ")
    glossary = hints.prompt.removeprefix("Glossary: ").rstrip(".").split(", ")
    # likeliest first, each term once in each; the hotwords the head of the list
    assert glossary == vocabulary[:hints.terms] and hot == vocabulary[:len(hot)]
    assert 3 <= len(hot) < len(glossary)
    assert decoder_hints([]) == decoder_hints(["", "  "])
    assert decoder_hints([]).hotwords is None and decoder_hints([]).prompt is None


@pytest.fixture(scope="module")
def clips(voice):
    need("espeak-ng")
    return recordings(voice)


def heard_in(clips, transcriber, vocabulary) -> tuple[int, float, str]:
    """(identifiers missed, word error on the whole text, what was heard wrong)."""
    misses = errors = said = 0
    heard_wrong = []
    for name, audio, written, names in clips:
        heard = transcriber.transcribe(audio, vocabulary)
        missed = identifier_misses(heard, names)
        misses += missed
        wrong, count = word_error_rate(written, heard)
        errors, said = errors + wrong, said + count
        if missed:
            heard_wrong.append(f"{name}: {heard!r}")
    return misses, errors / said, "\n".join(heard_wrong)


def test_identifiers_said_aloud_are_written_as_the_repository_spells_them(studio, clips, transcriber):
    repo, store = studio
    vocabulary = repository_vocabulary(repo, store, build_log=BUILD_LOG)
    assert len(vocabulary) > len(OTHER_CLASSES)
    assert sum(len(names) for *_, names in clips) == 42
    misses, text_error, heard_wrong = heard_in(clips, transcriber, vocabulary)
    # Measured on tiny.en: 25 of 42 missed when the vocabulary had only memory, project and
    # class names and went in as a glossary prompt; 19 with folders, functions and the
    # build's codes, the head of the list as hotwords too (whole text 0.35); 7 once the
    # transcript is corrected toward the vocabulary (0.24). Synthetic speech at three
    # speeds in two voices is harder than one careful speaker: espeak-ng at 220 wpm loses most.
    assert misses <= 10, heard_wrong
    assert text_error <= 0.30, heard_wrong


def test_the_base_model_hears_them_too(studio, clips):
    from agent.voice.models import BASE
    from agent.voice.stt import Transcriber

    repo, store = studio
    vocabulary = repository_vocabulary(repo, store, build_log=BUILD_LOG)
    misses, text_error, heard_wrong = heard_in(clips, Transcriber(BASE).load(), vocabulary)
    # base: 19 of 42 missed with hotwords alone (whole text 0.33), 1 corrected (0.16)
    assert misses <= 4, heard_wrong
    assert text_error <= 0.25, heard_wrong


def test_push_to_talk_writes_a_name_the_pieces_heard_as_words(speech_wav, transcriber):
    from agent.voice.push_to_talk import PushToTalk, TranscriptReady
    from agent.voice.recorder import Recorder, WavSource

    events: queue.Queue = queue.Queue()
    recorder = Recorder(WavSource(speech_wav("Open the comfy UI server class, then run it."),
                                  speed=4.0, lead_silence=0.3, noise=0.002))
    ptt = PushToTalk(recorder, transcriber, events.put, vocabulary=["ComfyUI", "ComfyUIServer"])
    assert ptt.toggle()
    while not isinstance(event := events.get(timeout=60), TranscriptReady):
        pass
    assert "ComfyUIServer" in event.text.split(), event.text


def test_a_build_log_leads_the_next_recordings_vocabulary(transcriber):
    from agent.voice.push_to_talk import PushToTalk
    from agent.voice.recorder import Recorder, WavSource

    ptt = PushToTalk(Recorder(WavSource(samples=np.zeros(1600, np.float32))),
                     transcriber, lambda event: None, vocabulary=["PaymentGateway"])
    ptt.learn_build(BUILD_LOG)
    assert ptt.vocabulary == ("CS1591", "TS2322", "PaymentGateway")


def test_plain_sentences_heard_with_the_vocabulary_are_not_rewritten(studio, speech, transcriber):
    """What the correction does to real transcripts of speech naming no identifier: the
    decoder, biased toward the vocabulary, glues and capitalizes words ("Retry
    PolicyCheck"); none of that may turn into a name the speaker did not say."""
    from agent.voice.identifier_match import restore_identifiers
    from tests.voice.plain_speech import PLAIN_SPEECH

    repo, store = studio
    vocabulary = repository_vocabulary(repo, store, build_log=BUILD_LOG)
    rewritten = []
    for line in PLAIN_SPEECH:
        decoded = transcriber.decode(speech(line), vocabulary)
        corrected = restore_identifiers(decoded, vocabulary)
        if corrected != decoded:
            rewritten.append(f"{decoded!r} -> {corrected!r}")
    assert not rewritten, "\n".join(rewritten)
