"""A day in one session, with and without context management: tokens per request and cost
per turn over 200 turns.

    uv run python benchmarks/long_session.py [--turns 200] [--model claude-haiku-5-5] [--every 10]

Each turn reads a 20 KB file (a build every fourth turn) through the real tools, and every
tenth saves a memory; the Claude double (tests/double/server.py) stands in for the API and
applies context management, prompt caching and the window as tests/double/context.py says.
Costs use agent/loop/claude.py's price table for the model, cache reads and writes included.

Prints a table (every --every turns: the context of the turn's last request, marked ! when
the double refused it as over the window, and the turn's cost, both ways), then the floor (the clearing threshold the context must stay under), the
figure (the largest context of the second half of the day with context management) and
their ratio (target: at most 1.0), and the cost per turn both ways.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--model", default="claude-haiku-5-5")
    parser.add_argument("--every", type=int, default=10)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="long-session-"))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        os.environ[name] = str(root / name.lower())
    os.environ["ANTHROPIC_API_KEY"] = "benchmark"

    from agent.conversation import window as context
    from agent.loop import claude
    from agent.settings.config import AgentConfig
    from tests.agent.long_day import run_day
    from tests.double.context import count
    from tests.double.server import ClaudeDouble

    days = {}
    for managed in (False, True):
        with ClaudeDouble() as double:
            os.environ["ANTHROPIC_BASE_URL"] = double.url
            day = run_day(double, root / ("with" if managed else "without"), turns=args.turns, managed=managed, model=args.model)
            # The context of each turn's last request, as the double counted it (failed ones too).
            per_turn, turn = [], 0
            for request in double.messages_requests():
                said = request.last_user_text()
                if "turn " in said and not request.tool_results():
                    turn += 1
                view = request.context
                # A refused request has no view: its size is what the double refused it for.
                size = view.input_tokens + view.cache_read + view.cache_write if view is not None else count(request.body)
                if turn:
                    if len(per_turn) < turn:
                        per_turn.append(size)
                    else:
                        per_turn[turn - 1] = size
            days[managed] = (day, per_turn)

    limits = context.limits_for(AgentConfig(model=args.model))
    price = claude.price(args.model)
    print(f"model {args.model}: window {limits.window:,}, clears at {limits.clear_at:,}, compacts at {limits.compact_at:,} input tokens")
    print(f"prices per million tokens: input ${price.input}, output ${price.output}, cache write ${price.cache_write}, cache read ${price.cache_read}")
    print()
    print(f"{'turn':>5} | {'tokens without':>15} {'cost without':>13} | {'tokens with':>12} {'cost with':>10}")
    without, with_ = days[False], days[True]
    for n in range(args.every, args.turns + 1, args.every):
        i = n - 1
        w_tokens = _tokens(without[1], i, without[0].ok[i])
        m_tokens = _tokens(with_[1], i, with_[0].ok[i])
        w_cost = f"${without[0].cost[i]:.5f}" if without[0].ok[i] else "failed"
        m_cost = f"${with_[0].cost[i]:.5f}" if with_[0].ok[i] else "failed"
        print(f"{n:>5} | {w_tokens:>15} {w_cost:>13} | {m_tokens:>12} {m_cost:>10}")
    print()
    print(f"turns that succeeded: without {sum(without[0].ok)}/{args.turns}, with {sum(with_[0].ok)}/{args.turns}")
    if False in without[0].ok:
        print(f"without context management the first failure is turn {without[0].ok.index(False) + 1}: {without[0].errors[without[0].ok.index(False)]}")
    second_half = with_[0].requests[len(with_[0].requests) // 2 :]
    figure = max(second_half) if second_half else 0
    print(f"floor  {limits.clear_at:>9,} tokens  (the clearing threshold)")
    print(f"figure {figure:>9,} tokens  (largest request, second half of the day, with context management)")
    print(f"ratio  {figure / limits.clear_at:>9.2f}      (target <= 1.00)")
    both = [i for i in range(args.turns) if without[0].ok[i] and with_[0].ok[i]]
    print(
        f"cost per turn over the {len(both)} turns that both runs finished: without ${statistics.mean(without[0].cost[i] for i in both):.5f}, "
        f"with ${statistics.mean(with_[0].cost[i] for i in both):.5f}"
    )
    print(f"cost per turn over the day with context management: ${statistics.mean(with_[0].cost):.5f}, total ${sum(with_[0].cost):.4f}")
    return 0


def _tokens(per_turn: list, i: int, ok: bool) -> str:
    if i >= len(per_turn) or per_turn[i] is None:
        return "refused"
    return f"{per_turn[i]:,}" if ok else f"{per_turn[i]:,}!"


if __name__ == "__main__":
    sys.exit(main())
