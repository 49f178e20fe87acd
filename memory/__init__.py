"""The store behind Claude's memory tool, one folder per repository.

    store.py      MemoryStore: the six commands, the lock, caps, listings for the app
    results.py    the SDK's result texts, reproduced so the SDK need not be imported
    inputs.py     field and type checks on a command before it runs
    paths.py      /memories/... to a real path inside the folder, or a refusal; its
                  part-by-part check also confines read_file to the repository
    atomic.py     durable file replacement and the sweep of orphaned temp files
    secrets/      credential-shaped text: refused in memory, masked in all the model reads
    notes.py      frontmatter, MEMORY.md index lines, MemoryInfo
    staleness.py  repository paths a memory names that no longer exist
    location.py   where a repository's folder is (data dir, git common dir key)
    errors.py     CommandError for the model, MemoryStoreError for Python callers

Nothing here imports the anthropic SDK, textual or agent/.
"""
