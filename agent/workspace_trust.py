"""Whether a repository's own code may run: asked once per repository, remembered outside it.

`build` and `test` run the repository's code (its `.venv/bin/python`, `conftest.py`, npm
scripts with their `pre*` hooks, `build.rs`, a Makefile), so a repository opened for the
first time runs none of it until the user said yes. The first tool that would run it asks
(a `TrustAsked` event, showing the exact commands and the folder they run in, and the tool
waits for a `Decision` naming the request's id, agent.decisions); the answer is kept in devagent's config folder,
owner-only, keyed by the real path of the work tree whose code runs. Never by the git folder
it points at: a folder's `.git` (a file naming a trusted clone's git folder, a link to it, a
`commondir` inside it) is written by whoever made the folder, so keying on it would let any
folder borrow a trusted clone's answer. A symlink to the same folder is the same work tree;
each worktree of a clone is asked on its own. Answers kept under the old key (the git folder)
are not used: the work tree is asked again once, and told why. `devagent trust` grants or
revokes it from the command line, `devagent ask --trust` trusts for one run, and a headless
run that was not trusted runs nothing and says how to trust.

Not to be confused with memory.folder_trust, which is about whose memory folder it is.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.events import CodeRun, Notice, TrustAsked, TrustRequest

if TYPE_CHECKING:
    from agent.decisions import AskingTurn

FILE_NAME = "trusted-repositories.json"
MAX_FILE_BYTES = 4_000_000
DIR_MODE = 0o700
FILE_MODE = 0o600


def trust_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("devagent")) / FILE_NAME


def _old_key(repo: Path) -> str | None:
    """The key answers were kept under before: the real path of the git folder `repo`'s
    `.git` names (its common folder for a worktree). Read only to say why a work tree is
    asked again; it decides nothing, since whoever made the folder wrote what it names."""
    for folder in (repo, *repo.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return os.path.realpath(dot_git)
        if dot_git.is_file():
            try:
                first = dot_git.read_text(encoding="utf-8", errors="replace")[:4096].splitlines()[0]
            except (OSError, IndexError):
                return None
            if not first.startswith("gitdir:"):
                return None
            gitdir = (folder / first[len("gitdir:"):].strip()).resolve()
            try:
                common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
            except OSError:
                return str(gitdir)
            return os.path.realpath(gitdir / common)
    return None


def _is_git_folder(key: str) -> bool:
    """Whether an old key names a git folder rather than a folder outside git (both were keys)."""
    return os.path.isfile(os.path.join(key, "HEAD"))


def repository_key(repo: Path) -> str:
    """Which work tree `repo` is: the real path of the folder itself, whose code runs."""
    return os.path.realpath(repo)


@dataclass(frozen=True)
class RememberedAnswer:
    """What the user answered for one work tree, as the trust file keeps it."""

    trusted: bool
    path: str  # the folder it was decided for, as the user named it
    decided: str  # ISO date and time


# The file's two maps: answers by work tree, and those kept by git folder before, which are
# only read to say why a work tree is asked again.
WORK_TREES = "work_trees"
OLD_KEYS = "repositories"


def _decision(entry: object) -> RememberedAnswer | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("trusted"), bool):
        return None
    return RememberedAnswer(entry["trusted"], str(entry.get("path", "")), str(entry.get("decided", "")))


@dataclass(frozen=True)
class EarlierAnswer:
    """An answer kept under the old key, the git folder the work tree's `.git` names."""

    git_folder: str
    decision: RememberedAnswer

    def answer(self) -> str:
        """What was answered and when, under which key: "trusted on ..., kept under ..."."""
        answer = "trusted" if self.decision.trusted else "not trusted"
        when = f" on {self.decision.decided}" if self.decision.decided else ""
        return f"{answer}{when}, kept under the old key, the git folder {self.git_folder}"

    def why_asked_again(self) -> str:
        return (f"An earlier answer ({self.answer()}) is not used: trust now belongs to each work "
                "tree's own folder, so a folder that only names a trusted git folder cannot borrow "
                "its answer. This folder is asked again, once.")


def read_owned(path: Path) -> dict[str, Any]:
    """The JSON object in one of devagent's own answer files; empty when the file is missing,
    unreadable, not an object, or could have been written by someone else (what another
    user could have granted is no grant at all). Opened without following a link."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            return {}
        data = os.read(fd, MAX_FILE_BYTES)
    finally:
        os.close(fd)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


class TrustStore:
    """The remembered answers, one a work tree; a file another user could write is ignored."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or trust_file()

    def _read(self) -> dict[str, dict[str, Any]]:
        parsed = read_owned(self.path)
        return {name: parsed[name] for name in (WORK_TREES, OLD_KEYS) if isinstance(parsed.get(name), dict)}

    def decision(self, repo: Path) -> RememberedAnswer | None:
        kept, key = self._read(), repository_key(repo)
        if key in kept.get(WORK_TREES, {}):
            return _decision(kept[WORK_TREES][key])
        # A folder outside git was keyed by its own real path before too: the same answer.
        return _decision(kept.get(OLD_KEYS, {}).get(key))

    def earlier(self, repo: Path) -> EarlierAnswer | None:
        """The answer kept under the old key for the git folder `repo` names, while the work
        tree itself has none: why it is asked again."""
        kept = self._read()
        if self.decision(repo) is not None:
            return None
        old = _old_key(Path(repository_key(repo)))
        found = _decision(kept.get(OLD_KEYS, {}).get(old)) if old is not None else None
        return None if old is None or found is None else EarlierAnswer(old, found)

    def listing(self) -> list[tuple[str, RememberedAnswer]]:
        """Every remembered answer, by work tree (a folder outside git kept before too)."""
        kept = self._read()
        trees = dict(kept.get(WORK_TREES, {}))
        for key, entry in kept.get(OLD_KEYS, {}).items():
            if not _is_git_folder(key):
                trees.setdefault(key, entry)
        return [(key, found) for key, entry in sorted(trees.items()) if (found := _decision(entry)) is not None]

    def old_listing(self) -> list[EarlierAnswer]:
        """The answers kept under the old key (a git folder), which no longer decide anything."""
        return [EarlierAnswer(key, found) for key, entry in sorted(self._read().get(OLD_KEYS, {}).items())
                if _is_git_folder(key) and (found := _decision(entry)) is not None]

    def trusted(self, repo: Path) -> bool:
        found = self.decision(repo)
        return found is not None and found.trusted

    def remember(self, repo: Path, trusted: bool | None) -> None:
        """Keeps the answer for `repo`; None forgets it, so the next run asks again."""
        from filelock import FileLock

        from memory.atomic import write_file
        from memory.folder_trust import make_private

        make_private(self.path.parent)
        os.chmod(self.path.parent, DIR_MODE)
        with FileLock(str(self.path) + ".lock", mode=FILE_MODE):
            kept = self._read()
            trees = kept.setdefault(WORK_TREES, {})
            key = repository_key(repo)
            if trusted is None:
                trees.pop(key, None)
                # forgetting also drops what the old key kept, so nothing is said of it again
                for old in (_old_key(Path(key)), key):
                    if old is not None:
                        kept.get(OLD_KEYS, {}).pop(old, None)
            else:
                when = datetime.now(UTC).isoformat(timespec="seconds")
                trees[key] = {"trusted": trusted, "path": str(Path(os.path.abspath(repo))), "decided": when}
            text = json.dumps(kept, indent=2, sort_keys=True) + "\n"
            write_file(str(self.path), text.encode("utf-8"), FILE_MODE)


def _answer_of(earlier: EarlierAnswer | None) -> str:
    return "" if earlier is None else earlier.answer()


def how_to_trust(repo: Path) -> str:
    return f"`devagent trust {repo}` trusts it from now on; `devagent ask --trust` trusts it for one run"


class CodeConsent(Protocol):
    def may_run(self, run: CodeRun) -> str | None:
        """None when `run` may go ahead; else why not, for the model."""


class WorkspaceTrust:
    """One session's answer to whether the repository's code may run.

    `interactive`: someone can be asked (the app); otherwise an unknown repository runs
    nothing. `for_this_run`: trusted for this process only (`ask --trust`), nothing kept."""

    def __init__(self, repo: Path, *, interactive: bool = False, for_this_run: bool = False,
                 store: TrustStore | None = None) -> None:
        self.repo = Path(repo)
        self.interactive = interactive
        self.for_this_run = for_this_run
        self.store = store or TrustStore()
        self._lock = threading.Lock()
        self.told = False  # the user was told once why nothing ran

    def bound(self, turn: AskingTurn) -> CodeConsent:
        return _TurnConsent(self, turn)

    def settled(self) -> bool | None:
        """True or False once decided (here or remembered); None while it would be asked."""
        if self.for_this_run:
            return True
        found = self.store.decision(self.repo)
        return None if found is None else found.trusted

    def asked_again(self) -> str:
        """Why the user is asked although an answer was kept under the old key; "" if not."""
        earlier = None if self.for_this_run else self.store.earlier(self.repo)
        return "" if earlier is None else earlier.why_asked_again()

    def refusal(self, run: CodeRun, declined: bool) -> str:
        what = "; ".join(run.commands)
        if declined:
            return (
                f"Not run: the user chose not to trust this repository, so its code does not run (the {run.tool} "
                f"would have run `{what}` in {run.cwd}). Answer from reading the files instead; the user can "
                f"change this with {how_to_trust(self.repo)}."
            )
        again = self.asked_again()
        return (
            f"Not run: this repository is not trusted yet, so its code does not run (the {run.tool} would have "
            f"run `{what}` in {run.cwd}). {again + ' ' if again else ''}Tell the user: {how_to_trust(self.repo)}. "
            "Meanwhile answer from reading the files."
        )


@dataclass
class _TurnConsent:
    trust: WorkspaceTrust
    turn: AskingTurn

    def may_run(self, run: CodeRun) -> str | None:
        trust = self.trust
        with trust._lock:  # one question at a time, and one answer for every tool after it
            settled = trust.settled()
            if settled is True:
                return None
            if settled is False:
                return trust.refusal(run, declined=True)
            if not trust.interactive:
                if not trust.told:
                    # The user hears it too, once, not only the model.
                    trust.told = True
                    again = trust.asked_again()
                    self.turn.emit(Notice(self.turn.id, f"This repository is not trusted, so the {run.tool} did not run its "
                                                f"code ({'; '.join(run.commands)} in {run.cwd}). {again + ' ' if again else ''}"
                                                f"{how_to_trust(trust.repo).capitalize()}."))
                return trust.refusal(run, declined=False)
            turn, request = self.turn, TrustRequest(trust.repo, run, earlier=_answer_of(trust.store.earlier(trust.repo)))
            answer = turn.decisions.ask(request.id, lambda: turn.emit(TrustAsked(turn.id, request)),
                                        lambda: turn.cancel.cancelled)
            if answer is None:
                return f"Not run: the user cancelled the turn before deciding whether to trust this repository ({run.tool})."
            trust.store.remember(trust.repo, answer.yes)
            return None if answer.yes else trust.refusal(run, declined=True)

