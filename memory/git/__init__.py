"""Reading a git repository without ever starting a program its configuration names.

A repository's config (or a submodule's, or a file it includes) can name programs that the
`git` command starts while it only reads: clean and smudge filters, textconv and external
diff drivers, `core.fsmonitor`, hooks, the pager, `core.sshCommand`, credential helpers,
`gpg.program`, and a partial clone's lazy fetch through any transport. Switching each off
on git's command line is a list of cases, and the list lost (a submodule's own filter, a
driver whose name holds `=`, `protocol.*` beating `protocol.allow`).

So devagent does not run git to read. It reads through libgit2 (pygit2), which implements
none of those programs: its only process start is an SSH transport for fetch and push,
which reading never reaches, and it has no partial-clone fetch at all (a missing object is
an error). libgit2 still reads config, includes and attributes as data.

libgit2 holds Python's GIL while it reads, and a repository can make a read block for ever
(an `include.path` naming a FIFO), so the reading runs in a child process of devagent's own
code (reader.py), which a timeout or Esc can kill and which never freezes the app:

    reading.py   the app's side: starts the reader, waits, gives typed results or a sentence
    reader.py    the child's entry point: one JSON request in, one JSON answer out
    opening.py   (child) finds and opens the repository, refuses one owned by another user
    worktree.py  (child) status, diffs and renames, from libgit2's diffs
    history.py   (child) the commits of git_log
    snapshots.py (child) the working tree's files as a tree in devagent's own store, for
                 the files a command changed (agent/tools/toolchain/file_changes.py)
"""
