"""`python -m botarena` runs the CLI."""

import sys

from botarena.cli import main

sys.exit(main())
