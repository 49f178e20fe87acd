"""The sandbox a repository's commands run in: bubblewrap, with the repository the one place they write.

A command the user approved (agent/tools/command.py) and the build and test tools run as
`bwrap ... -- argv`, where:

- the system is mounted read-only, and the repository read-write over it (its `.git`
  read-only again: a hook or a config written there would run later, outside);
- the user's home is an empty folder but for the toolchain caches and installs in
  `HOME_CACHES`, the one list of what a command sees of it (so `~/.ssh`, `~/.aws`, keyrings
  and shell histories are not there to read);
- `/tmp` and `/run` are private and empty (no agent's socket, no session bus), and so is
  `/dev` but for the usual devices;
- every namespace bubblewrap has is new: its own pid namespace, whose init dying takes
  every process in it (Esc and a timeout kill bwrap; `--die-with-parent` ends it with
  devagent too), no network unless the caller allows it, no capabilities;
- the environment is built from `PASSED_VARIABLES`, an allow list: a key or a token in the
  user's environment is not named there, so it is not passed, and a value the secret filter
  takes for a credential is dropped even from a name that is.

Where bubblewrap is missing or cannot make namespaces here, `available()` says why, and
the callers say so rather than run a command unsandboxed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

BWRAP = "bwrap"
INSTALL = "sudo apt-get install bubblewrap"
PROBE_TIMEOUT = 10.0

# What a command sees of the user's home, relative to it, and whether it may write there.
# Downloaded packages (checked by hash when used) are writable so builds can fill them;
# installed toolchains and programs are read-only.
HOME_CACHES: tuple[tuple[str, bool], ...] = (
    (".cache/uv", True),
    (".cache/pip", True),
    (".cache/pypoetry", True),
    (".cache/go-build", True),
    ("go/pkg/mod", True),
    (".cargo/registry", True),
    (".cargo/git", True),
    (".npm", True),
    (".cache/yarn", True),
    (".local/share/pnpm", True),
    (".nuget/packages", True),
    (".m2/repository", True),
    (".gradle/caches", True),
    (".local/share/uv/python", False),
    (".local/bin", False),
    (".cargo/bin", False),
    (".rustup", False),
    (".dotnet", False),
    (".pyenv", False),
    (".nvm", False),
    ("go/bin", False),
)

# The variables a command gets from the user's environment: where things are, the
# language, the toolchains' own homes. No credential is named here.
PASSED_VARIABLES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ",
    "CI", "NO_COLOR", "FORCE_COLOR", "COLUMNS",
    "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHASHSEED",
    "UV_CACHE_DIR", "UV_PYTHON_INSTALL_DIR", "PIP_CACHE_DIR",
    "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN",
    "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
    "NVM_DIR", "NVM_BIN", "NODE_PATH",
    "DOTNET_ROOT", "DOTNET_CLI_TELEMETRY_OPTOUT", "DOTNET_NOLOGO", "DOTNET_CLI_HOME", "NUGET_PACKAGES",
    "JAVA_HOME", "MAVEN_HOME", "GRADLE_USER_HOME",
    # where the certificates and the proxy are, for a command allowed the network
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
})
PASSED_PREFIXES = ("LC_",)
# Inside, these are the sandbox's own.
FIXED = {"TMPDIR": "/tmp", "TEMP": "/tmp", "TMP": "/tmp"}


# Folders every sandbox of this process may write besides the repository, while a caller
# holds them open (`writable_while`): the evaluation's stand-in toolchain logs its calls
# beside itself.
_also_writable: list[str] = []


@contextlib.contextmanager
def writable_while(folder: Path) -> Iterator[None]:
    _also_writable.append(os.path.realpath(folder))
    try:
        yield
    finally:
        _also_writable.remove(os.path.realpath(folder))


@dataclass(frozen=True)
class Sandbox:
    """Where one command runs: `repo` writable, the network only when `network`."""

    repo: Path
    network: bool = False
    # Folders outside the repository the command must write (a test runner's report folder).
    writable: tuple[Path, ...] = ()

    def argv(self, command: Sequence[str], cwd: Path, env: Mapping[str, str], bwrap: str | None = None,
             repo_fd: int | None = None) -> list[str]:
        """`command` wrapped in bubblewrap, to start in `cwd` (inside the repository, by its
        real path). `repo_fd`: the repository as the session opened it, bound by its descriptor,
        so a folder put in its path's place is not what the command gets."""
        homes = _homes(env)
        args = [bwrap or BWRAP, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
        if self.network:
            args.append("--share-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        if self.network:
            # resolv.conf often points into /run (systemd-resolved)
            args += ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
        for home in homes:
            args += ["--tmpfs", str(home)]
            for relative, writable in HOME_CACHES:
                place = home / relative
                if place.is_dir():
                    args += ["--bind" if writable else "--ro-bind", str(place), str(place)]
        for folder in [*_program_folders(env.get("PATH", ""), homes), *_own_python(homes)]:
            args += ["--ro-bind", folder, folder]
        repo = os.path.realpath(self.repo)
        args += ["--bind-fd", str(repo_fd), repo] if repo_fd is not None else ["--bind", repo, repo]
        for writable_folder in [*map(str, self.writable), *_also_writable]:
            args += ["--bind", writable_folder, writable_folder]
        args += _read_only_git(Path(repo))
        args += ["--chdir", str(cwd), "--", *command]
        return args


def inside(cwd: Path, repo: Path) -> tuple[Path, int | None]:
    """Where `cwd` is inside the sandbox, and the descriptor it goes through when it names the
    repository through one (/proc/self/fd/N/..., agent.tools.editor.confined_files)."""
    parts = Path(cwd).parts
    if len(parts) >= 5 and parts[:4] == ("/", "proc", "self", "fd") and parts[4].isdigit():
        return Path(os.path.realpath(repo), *parts[5:]), int(parts[4])
    return Path(cwd), None


def _homes(env: Mapping[str, str]) -> list[Path]:
    """The home the command's environment names and the user's own (from the password
    database), when they differ: both are hidden."""
    import pwd

    found = [os.path.realpath(env.get("HOME") or os.path.expanduser("~"))]
    try:
        found.append(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))
    except KeyError:
        pass
    return [Path(h) for h in dict.fromkeys(found) if h != "/"]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _program_folders(path: str, homes: list[Path]) -> list[str]:
    """The PATH's folders that /tmp or /run would hide (a toolchain unpacked there), read-only;
    none under a home, which only `HOME_CACHES` opens."""
    out: list[str] = []
    for entry in path.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        hidden = _within(real, "/tmp") or _within(real, "/run")
        near_home = any(_within(real, str(h)) or _within(str(h), real) for h in homes)
        if hidden and not near_home and real not in out:
            out.append(real)
    return out


def _own_python(homes: list[Path]) -> list[str]:
    """devagent's own Python environment, read-only where /tmp, /run or a home would hide it:
    a repository environment made from it (a venv whose python links there, a script whose
    first line names it) starts inside as it does outside. Installed code, none of the user's
    data; never a home itself or a folder above one."""
    out: list[str] = []
    for place in (sys.prefix, sys.base_prefix):
        real = os.path.realpath(place)
        hidden = _within(real, "/tmp") or _within(real, "/run") or any(_within(real, str(h)) for h in homes)
        holds_a_home = any(_within(str(h), real) for h in homes)
        if hidden and not holds_a_home and real not in out:
            out.append(real)
    return out


def _read_only_git(repo: Path) -> list[str]:
    """`.git` read-only inside (and the clone's git folder visible, for a worktree whose
    git folder /tmp or the home would hide)."""
    dot_git = repo / ".git"
    if not os.path.lexists(dot_git) or os.path.islink(dot_git):
        return []
    args = ["--ro-bind", str(dot_git), str(dot_git)]
    if dot_git.is_file():
        from memory.location import git_common_dir

        common = git_common_dir(repo)
        if common is not None:
            real = os.path.realpath(common)
            if not real.startswith(str(repo) + "/"):
                args += ["--ro-bind", real, real]
    return args


def environment(base: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The command's environment: the allowed names of `base`, `extra` (devagent's own
    settings for the run) over them, and the sandbox's temp folder."""
    from memory.secrets import find_secrets

    env: dict[str, str] = {}
    for name, value in base.items():
        allowed = name in PASSED_VARIABLES or name.startswith(PASSED_PREFIXES)
        # a value that is itself a credential (a token pasted into GOFLAGS) stays out
        if allowed and not find_secrets(f"{name}={value}"):
            env[name] = value
    env.update(extra or {})
    env.update(FIXED)
    return env


@functools.cache
def _probe(bwrap: str) -> str | None:
    try:
        done = subprocess.run([bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap could not start ({error})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap cannot make a sandbox on this machine ({said[-1] if said else f'exit code {done.returncode}'})"
    return None


def available(path: str | None = None) -> str | None:
    """None when commands can be sandboxed here; else why not, in a sentence."""
    bwrap = shutil.which(BWRAP, path=path)
    if bwrap is None:
        return f"bubblewrap is not installed, so commands cannot run in a sandbox ({INSTALL} installs it)"
    return _probe(bwrap)
