"""`python -m swarmstats.cli`."""

import sys

from . import main

sys.exit(main())
