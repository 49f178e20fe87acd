"""Repositories whose git configuration names a program, one family of config keys each.

Every program is a script that leaves a file named after its family in `marks/` (outside the
repository). `build(family, place, root)` makes a repository (`place` "repo") or a
repository with a submodule (`place` "submodule", the family set in the submodule's own
config and attributes), with a change in the working tree git would have to read through
the program, and gives back what a test needs: the outer folder, the folder whose config is
hostile, and the plain git command that does run the program there (the fixture's proof
that the key is live).
"""

from __future__ import annotations

import http.server
import os
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.repos import GIT_ENV

FILTER_FAMILIES = ("filter-clean", "filter-smudge", "filter-process", "filter-name-with-equals")
DIFF_FAMILIES = ("diff-textconv", "diff-command", "diff-external")
CORE_FAMILIES = ("core-fsmonitor", "core-hooksPath", "core-pager", "gpg-program", "include", "includeIf")
FETCH_FAMILIES = ("lazy-fetch-protocol-ext", "lazy-fetch-uploadpack", "lazy-fetch-core-sshCommand", "lazy-fetch-credential-helper")
FAMILIES = FILTER_FAMILIES + DIFF_FAMILIES + CORE_FAMILIES + FETCH_FAMILIES


@dataclass
class Hostile:
    outer: Path  # the folder devagent is opened in
    hostile: Path  # the work tree whose config names the program (outer, or its submodule)
    marks: Path
    stand_on: list[str]  # plain git, run in `hostile`, that does start the program

    def dropped(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in ("PAGER", "LESS")}
    return {**env, **GIT_ENV, "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "file:ext:ssh:http:https"}


def git(folder: Path, *args: str, check: bool = True, input: str | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=folder, env=git_env(), capture_output=True, text=True,
                          input=input, stdin=None if input is not None else subprocess.DEVNULL, timeout=60)
    if check and done.returncode:
        raise AssertionError(f"git {' '.join(args)}: {done.stderr}")
    return done.stdout


def _program(tools: Path, marks: Path, name: str, then: str = "exit 1") -> str:
    """A script at tools/name that leaves marks/<its family> (the name's first part)."""
    path = tools / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marks / name.split('/')[0]))}\n{then}\n")
    path.chmod(0o755)
    return str(path)


def _committed(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    for name, text in files.items():
        (folder / name).write_text(text)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "first")


def _attributes(family: str) -> str:
    if family == "filter-name-with-equals":
        return "*.txt filter=a=b\n"
    if family.startswith("filter-"):
        return "*.txt filter=evil\n"
    if family in ("diff-textconv", "diff-command"):
        return "*.txt diff=evil\n"
    return ""


def _configure(family: str, work: Path, tools: Path, marks: Path, server: str) -> list[str]:
    """Sets the family's keys in `work`'s own config; the stand-on command."""
    def config(key: str, value: str) -> None:
        git(work, "config", key, value)

    program = _program
    if family == "filter-clean":
        config("filter.evil.clean", program(tools, marks, family, "exec cat"))
        config("filter.evil.required", "true")
        return ["status", "--porcelain"]
    if family == "filter-smudge":
        config("filter.evil.smudge", program(tools, marks, family, "exec cat"))
        return ["cat-file", "--filters", "HEAD:notes.txt"]
    if family == "filter-process":
        config("filter.evil.process", program(tools, marks, family))
        return ["status", "--porcelain"]
    if family == "filter-name-with-equals":
        config("filter.a=b.clean", program(tools, marks, family, "exec cat"))
        return ["status", "--porcelain"]
    if family == "diff-textconv":
        config("diff.evil.textconv", program(tools, marks, family, 'cat "$1"'))
        return ["diff"]
    if family == "diff-command":
        config("diff.evil.command", program(tools, marks, family, "exit 0"))
        return ["diff"]
    if family == "diff-external":
        config("diff.external", program(tools, marks, family, "exit 0"))
        return ["diff"]
    if family == "core-fsmonitor":
        config("core.fsmonitor", program(tools, marks, family))
        return ["status", "--porcelain"]
    if family == "core-hooksPath":
        for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit"):
            program(tools, marks, f"{family}/{hook}", "exit 0")
        config("core.hooksPath", str(tools / family))
        return ["update-ref", "refs/heads/stand-on", "HEAD"]
    if family == "core-pager":
        config("core.pager", program(tools, marks, family, "cat >/dev/null"))
        return ["-p", "log", "-1"]
    if family == "gpg-program":
        config("gpg.program", program(tools, marks, family))
        config("log.showSignature", "true")
        _signed_commit(work)
        return ["log", "-1"]
    if family == "include":
        extra = work / "hostile.inc"
        extra.write_text(f"[core]\n\tfsmonitor = {program(tools, marks, family)}\n")
        config("include.path", str(extra))
        return ["status", "--porcelain"]
    if family == "includeIf":
        extra = work / "hostile-if.inc"
        extra.write_text(f"[diff]\n\texternal = {program(tools, marks, family, 'exit 0')}\n")
        # every git folder under the sandbox: the repository's, or the submodule's in .git/modules
        config(f"includeIf.gitdir:{tools.parent}/.path", str(extra))
        return ["diff"]
    # a partial clone whose promisor remote reaches a program when git fetches what it lacks
    _lack_a_blob(work)
    config("core.repositoryformatversion", "1")
    config("extensions.partialClone", "origin")
    config("remote.origin.promisor", "true")
    if family == "lazy-fetch-protocol-ext":
        config("remote.origin.url", f"ext::{program(tools, marks, family)}")
        config("protocol.ext.allow", "always")
    elif family == "lazy-fetch-uploadpack":
        config("remote.origin.url", f"file://{work}")
        config("remote.origin.uploadpack", program(tools, marks, family))
        config("protocol.file.allow", "always")
    elif family == "lazy-fetch-core-sshCommand":
        config("remote.origin.url", "ssh://git@example.invalid/shop.git")
        config("core.sshCommand", program(tools, marks, family))
    elif family == "lazy-fetch-credential-helper":
        config("remote.origin.url", f"{server}/shop.git")
        config("credential.helper", "!" + program(tools, marks, family))
    return ["diff", "--numstat"]


def _lack_a_blob(work: Path) -> None:
    """notes.txt's committed content leaves the object store (as a blobless clone lacks it)."""
    blob = git(work, "rev-parse", "HEAD:notes.txt").strip()
    objects = Path(git(work, "rev-parse", "--git-path", "objects").strip())
    objects = objects if objects.is_absolute() else work / objects
    (objects / blob[:2] / blob[2:]).unlink()


def _signed_commit(work: Path) -> None:
    tree = git(work, "rev-parse", "HEAD^{tree}").strip()
    head = git(work, "rev-parse", "HEAD").strip()
    body = (
        f"tree {tree}\nparent {head}\nauthor Mallory <m@example.com> 1764000000 +0000\n"
        "committer Mallory <m@example.com> 1764000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEx\n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    commit = git(work, "hash-object", "-t", "commit", "-w", "--stdin", input=body).strip()
    git(work, "update-ref", "HEAD", commit)


def build(family: str, place: str, root: Path, server: str) -> Hostile:
    marks, tools = root / "marks", root / "tools"
    marks.mkdir(parents=True, exist_ok=True)
    files = {"notes.txt": "first\n", "keep.txt": "kept\n"}
    attributes = _attributes(family)
    if attributes:
        files[".gitattributes"] = attributes
    if place == "repo":
        outer = hostile = root / "shop"
        _committed(outer, files)
    else:
        source = root / "lib-source"
        _committed(source, files)
        outer = root / "shop"
        _committed(outer, {"app.txt": "app\n"})
        git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), "lib")
        git(outer, "commit", "-q", "-m", "lib")
        hostile = outer / "lib"
    stand_on = _configure(family, hostile, tools, marks, server)
    (hostile / "notes.txt").write_text("other\n")  # the same size: git has to read it to know
    return Hostile(outer, hostile, marks, stand_on)


def run_stand_on(case: Hostile) -> None:
    """Plain git starts the program (a pager only on a terminal, so under script(1))."""
    if case.stand_on[:1] == ["-p"]:
        command = shlex.join(["git", *case.stand_on])
        subprocess.run(["script", "-qec", command, "/dev/null"], cwd=case.hostile, env=git_env(),
                       capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    else:
        git(case.hostile, *case.stand_on, check=False)


def clear(case: Hostile) -> None:
    shutil.rmtree(case.marks)
    case.marks.mkdir()


class _AskForPassword(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="shop"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def password_server() -> Iterator[str]:
    """An HTTP remote on the loopback that answers every request with 401, so git asks
    its credential helper."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AskForPassword)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
