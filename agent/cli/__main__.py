"""``python -m agent.cli`` is ``fireplan``."""

import sys

from . import main

sys.exit(main())
