from hypothesis import given, settings
from hypothesis import strategies as st

from agent.voice.sentences import Clause, SentenceSplitter, split_sentences


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


# A reply's first words: the speaker asks for a clause until something is said.

def said_first(text: str, sizes=None, says=lambda piece: True) -> list[str]:
    """The pieces as the speaker takes them: a clause may end the first piece said."""
    splitter, out, position = SentenceSplitter(), [], 0
    for size in [*(sizes or [1] * len(text)), len(text)]:
        asked = None if any(says(piece) for piece in out) else says
        out += splitter.feed(text[position:position + size], asked)
        position += size
    return out + splitter.flush()


def test_a_first_clause_is_a_piece_as_soon_as_the_space_after_it_shows():
    splitter = SentenceSplitter()
    ask = lambda piece: True  # noqa: E731
    assert splitter.feed("The newest commit on main prunes old checkpoints", ask) == []
    assert splitter.feed(",", ask) == []  # could still be "1,000"
    first = splitter.feed(" so a long", ask)
    assert first == ["The newest commit on main prunes old checkpoints,"]
    assert isinstance(first[0], Clause)
    # the rest of the sentence is one piece, a sentence as before
    assert splitter.feed(" session keeps its own. Then") == ["so a long session keeps its own."]
    assert splitter.flush() == ["Then"]


def test_blank_lines_before_the_first_words_do_not_hide_their_clause():
    ask = lambda piece: True  # noqa: E731
    assert SentenceSplitter().feed("\n\nThe build is red again, since", ask) == ["The build is red again,"]


def test_semicolons_colons_and_dashes_end_a_clause_too():
    ask = lambda piece: True  # noqa: E731
    for text, clause in [("The build is red; two tests fail.", "The build is red;"),
                         ("Three files changed: the parser and two tests.", "Three files changed:"),
                         ("It was the parser — the tests were fine.", "It was the parser —"),
                         ("It was the parser – the tests were fine.", "It was the parser –"),
                         ("It was the parser - the tests were fine.", "It was the parser -")]:
        assert SentenceSplitter().feed(text, ask)[0] == clause, text


def test_what_is_not_a_clause_end_stays_in_its_sentence():
    ask = lambda piece: True  # noqa: E731
    for text in ["Yes, it is.",                                   # a word alone
                 "On it: the build.",                             # two words
                 "I found 1,000 files and a well-known bug-fix here.",  # no space after
                 "Call `run(a, b)` and [see this, there](x.md) again.",  # code, link text
                 "The run (on main, today) passed.",              # brackets
                 "Here is the plan:\nfirst the build."]:          # the line ends first
        assert not isinstance(SentenceSplitter().feed(text + " Next", ask)[0], Clause), text
    assert SentenceSplitter().feed("The run (on main) passed, both times. X", ask)[0] == "The run (on main) passed,"


def test_without_being_asked_the_splitter_waits_for_the_sentence_as_before():
    splitter = SentenceSplitter()
    assert splitter.feed("The newest commit on main prunes old checkpoints, so a long") == []


def test_a_clause_is_cut_only_where_the_speaker_would_say_it():
    # a table row is never said: its cells must not come apart into prose
    says = lambda piece: not piece.startswith("|")  # noqa: E731
    assert said_first("| name, age | city |\nThe table lists three people, all adults.", says=says) == [
        "| name, age | city |", "The table lists three people,", "all adults."]


def test_only_the_first_piece_said_ends_at_a_clause():
    assert said_first("The build is red, sadly. The tests ran, all of them.") == [
        "The build is red,", "sadly.", "The tests ran, all of them."]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abc ABC.!?\n,;:-e.gv12`(", max_size=80),
       st.lists(st.integers(min_value=1, max_value=7), max_size=40))
def test_a_first_clause_comes_out_the_same_in_any_chunks(text, sizes):
    whole = said_first(text, [len(text)])
    assert said_first(text, sizes) == whole
    assert "".join("".join(whole).split()) == "".join(text.split())
