"""The one error type for bad user input: its message is a single line that says what to do.

Importing this module costs nothing (no pandas, no torch), so the CLI can check input before it loads them.
"""

from __future__ import annotations

from pathlib import Path


class DataError(ValueError):
    """A user-supplied file, column, row or setting is unusable. ``str(err)`` is one line."""


def require_file(path: Path) -> None:
    """Raise DataError unless ``path`` is a file."""
    if not path.is_file():
        raise DataError(f"{path}: file not found; check the path")
