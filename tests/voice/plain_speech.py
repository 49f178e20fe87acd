"""What a developer says that names none of the repository's identifiers, for the check
that correcting a transcript toward the vocabulary leaves ordinary English alone.

Many sentences come near a name of tests/voice/identifiers.py's repository on purpose:
its words with other endings ("build steps", "session storage" beside BuildStep and
SessionStore), a small word between them ("commit a graph"), parts of a name alone
("the review", "a comfy chair", "the server"), letters and numbers said in passing, and
a name's own words in plain English ("the tool result" beside ToolResult: as text only).
"""

from __future__ import annotations

# The project's other test speech: the voice benchmarks' utterances and clauses.
BENCHMARK_SPEECH = [
    "Show me the latest commit on the main branch.",
    "Open the settings file.", "Then show me what changed in the build script.",
    "After that run the tests and tell me which ones failed.",
    "What did we decide about the database migration on Friday?",
    "I think we said to wait for the review.", "Check the notes and remind me.",
    "Open the settings file and show me what changed in the build script.",
    "Run the tests again because the last run timed out.",
    "What did we decide about the database migration?",
    "Let me look at the branch and build it.", "Run the build again and tell me about the warnings.",
    "Please open the settings file and show me what changed.", "Fix the failing test.",
]
DEVELOPER_SPEECH = [
    "Run the build steps one at a time and stop at the first failure.",
    "The session storage fills up after a day, can you check why?",
    "Commit a graph of the timings to the docs folder.",
    "Read the config files in the home folder before the project ones.",
    "The status lines are too long on a narrow terminal.",
    "Show me the key binding for the help screens.",
    "The worker pools never shrink after a burst of jobs.",
    "Why do the log folders grow so fast?",
    "Retry the policy check once the network is back.",
    "The review took longer than we planned.",
    "I bought a comfy chair for the office.",
    "Start the server and tell me when it listens.",
    "Can you see what the payment provider sent back?",
    "The gateway times out after thirty seconds.",
    "Parse the file and count the lines that differ.",
    "Open the diff and show me the third hunk.",
    "We should rename this function, it does two things.",
    "Say the error codes one by one, I will write them down.",
    "Is it version two or version three of the protocol?",
    "Tell me what you see in the output, I think the test is flaky.",
    "Make the tool results shorter in the side pane.",
    "Move the prompt caching into its own module.",
    "Why does the token counter show zero?",
    "Did the diff viewer change since yesterday?",
    "Is the memory panel documented?",
    "Add a trace to the report so we know where the time goes.",
    "The queue is three deep when the app starts.",
    "The patch is queued behind two others.",
    "Pick a branch for the release and tag it.",
    "Take a snapshot of the database before the migration.",
    "The search indexes are rebuilt every night at two.",
    "Filter the paths that start with a dot.",
    "The theme's colours are off in light mode.",
    "Reply in a block quote so it stands out.",
    "Sink the events into a file while we debug.",
    "Guard the heap against a runaway allocation.",
    "The screen pains me, make the font larger.",
    "You and I should look at the orchestra of services later.",
    "See you tomorrow, the build can wait.",
    "Is the UI done or do we still need the icons?",
    "Why is the review orchestrated by hand?",
    "The comfy part of the job is done, now the hard part.",
    "Put the server class in its own file.",
    "The build says nothing about the warnings.",
    "Fix the second test and the fifth one.",
    "Open the project file and check the version.",
    "Check in the fix and push it to the main branch.",
    "How many files did the last commit touch?",
    "List the functions that parse dates.",
    "Turn the runner off before you change the settings.",
    "The memory of this machine is almost full.",
]
PLAIN_SPEECH = BENCHMARK_SPEECH + DEVELOPER_SPEECH
# A name's own words in plain words (the repository has MemoryPane, PromptCache,
# TokenMeter, DiffView, RetryPolicy, ToolResult, ReviewOrchestrator): as text, English
# all the same. Not part of the check on speech: the decoder, biased toward the
# vocabulary, may write them as the name ("MemoryPaneDocumented"), and the name is then
# what was said.
NAME_WORDS_SPEECH = [
    "Is the memory pane documented?",
    "Move the prompt cache into its own module.",
    "Why does the token meter show zero?",
    "Did the diff view change since yesterday?",
    "Retry policy check once the network is back.",
    "Make the tool result shorter in the side pane.",
    "Why does the review orchestrator time out?",
]
# A name's own words, written as the decoder writes a name (capitals mid-sentence, glued):
# the name said, written as the repository spells it.
NAMES_SAID = [
    ("Is the Memory Pane documented?", "Is the MemoryPane documented?"),
    ("Move the Prompt Cache into its own module.", "Move the PromptCache into its own module."),
    ("Why does the tokenMeter show zero?", "Why does the TokenMeter show zero?"),
    ("Did the Diff-View change since yesterday?", "Did the DiffView change since yesterday?"),
]
