"""Whether a command the model asked for may run: the user says once, always, or no.

The model's `run_command` gives one text, run by `/bin/sh -c` in the sandbox, and a
one-line reason. The session asks the user (a `CommandAsked` event; the answer comes back
as an agent.decisions.Decision through the session's one mailbox, as the trust question's
does): yes once, yes always for this exact text in this repository, or no; the user may
edit the text first, and allow it the network. "Always" answers are kept in devagent's
config folder, owner-only, keyed by the repository (agent.workspace_trust.repository_key)
and the exact text, and listed and revoked with `devagent trust --status` and the palette.
A headless run (`devagent ask`) cannot ask: it runs the texts allowed beforehand
(`--allow`, or an "always" answer) and refuses the rest, saying why.

Where the sandbox cannot run (no bubblewrap), the question says so and "always" is not
offered; a headless run refuses.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.events import CommandAsked, CommandRequest, Event
from agent.workspace_trust import DIR_MODE, FILE_MODE, read_owned, repository_key

if TYPE_CHECKING:
    from agent.decisions import AskingTurn

__all__ = ["Allowed", "AllowedCommands", "Approval", "CommandAsked", "CommandConsent", "CommandRequest", "TurnCommands"]

FILE_NAME = "allowed-commands.json"


def allowed_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("devagent")) / FILE_NAME


def _read_owned(path: Path) -> dict[str, Any]:
    """The "repositories" table of the file; empty when it is missing, unreadable, or could
    have been written by someone else (what another user could have allowed is no allowing)."""
    repos = read_owned(path).get("repositories")
    return repos if isinstance(repos, dict) else {}


def _write_owned(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Changes the "repositories" table of `path` under its lock, and writes it owner-only."""
    from filelock import FileLock

    from memory.atomic import write_file
    from memory.folder_trust import make_private

    make_private(path.parent)
    os.chmod(path.parent, DIR_MODE)
    with FileLock(str(path) + ".lock", mode=FILE_MODE):
        repos = _read_owned(path)
        change(repos)
        text = json.dumps({"repositories": repos}, indent=2, sort_keys=True) + "\n"
        write_file(str(path), text.encode("utf-8"), FILE_MODE)


@dataclass(frozen=True)
class Allowed:
    """An "always" answer: `command` runs in `path`'s repository without asking."""

    command: str
    network: bool
    path: str  # the repository as the user named it
    decided: str  # ISO date and time


class AllowedCommands:
    """The "always" answers, by repository and exact command text."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or allowed_file()

    def _entries(self, repos: dict[str, Any], key: str) -> dict[str, Any]:
        entry = repos.get(key)
        commands = entry.get("commands") if isinstance(entry, dict) else None
        return commands if isinstance(commands, dict) else {}

    def listing(self, repo: Path | None = None) -> list[Allowed]:
        """Every "always" answer (only `repo`'s when named), by repository then text."""
        repos = _read_owned(self.path)
        keys = [repository_key(repo)] if repo is not None else sorted(repos)
        out = []
        for key in keys:
            entry = repos.get(key)
            path = str(entry.get("path", key)) if isinstance(entry, dict) else key
            for text, value in sorted(self._entries(repos, key).items()):
                if isinstance(value, dict):
                    out.append(Allowed(text, value.get("network") is True, path, str(value.get("decided", ""))))
        return out

    def allowed(self, repo: Path, command: str) -> Allowed | None:
        return next((a for a in self.listing(repo) if a.command == command), None)

    def remember(self, repo: Path, command: str, network: bool) -> None:
        key = repository_key(repo)

        def change(repos: dict[str, Any]) -> None:
            entry = repos.get(key) if isinstance(repos.get(key), dict) else None
            if entry is None:
                entry = repos[key] = {"path": str(Path(os.path.abspath(repo))), "commands": {}}
            if not isinstance(entry.get("commands"), dict):
                entry["commands"] = {}
            entry["commands"][command] = {"network": network, "decided": datetime.now(UTC).isoformat(timespec="seconds")}

        _write_owned(self.path, change)

    def forget(self, repo: Path, command: str) -> bool:
        """Takes an "always" back; False when there was none for that text."""
        key, found = repository_key(repo), []

        def change(repos: dict[str, Any]) -> None:
            commands = self._entries(repos, key)
            if command in commands:
                found.append(commands.pop(command))

        _write_owned(self.path, change)
        return bool(found)


@dataclass(frozen=True)
class Approval:
    command: str  # what runs: the user's edit, when they made one
    network: bool
    how: str  # once, always, remembered (an earlier "always"), allowed (`ask --allow`)
    edited: bool = False

    def said(self, asked: str) -> str:
        """What the model hears of the answer."""
        words = {"once": "The user approved this command once", "always": "The user approved this command for good",
                 "remembered": "This command runs without asking: the user approved it for good earlier",
                 "allowed": "This command was allowed for this run (devagent ask --allow)"}[self.how]
        if self.edited:
            words += f", after editing it from `{asked}`"
        return words + (", with the network." if self.network else ", without the network.")


class CommandConsent:
    """One session's answers to whether a command may run. `interactive`: the user can be
    asked (the app). `allowed`: the texts a headless run may run (`ask --allow`)."""

    def __init__(self, repo: Path, *, interactive: bool = False, allowed: tuple[str, ...] = (),
                 store: AllowedCommands | None = None) -> None:
        self.repo = Path(repo)
        self.interactive = interactive
        self.allowed = tuple(allowed)
        self.store = store or AllowedCommands()
        self._lock = threading.Lock()

    def bound(self, turn: AskingTurn) -> TurnCommands:
        return TurnCommands(self, turn)


@dataclass
class TurnCommands:
    """The consent as one turn asks it, and the way its command's output reaches the screen."""

    consent: CommandConsent
    turn: AskingTurn

    def emit(self, event: Event) -> None:
        self.turn.emit(event)

    def approve(self, command: str, reason: str, network: bool, unsandboxed: str | None) -> Approval | str:
        """How `command` may run, or why not (a sentence for the model)."""
        consent = self.consent
        with consent._lock:  # one question at a time
            if unsandboxed is None:
                remembered = consent.store.allowed(consent.repo, command)
                if remembered is not None:
                    return Approval(command, remembered.network or False, "remembered")
                if command in consent.allowed:
                    return Approval(command, False, "allowed")
            if not consent.interactive:
                if unsandboxed is not None:
                    return f"Not run: {unsandboxed}, and a command never runs unsandboxed without the user saying so."
                return (f"Not run: `{command}` is not among the commands allowed for this run, and no one is here to "
                        f"ask. The user can allow it with devagent ask --allow '{command}'. Go on without it.")
            turn = self.turn
            request = CommandRequest(consent.repo, command, reason, network, unsandboxed)
            answer = turn.decisions.ask(request.id, lambda: turn.emit(CommandAsked(turn.id, request)),
                                        lambda: turn.cancel.cancelled)
            if answer is None:
                return "Not run: the user cancelled the turn before deciding on the command."
            if not answer.yes:
                why = answer.why or "the user said no"
                return f"Not run: {why}. Do not ask for the same command again unless the user asks for it."
            text = (answer.edited or "").strip() or command
            always = answer.always and unsandboxed is None
            if always:
                consent.store.remember(consent.repo, text, answer.network)
            return Approval(text, answer.network, "always" if always else "once", edited=text != command)
