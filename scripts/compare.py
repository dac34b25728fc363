#!/usr/bin/env python
"""An alias of ``forecast-compare`` (:mod:`forecast.cli.compare`), kept for existing command lines.

    python scripts/compare.py multirun/2025-01-01/12-00-00 [MORE_DIRS...] --out reports/etth1
"""

from __future__ import annotations

import sys

from forecast.cli.compare import run

if __name__ == "__main__":
    sys.exit(run())
