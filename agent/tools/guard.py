"""The wrapper every tool body runs in: nothing escapes it, and nothing leaves it unmasked.

Apart from base.py so that masking, which returns ToolResults, and the tools, which need
both, import in one direction: base <- masking <- guard <- each tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.tools.base import ToolInputError, ToolResult
from agent.tools.masking import ScanCancelled, mask_result, withheld

if TYPE_CHECKING:
    from agent.cancel import Cancellation


def guarded(name: str, body: Callable[[], ToolResult], cancel: Cancellation | None = None) -> ToolResult:
    """Runs a tool body so that nothing escapes, then masks credentials in what it returns.

    `cancel` lets Esc stop the masking of a large output; the model then gets no output."""
    if not isinstance(name, str):
        name = str(name)
    try:
        result = body()
    except ScanCancelled:
        return withheld(name)
    except ToolInputError as exc:
        result = ToolResult(text=str(exc), is_error=True, summary="bad input")
    except Exception as exc:  # the loop must survive any tool bug; the model gets a sentence
        result = ToolResult(
            text=f"Error: {name} failed unexpectedly ({type(exc).__name__}: {exc}).",
            is_error=True,
            summary="failed",
            crashed=True,
        )
    try:
        return mask_result(result, cancel)
    except ScanCancelled:
        return withheld(name)
    except Exception as exc:
        # Without the secret filter nothing may reach the model, so fail closed.
        return ToolResult(
            text=f"Error: {name} output withheld: the secret filter is unavailable ({type(exc).__name__}).",
            is_error=True,
            summary="output withheld",
        )
