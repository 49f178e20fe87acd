"""The repository's own toolchain, as the build and test tools meet it.

    plans.py              which toolchain a repository uses, and the exact build and test commands
    python_environments.py  the repository's Python environment (uv, poetry, hatch, tox, a venv)
    user_environment.py   the user's environment for every command, without devagent's own traces
    processes.py          running a command so that a turn can always stop its whole tree
    log_noise.py          padding and progress redraws taken out of a log
    diagnostics.py        compiler errors and warnings read from a build log
    report_requests.py    how each test runner is asked for a machine-readable report
    summary.py            a test run's summary: counts, failures with their reasons
    summary_readers.py    which reader a run's summary comes from: its report, else its console
    report_files.py       summaries read from JUnit XML, Jest's JSON and `go test -json`
    trx_report.py         summaries read from dotnet's TRX files
    console_summaries.py  summaries read from what a runner prints, where it wrote no report

Nothing here is a tool: agent/tools/build.py is the tool that puts these together.
"""
