"""Every git command devagent runs, with the repository's config unable to run a program.

A repository's own `.git/config` (a copied folder, an unpacked archive, a checkout someone
else prepared) can name programs that plain `git status` starts: `core.fsmonitor`, hooks
(`post-index-change`), the clean filter of a `.gitattributes` driver, a diff driver's
`textconv` or `command`, `diff.external`. Reading where a repository stands must run none
of them before the user trusted it, so every git call is built by `git_command`: those
settings switched off on the command line (which wins over every config file), every
filter and diff driver the configuration names emptied, no network transport, no pager,
no prompt, and the environment's GIT_* variables that would point git at another
repository or program taken out. The ownership check (`safe.directory`) stays as git has
it: a repository owned by someone else is refused, and `refusal` says so and how to allow it.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

# Later -c options win over earlier ones and over every config file.
SWITCHED_OFF = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "diff.external=",
    "core.pager=cat",
    "core.askPass=",
    "credential.helper=",
    "core.sshCommand=",
    "core.gitProxy=",
    "protocol.allow=never",
    "submodule.recurse=false",
    "status.submoduleSummary=false",
    "gpg.program=",
)
# Options for the commands that can show file contents: no external diff, no textconv.
NO_DIFF_PROGRAMS = ("--no-ext-diff", "--no-textconv")
# Inherited variables kept: they say where the user's own configuration is or where to stop
# looking for a repository, never which program to run.
KEPT_VARIABLES = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"})
ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",  # a read never takes the index lock another process may want
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
}
# filter.<driver>.<key> and diff.<driver>.<key>: the driver name may itself hold dots.
_DRIVER = re.compile(r"^(filter|diff)\.(.+)\.(clean|smudge|process|textconv|command)$", re.I)
_DRIVER_KEYS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command")}
DRIVER_TIMEOUT = 10.0


def environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (os.environ) without the GIT_* variables that redirect git, with ours on top."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("GIT_") or k in KEPT_VARIABLES}
    env.update(ENVIRONMENT)
    return env


def dropped_variables(base: Mapping[str, str] | None = None) -> list[str]:
    """The inherited GIT_* variables `environment` leaves out (for runners that only add)."""
    return [k for k in (os.environ if base is None else base) if k.startswith("GIT_") and k not in KEPT_VARIABLES and k not in ENVIRONMENT]


def _switches(settings: Sequence[str]) -> list[str]:
    out: list[str] = []
    for setting in settings:
        out += ["-c", setting]
    return out


def driver_overrides(repo: Path) -> list[str]:
    """`-c` options emptying each filter and diff driver the configuration of `repo` names.

    Read with `git config`, which only reads files; a driver has to be named to be emptied,
    since attributes in the repository pick drivers by name."""
    try:
        done = subprocess.run(
            ["git", *_switches(SWITCHED_OFF), "config", "-z", "--name-only", "--get-regexp", r"^(filter|diff)\."],
            cwd=repo, capture_output=True, timeout=DRIVER_TIMEOUT, env=environment(), stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    drivers: dict[str, str] = {}
    for raw in done.stdout.split(b"\0"):
        match = _DRIVER.match(raw.decode("utf-8", "surrogateescape"))
        if match:
            drivers.setdefault(match.group(2), match.group(1).lower())
    settings = []
    for name, kind in sorted(drivers.items()):
        settings += [f"{kind}.{name}.{key}=" for key in _DRIVER_KEYS[kind]]
        if kind == "filter":
            settings.append(f"filter.{name}.required=false")
    return _switches(settings)


def git_command(repo: Path, *args: str) -> list[str]:
    """The argv of `git args...` in `repo` with every config-driven program switched off."""
    return ["git", *_switches(SWITCHED_OFF), *driver_overrides(repo), *args]


def run_git(repo: Path, *args: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """`git args...` in `repo`, output captured as bytes; OSError or SubprocessError as run raises."""
    return subprocess.run(
        git_command(repo, *args), cwd=repo, capture_output=True, timeout=timeout, env=environment(), stdin=subprocess.DEVNULL
    )


def refusal(output: str) -> str | None:
    """A sentence for git's refusal of a repository owned by another user, else None."""
    if "dubious ownership" not in output:
        return None
    match = re.search(r"safe\.directory\s+'?([^'\n]+)'?", output)
    folder = match.group(1).strip() if match else "the folder"
    return (
        f"git refuses to read {folder}: it is owned by another user, and its configuration could run "
        f"programs. If you trust it, run `git config --global --add safe.directory {folder}`."
    )
