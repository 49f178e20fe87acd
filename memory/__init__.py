"""The store behind Claude's memory tool: one folder per repository, one for the user.

    store.py      MemoryStore: puts the parts below together; which methods raise and
                  which return (text, is_error) results
    commands.py   the six commands, dispatched by name with a match
    policy.py     what may be written: secret filter, look-alike names, the caps
    catalog.py    what the folder holds, read without the lock: listing, index
                  problems, the repaired index, the evidence of each memory
    lock.py       the folder's cross-process lock; what to say when it cannot be taken
    preload.py    what goes into the prompt within the caps, and what is left out (the
                  prompt text itself is agent/recall/briefing.py's)
    results.py    the SDK's result texts, reproduced so the SDK need not be imported
    inputs.py     field and type checks on a command before it runs
    paths.py      /memories/... to a real path inside the folder, or a refusal (depth,
                  length, names); its part-by-part check also confines read_file
    files.py      reading one file without following links
    walk.py       the files of the folder, without recursion or links, to a bounded depth
    atomic.py     durable file replacement, the sweep of orphaned temp files, removal
                  of a folder of any depth
    quoting.py    what the model sent, quoted in a result at a bounded length
    secrets/      credential-shaped text: refused in memory, masked in all the model reads
    notes.py      frontmatter, MEMORY.md index lines, MemoryInfo
    location.py   where a repository's folder is (data dir, git common dir key), and the user's
    roots.py      /memories/user/ to the user-wide folder, the rest to the repository's
    seam.py       Store, Folder, EditableStore: the Protocols callers type a store with
    citations.py  the code a memory cites: path, path:line, path:a-b, File.cs(111,5), cites:
    evidence.py   fingerprints of cited code at write time; intact, moved, changed or gone now
    evidence_file.py  the hidden .evidence.json beside the memories, kept in step with writes
    freshness.py  verified: dates and aging, on a clock the caller gives
    pending.py    writes held for the user's review (memory_writes = review)
    check.py      what is wrong with a folder, as findings (memory check, the pane, tidy)
    errors.py     CommandError for the model, MemoryStoreError for Python callers

Nothing here imports the anthropic SDK, textual or agent/.
"""
