"""Monday's fourth step: "Finish the rename", then "Build it", scored by the build.

The session changes the call site itself with the text editor (code writes are `auto`:
nobody is there to review), then builds. The score is the build's own verdict, taken
again after the session with the real build tool on the dotnet stand-in (which fails
while the call site still reads `file.Patch`), so a reply that only says "done" scores
nothing; whether the model used the editor and ran the build itself is kept beside it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent.eval.turn_records import TurnRecord

FINISH = ("Finish the rename.", "Build it.")


@dataclass
class FinishScore:
    edited: bool  # the text editor changed a file in "Finish the rename"
    built: bool  # "Build it" ran the build tool
    build_green: bool  # the build passes after the session: what the step is scored by
    call_site_fixed: bool
    api_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def build_verdict(repo: Path, config: Any) -> bool:
    """Whether the build passes now; the fixture's stand-in must be on PATH."""
    from agent.tool_outcome import ToolOutcome
    from agent.tools.base import ToolContext
    from agent.tools.build import BuildTool

    result = BuildTool().run({}, ToolContext(repo, config=config))
    return not result.is_error and (result.outcome or "ok") == ToolOutcome.OK


def score_finish(turns: list[TurnRecord], green: bool, call_site_fixed: bool) -> FinishScore:
    from agent.tools.text_editor import EDITOR_NAME

    finish = turns[0] if turns else None
    build = turns[1] if len(turns) > 1 else None
    edited = finish is not None and any(
        not r.is_error and r.input.get("command") != "view" for r in finish.tools(EDITOR_NAME)
    )
    built = build is not None and bool(build.tools("build"))
    calls = int(sum(float(t.usage.get("api_calls") or 0) for t in turns))
    return FinishScore(edited=edited, built=built, build_green=green, call_site_fixed=call_site_fixed, api_calls=calls)
