"""``python3 -m perfectplay.site ACTION`` is ``perfectplay site ACTION``."""

import sys

from perfectplay.site.cli import main

sys.exit(main(sys.argv[1:]))
