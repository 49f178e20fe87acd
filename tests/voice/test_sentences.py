from hypothesis import given, settings
from hypothesis import strategies as st

from agent.voice.sentences import SentenceSplitter, split_sentences


def stream(text: str, sizes=None) -> list[str]:
    splitter = SentenceSplitter()
    out: list[str] = []
    position = 0
    for size in sizes or [1] * len(text):
        out += splitter.feed(text[position:position + size])
        position += size
    out += splitter.feed(text[position:])
    return out + splitter.flush()


def test_file_names_versions_and_abbreviations_do_not_end_sentences():
    text = ("I changed Program.cs, e.g. the Main method, for v1.2 of the app. "
            "See README.md. It builds, i.e. no errors!")
    expected = ["I changed Program.cs, e.g. the Main method, for v1.2 of the app.",
                "See README.md.", "It builds, i.e. no errors!"]
    assert split_sentences(text) == expected
    assert stream(text) == expected


def test_first_sentence_is_released_before_the_reply_ends():
    splitter = SentenceSplitter()
    assert splitter.feed("On it") == []
    assert splitter.feed(".") == []          # could still be "On it.cs"
    assert splitter.feed(" Running") == ["On it."]
    assert splitter.feed(" the build") == []
    assert splitter.flush() == ["Running the build"]


def test_a_dot_at_the_end_of_a_delta_waits_for_the_next_character():
    splitter = SentenceSplitter()
    assert splitter.feed("Open Program.") == []
    assert splitter.feed("cs now. Then") == ["Open Program.cs now."]


def test_lines_and_list_items_are_separate():
    text = "Two problems:\n- CS1591 in ReviewOrchestrator\n- a failing test\n\nFixing both."
    assert stream(text) == ["Two problems:", "- CS1591 in ReviewOrchestrator",
                            "- a failing test", "Fixing both."]


def test_question_and_quotes():
    assert split_sentences('He said "done." Are you sure? Yes.') == [
        'He said "done."', "Are you sure?", "Yes."]


def test_initials_and_lowercase_continuations_stay_together():
    assert split_sentences("Ask J. Smith about approx. five files. Then stop.") == [
        "Ask J. Smith about approx. five files.", "Then stop."]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abc ABC.!?\n,e.gv12", max_size=80),
       st.lists(st.integers(min_value=1, max_value=7), max_size=40))
def test_streaming_in_any_chunks_gives_the_same_sentences(text, sizes):
    whole = split_sentences(text)
    assert stream(text, sizes) == whole
    # Nothing is lost or invented apart from whitespace.
    assert "".join("".join(whole).split()) == "".join(text.split())
