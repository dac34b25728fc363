"""The one error type for bad user input: its message is a single line that says what to do."""


class DataError(ValueError):
    """A user-supplied file, column, row or setting is unusable. ``str(err)`` is one line."""
