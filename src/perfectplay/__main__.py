"""``python -m perfectplay`` is the ``perfectplay`` command."""

import sys

from perfectplay.cli import main

sys.exit(main())
