"""The `devagent` command line, a package of its own: the parser and the app's launch in
`main`, one module a subcommand. Nothing here imports Textual; `run_app` imports the app
only when it opens it."""

from tui.cli.main import (
    SUBCOMMANDS,
    add_agent_options,
    add_resume_option,
    app_parser,
    main,
    resume_id,
    run_app,
)

__all__ = ["SUBCOMMANDS", "add_agent_options", "add_resume_option", "app_parser", "main", "resume_id", "run_app"]
