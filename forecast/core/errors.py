"""Errors in model settings a user chose (``model.<key>=``), reported by the CLI as one line."""

from __future__ import annotations


class ConfigError(ValueError):
    """A model setting cannot work as given; the message names the setting and its value."""
