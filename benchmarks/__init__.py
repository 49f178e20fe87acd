"""Speed benchmarks: each prints its floor, its figure and their ratio.

    uv run python -m benchmarks                  # every benchmark, then one summary table
    uv run python -m benchmarks voice_latency    # only the named ones
    uv run python -m benchmarks --list
    uv run python benchmarks/voice_latency.py    # one script alone, with its own options

Absolute times move with the machine, so a target is a ratio to a floor measured in the
same run: the same work done the plainest way (the SDK's own memory tool, a bare Textual
app, one whole transcription...). A few targets are absolute (idle CPU under 1 % of a
core); their rows say so.

The convention a benchmark module follows, so the runner finds it:

- it is a module `benchmarks/<name>.py` whose name does not start with `_` (helpers do:
  `benchmarks/_bare_app.py`), and `common` holds what they share;
- it defines `run() -> list[Row]` (Row from `benchmarks.common`) that measures with its
  default settings, prints whatever detail it likes on the way, and returns one Row per
  target: `Row(measure, figure, floor, limit, of="ratio" | "figure", unit, floor_is)`;
- it stays runnable alone: `if __name__ == "__main__":` parses its own options, calls
  the same code and prints its rows with `common.print_rows(rows)`. As a script its
  directory comes first on sys.path, so it puts the project root there before importing
  `benchmarks.common` (see memory_store.py).

The runner runs each module in a fresh interpreter, one after the other (so no benchmark
meets another's heap, threads or environment), then prints every row in one table. It
exits 1 when a target is missed or a benchmark failed.
"""
