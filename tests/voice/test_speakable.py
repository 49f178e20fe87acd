from agent.voice.sentences import Clause, SentenceSplitter
from agent.voice.speakable import ON_SCREEN, SpeechFilter, clean_markdown, speakable_reply


def test_markup_is_read_as_words():
    assert clean_markdown("**Fixed** `CS1591` in [ReviewOrchestrator](src/Review.cs)") == \
        "Fixed CS1591 in ReviewOrchestrator"
    assert clean_markdown("## Summary") == "Summary"
    assert clean_markdown("- see https://example.com/x") == "see a link"


def test_a_short_reply_is_said_in_full():
    assert speakable_reply("Done. The build passes.") == "Done. The build passes."


def test_code_is_left_to_the_screen():
    reply = "Here is the fix:\n```csharp\nvar x = 1;\nreturn x.ToString();\n```\nIt compiles now."
    said = speakable_reply(reply)
    assert "var" not in said and "ToString" not in said
    assert said.startswith("Here is the fix:") and said.endswith(ON_SCREEN)


def test_long_content_gives_only_a_short_line():
    reply = "Found three problems. " + " ".join(
        f"Problem {n} is in a file that has a rather long explanation attached to it." for n in range(20))
    said = speakable_reply(reply)
    assert len(said) < 320
    assert said.startswith("Found three problems.") and said.endswith(ON_SCREEN)


def test_streamed_and_whole_replies_are_said_alike():
    reply = "Two warnings:\n| code | file |\n|---|---|\n| CS1591 | A.cs |\nBoth fixed."
    gate, splitter, said = SpeechFilter(), SentenceSplitter(), []
    for ch in reply:
        said += [s for sentence in splitter.feed(ch) if (s := gate.accept(sentence))]
    said += [s for sentence in splitter.flush() if (s := gate.accept(sentence))]
    said.append(gate.finish())
    assert " ".join(said) == speakable_reply(reply) == f"Two warnings: Both fixed. {ON_SCREEN}"


def test_a_first_clause_and_the_rest_of_its_sentence_are_said_as_the_sentence_would_be():
    long_rest = "so a long session keeps its own checkpoints within the limit as each turn begins."
    whole = SpeechFilter(budget=40)
    assert whole.accept("The newest commit prunes old checkpoints, " + long_rest)
    assert whole.accept("Dana merged it.") is None
    assert whole.finish() == ON_SCREEN
    # the same reply in pieces: the first sentence is still said whole, past the budget
    pieces = SpeechFilter(budget=40)
    assert pieces.accept(Clause("The newest commit prunes old checkpoints,")) == \
        "The newest commit prunes old checkpoints,"
    assert pieces.accept(long_rest) == long_rest
    assert pieces.accept("Dana merged it.") is None
    assert pieces.finish() == ON_SCREEN


def test_a_later_sentence_in_pieces_keeps_to_the_budget():
    gate = SpeechFilter(budget=40)
    assert gate.accept("The build is red.")
    assert gate.accept(Clause("Two tests fail in the orders module,")) is None  # past it: closed
    assert gate.accept("both on the cart.") is None
    assert gate.finish() == ON_SCREEN


def test_a_dash_at_the_end_of_a_clause_is_a_pause_not_a_word():
    assert SpeechFilter().accept(Clause("It was the **parser** —")) == "It was the parser,"


def test_the_filter_says_what_it_would_say():
    gate = SpeechFilter()
    assert gate.says("The build is red,")
    assert not gate.says("| name, age |") and not gate.says("@@ -1,2 +1,2 @@") and not gate.says("---")
    gate.accept("```python")
    assert not gate.says("x, y = 1, 2")  # inside code
    gate.accept("```")
    assert gate.says("Done, both fixed.")


def test_at_most_three_sentences_are_said():
    reply = "Welcome back. Bob fixed the parser. Your plan is done. Next, run the tests. Then release."
    said = speakable_reply(reply, budget=1000)
    assert said == f"Welcome back. Bob fixed the parser. Your plan is done. {ON_SCREEN}"
