from agent.voice.sentences import SentenceSplitter
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


def test_at_most_three_sentences_are_said():
    reply = "Welcome back. Bob fixed the parser. Your plan is done. Next, run the tests. Then release."
    said = speakable_reply(reply, budget=1000)
    assert said == f"Welcome back. Bob fixed the parser. Your plan is done. {ON_SCREEN}"
