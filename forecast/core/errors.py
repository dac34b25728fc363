"""Errors in model settings a user chose (``model.<key>=``, an attention backend in a role), reported by the CLI as
one line. Importing this module costs nothing (no torch), so the CLI can name them before it loads the model."""

from __future__ import annotations


class ConfigError(ValueError):
    """A model setting cannot work as given; the message names the setting and its value."""


class BackendRoleError(ValueError):
    """A backend was asked to fill an attention role it cannot (one-line message naming a fix).

    Attributes:
        role: the refused role, as passed to :meth:`forecast.attention.base.AttentionBackend.check_role`.
    """

    def __init__(self, message: str, *, role: str) -> None:
        super().__init__(message)
        self.role = role
