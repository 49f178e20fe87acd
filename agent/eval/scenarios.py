"""The evaluation's scenarios, by the name `devagent eval --scenario` takes.

A scenario owns its repository (how it is built), Friday's and Monday's questions, what
happens between the two days, and what counts as right; the harness runs any of them the
same way, one Friday per memory mode and N Mondays from copies of it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from agent.eval.csharp import CSharpScenario
from agent.eval.fareshare import FareshareScenario
from agent.settings.config import AgentConfig


class Scenario(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    friday: tuple[str, ...]
    monday: tuple[str, ...]

    def build(self, place: Path) -> Any: ...

    def run_friday(self, fixture: Any, config: AgentConfig, data: Path, friday: datetime, client: Any) -> dict[str, Any]: ...

    def weekend(self, fixture: Any, config: AgentConfig, data: Path, friday: datetime,
                *, stale: bool, cited: bool) -> dict[str, Any]: ...

    def run_monday(self, fixture: Any, config: AgentConfig, friday_data: Path, data: Path, monday: datetime,
                   client: Any, *, stale: bool) -> dict[str, Any]: ...

    def correct_out_of(self, stale: bool) -> int: ...

    def names(self) -> set[str]: ...


_ALL: tuple[Scenario, ...] = (CSharpScenario(), FareshareScenario())
SCENARIOS: dict[str, Scenario] = {s.name: s for s in _ALL}
