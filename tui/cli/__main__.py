"""`python -m tui.cli`, as the `devagent` script."""

import sys

from tui.cli.main import main

sys.exit(main())
