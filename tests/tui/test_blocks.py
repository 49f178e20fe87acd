"""Where a streamed reply may be cut into pieces that each render on their own."""

from tui.blocks import cut_point

PARAGRAPH = "A paragraph long enough to tell what it is."


def test_a_cut_goes_before_the_next_paragraph_once_its_first_line_is_known():
    text = f"{PARAGRAPH}\n\n{PARAGRAPH}\n"
    assert text[cut_point(text):] == f"{PARAGRAPH}\n"
    assert cut_point(f"{PARAGRAPH}\n\nA") == 0  # "A" could still become "A." or "- a"
    assert cut_point(f"{PARAGRAPH}\n\n") == 0
    assert cut_point(PARAGRAPH) == 0


def test_never_inside_a_code_fence():
    text = f"{PARAGRAPH}\n\n```python\nx = 1\n\ny = 2\n\n"
    assert cut_point(text) == 0  # and not before the fence either: only before a paragraph
    closed = text + "```\n\nAfter the code, a paragraph.\n"
    assert closed[cut_point(closed):] == "After the code, a paragraph.\n"
    tildes = "~~~~\n```\n\nstill code, the fence is tildes\n"
    assert cut_point(tildes) == 0


def test_never_inside_a_list():
    text = "- one\n\n- two, after a blank line\n\n  an indented continuation of two\n\n3. numbered\n"
    assert cut_point(text) == 0
    after = text + "\nA paragraph ends the list and may start a piece.\n"
    assert after[cut_point(after):] == "A paragraph ends the list and may start a piece.\n"


def test_only_before_a_paragraph():
    for block in ("    indented code", "## a heading line", "| a | table |", "> a quotation here",
                  "<div>some html</div>", "---", "***", "![an image](x.png) and words"):
        text = f"{PARAGRAPH}\n\n{block}\n"
        assert (cut_point(text) == 0) == (not block.startswith("!")), block



# a reply with every block a cut could break: fences with blank lines inside, loose lists,
# an indented continuation, a numbered list, a table and a heading
REPLY = """The build is red: one error.

```diff
-            var patchText = file.Patch;

+            var patchText = file.Diff;

plain words after a blank line, still in the fence
```

- rename the call site

- build again
  and read the log

  a second paragraph of the same item

1. run the tests
2. commit

| file | line |
|---|---|
| ReviewOrchestrator.cs | 111 |

## After that

~~~
a tilde fence

~~~

That is all.
"""


def chunkings(text: str):
    for size in (1, 3, 7, 16, 50):
        yield [text[i:i + size] for i in range(0, len(text), size)]
    # each write ending right after a blank line, and each a whole line
    pieces = text.split("\n\n")
    yield [piece + "\n\n" for piece in pieces[:-1]] + [pieces[-1]]
    yield text.splitlines(keepends=True)


async def test_a_reply_streamed_in_any_pieces_renders_as_the_whole_text_would(make_app, no_key, monkeypatch):
    from textual.widgets import Markdown

    from tests.tui.conftest import region_text
    from tui.widgets.conversation import reply

    monkeypatch.setattr(reply, "PIECE_CHARS", 1)  # cut wherever it is safe
    app = make_app()
    async with app.run_test(size=(90, 120)) as pilot:
        conversation = app.conversation
        whole = Markdown(REPLY)
        whole.styles.padding = (0, 1)  # as a Reply is padded
        await conversation.mount(whole)
        await pilot.pause(0.2)
        expected = region_text(app, whole.region)
        assert "a second paragraph of the same item" in expected
        await whole.remove()
        for pieces in chunkings(REPLY):
            for piece in pieces:
                await conversation.add_text(piece)
                await conversation._flush(force=True)  # each piece a write of its own
                await conversation._wait_written()
            await conversation.end_text()
            await pilot.pause(0.2)
            replies = list(app.query(reply.Reply))
            assert "".join(reply.source for reply in replies) == REPLY
            assert len(replies) > 1  # it was cut somewhere
            top, bottom = replies[0].region, replies[-1].region
            assert region_text(app, top.union(bottom)) == expected, f"pieces of {len(pieces[0])}"
            await app.query(reply.Reply).remove()
