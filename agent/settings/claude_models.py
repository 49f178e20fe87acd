"""What each model takes: the one table every request is built from.

A request the model cannot take fails with a 400 on every turn, so a setting is checked
against this table once, at start (`fit`), and the request builders (agent.loop.claude,
agent.conversation.window) only read it. No SDK import here.

Sources (platform.claude.com/docs, November 2026), per column:
- window and max output: each model's overview page ("Context window · Max output") and the
  comparison table on them; Haiku 5.5 has a 1M window ("What's new in Claude Haiku 5.5").
- thinking: "Troubleshooting thinking" (supported and rejected `thinking.type` per model):
  manual budgets are rejected from Claude 4.7 on, deprecated on the 4.6 models, the only
  mode on 4.5; "What's new in Claude Haiku 5.5" (manual thinking returns an error; thinking
  is on by default; `disabled` only at effort low to high, per "Prompting Claude Haiku
  5.5"); "What's new in Claude Sonnet 5.5" (`between_tools` instead of `disabled`, low to
  high effort; forced tool use returns an error); Opus 5.5 and the Fable and Mythos 5.x
  models think always ("Adaptive (always on)" in the overview tables).
- effort: Haiku 5.5 is the first Haiku with effort levels ("Prompting Claude Haiku 5.5");
  Haiku 4.5 has none (the overview tables show "—").
- compaction: the compaction page lists the models from Claude Opus 4.6 and Sonnet 4.6 on;
  the 4.5 models are not among them. Its trigger is at least 50,000 input tokens.
- prefill and sampling: "What's new in Claude Haiku 5.5" (a prefilled assistant message and
  non-default temperature, top_p or top_k return errors), "What's new in Claude Sonnet 5"
  (sampling parameters return 400); Opus 4.6 takes no prefill (API release notes).
- prefix check: the "Prefix checks for thinking blocks" page lists the models that run it.
- progress display: "What's new in Claude Sonnet 5.5" (text between tool calls): the short
  progress notes the model writes between tool calls come back in thinking blocks, empty
  under the default `display` ("omitted") until a request sets a `display` that returns
  them; `between_tools` returns them with no `display` at all (its config is `type` alone).
  `display: "updates"` returns those notes and nothing of the reasoning, behind the beta
  header `thinking-display-updates-2026-08-18` (the SDK's beta types; the GA types take
  only "summarized" and "omitted", and "summarized" would show the reasoning as progress).
  Only Sonnet 5.5 is entered: its page is the one read.
Where a page could not be read for a model (Opus 4.7 and 4.8's window, Mythos Preview's
compaction, which effort levels the 4.x models take), the entry takes the stricter reading.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

ThinkingKind = Literal["adaptive-only", "manual", "both", "none"]

DISABLED: dict[str, str] = {"type": "disabled"}
BETWEEN_TOOLS: dict[str, str] = {"type": "between_tools"}
ALL_EFFORTS = ("low", "medium", "high", "xhigh", "max")
FOUR_EFFORTS = ("low", "medium", "high", "max")
# The beta behind `display: "updates"` (thinking-display-updates-2026-08-18).
PROGRESS_BETA = "thinking-display-updates-2026-08-18"
PROGRESS_DISPLAY = "updates"
# The compaction page: "trigger ... must be at least 50,000 tokens".
COMPACTION_MINIMUM = 50_000


# A NamedTuple, not a frozen dataclass: the app imports this before its first frame,
# and a dataclass's generated methods are compiled as it is imported.
class Model(NamedTuple):
    """What one Claude model takes in a request: its window, thinking, effort and options."""

    window: int
    max_output: int
    thinking: ThinkingKind
    # What turns thinking off: None when leaving `thinking` out does, else the value to
    # send; `ALWAYS_ON` when nothing does.
    thinking_off: dict[str, str] | None | str
    efforts: tuple[str, ...]
    compaction: bool
    prefill: bool
    sampling: bool
    # The effort levels at which thinking can be turned off (the 5.5 models: low to high).
    off_efforts: tuple[str, ...] = ALL_EFFORTS
    forced_tools: bool = True
    prefix_check: bool = False
    known: bool = True
    # What adaptive thinking's `display` is set to so that the notes written between tool
    # calls come back as text (None: nothing is sent, and thinking is not shown as progress).
    progress_display: str | None = None

    @property
    def effort(self) -> bool:
        return bool(self.efforts)


ALWAYS_ON = "always on"
_UP_TO_HIGH = ("low", "medium", "high")

_ALWAYS = Model(1_000_000, 128_000, "adaptive-only", ALWAYS_ON, ALL_EFFORTS, True, False, False, prefix_check=True)
_FIVE = Model(1_000_000, 128_000, "adaptive-only", DISABLED, ALL_EFFORTS, True, False, False)
_FOUR_SIX = Model(1_000_000, 128_000, "both", None, FOUR_EFFORTS, True, False, True)
_FOUR_FIVE = Model(200_000, 64_000, "manual", None, (), False, True, True)

MODELS: dict[str, Model] = {
    "claude-haiku-5-5": Model(
        1_000_000, 128_000, "adaptive-only", DISABLED, ALL_EFFORTS, True, False, False,
        off_efforts=_UP_TO_HIGH, prefix_check=True,
    ),
    "claude-sonnet-5-5": Model(
        1_000_000, 128_000, "adaptive-only", BETWEEN_TOOLS, ALL_EFFORTS, True, False, False,
        off_efforts=_UP_TO_HIGH, forced_tools=False, prefix_check=True, progress_display=PROGRESS_DISPLAY,
    ),
    "claude-opus-5-5": _ALWAYS,
    "claude-fable-5-2": _ALWAYS,
    "claude-mythos-5-2": _ALWAYS,
    "claude-fable-5-1": _ALWAYS,
    "claude-mythos-5-1": _ALWAYS,
    "claude-sonnet-5": _FIVE,
    "claude-opus-5": _FIVE._replace(off_efforts=_UP_TO_HIGH),
    "claude-fable-5": _ALWAYS._replace(prefix_check=False),
    "claude-mythos-5": _ALWAYS._replace(prefix_check=False),
    "claude-opus-4-8": _FIVE._replace(thinking_off=None, sampling=False),
    "claude-opus-4-7": _FIVE._replace(thinking_off=None, sampling=False),
    "claude-mythos-preview": _ALWAYS._replace(thinking="both", compaction=False, prefix_check=False),
    "claude-opus-4-6": _FOUR_SIX,
    "claude-sonnet-4-6": _FOUR_SIX,
    "claude-haiku-4-5": _FOUR_FIVE,
    "claude-haiku-4-5-20251001": _FOUR_FIVE,
    "claude-opus-4-5": _FOUR_FIVE,
    "claude-opus-4-5-20251101": _FOUR_FIVE,
    "claude-sonnet-4-5": _FOUR_FIVE,
    "claude-sonnet-4-5-20250929": _FOUR_FIVE,
}

# A model devagent does not know: a request with nothing optional in it (no thinking, no
# effort, no context management) and a window no larger than the smallest known one.
UNKNOWN = Model(200_000, 8_000, "none", None, (), False, True, False, known=False)


def lookup(model: str) -> Model:
    return MODELS.get(str(model).strip().lower(), UNKNOWN)


def thinking_param(model: Model, thinking: str, effort: str) -> dict[str, Any] | None:
    """The request's `thinking` for the setting `thinking` ("adaptive", "off" or a budget)
    once `fit` has made it one the model takes; None leaves it out."""
    if model.thinking == "none":
        return None
    if thinking.isdigit() and int(thinking) > 0 and model.thinking in ("manual", "both"):
        return {"type": "enabled", "budget_tokens": int(thinking)}
    if thinking == "off" or model.thinking == "manual":
        if model.thinking != "manual" and effort not in model.off_efforts:
            return _adaptive(model)
        off = model.thinking_off
        return dict(off) if isinstance(off, dict) else None
    return _adaptive(model)


def _adaptive(model: Model) -> dict[str, Any]:
    if model.progress_display:
        return {"type": "adaptive", "display": model.progress_display}
    return {"type": "adaptive"}


def betas_for(thinking: dict[str, Any] | None) -> list[str]:
    """The beta headers a request's `thinking` needs."""
    return [PROGRESS_BETA] if (thinking or {}).get("display") == PROGRESS_DISPLAY else []


def thinking_is_progress(thinking: dict[str, Any] | None) -> bool:
    """Whether the text of the thinking blocks a request gets back is the model's progress
    notes for the user (between tool calls), and not its reasoning."""
    thinking = thinking or {}
    return thinking.get("type") == "between_tools" or thinking.get("display") == PROGRESS_DISPLAY


def thinks(model: Model, thinking: str) -> bool:
    """Whether requests run with thinking on, which clearing old thinking needs."""
    if model.thinking == "none":
        return False
    if model.thinking == "manual":
        return thinking.isdigit() and int(thinking) > 0
    return thinking != "off" or model.thinking_off == ALWAYS_ON


class Misfit(NamedTuple):
    """A setting the model cannot take, and what devagent does instead."""

    setting: str
    why: str


def fit(
    model_id: str,
    *,
    thinking: str,
    effort: str,
    max_tokens: int,
    compact_at: int | None,
    given: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[Misfit]]:
    """The settings changed so that `model_id` takes them, and a sentence on each change
    that the user should hear: one naming the setting and the model. A default that does
    not fit changes silently; `given` names the settings the user chose."""
    model = lookup(model_id)
    name = model_id or "(no model)"
    changes: dict[str, Any] = {}
    said: list[Misfit] = []
    if not model.known:
        said.append(Misfit("model", f"{name} is not in devagent's model table, so requests go without thinking, effort "
                                    "or context management settings; devagent summarises long conversations itself"))
        return changes, said
    if thinking.isdigit() and model.thinking == "adaptive-only":
        said.append(Misfit("thinking", f"a thinking budget ({thinking} tokens) is not available on {name}, which "
                                       "only thinks adaptively; it thinks adaptively, steered by effort"))
        thinking = changes["thinking"] = "adaptive"
    elif thinking == "adaptive" and model.thinking == "manual":
        if "thinking" in given:
            said.append(Misfit("thinking", f"adaptive thinking is not available on {name}; set a budget such as "
                                           "thinking = 4000 to have it think; it runs without thinking"))
        thinking = changes["thinking"] = "off"
    if thinking == "off" and model.thinking_off == ALWAYS_ON:
        said.append(Misfit("thinking", f"thinking cannot be turned off on {name}; it thinks adaptively"))
        thinking = changes["thinking"] = "adaptive"
    if not model.effort:
        if "effort" in given:
            said.append(Misfit("effort", f"{name} has no effort setting, so effort = {effort} is not sent"))
    elif effort not in model.efforts:
        said.append(Misfit("effort", f"{name} has no effort level {effort}; it runs at high"))
        effort = changes["effort"] = "high"
    if thinking == "off" and effort not in model.off_efforts and model.thinking_off is not None:
        said.append(Misfit("thinking", f"thinking cannot be off at effort {effort} on {name} (only at "
                                       f"{', '.join(model.off_efforts)}); it thinks adaptively"))
        thinking = changes["thinking"] = "adaptive"
    if max_tokens > model.max_output:
        said.append(Misfit("max_tokens", f"{name} writes at most {model.max_output:,} tokens a reply; max_tokens is "
                                         f"{model.max_output:,}"))
        changes["max_tokens"] = model.max_output
    if compact_at is not None and model.compaction and compact_at < COMPACTION_MINIMUM:
        said.append(Misfit("compact_at", f"the API compacts no earlier than {COMPACTION_MINIMUM:,} tokens, so "
                                         f"compact_at = {compact_at:,} becomes {COMPACTION_MINIMUM:,}"))
        changes["compact_at"] = COMPACTION_MINIMUM
    return changes, said
