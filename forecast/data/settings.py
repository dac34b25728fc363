"""Check ``data.*`` settings against the data module's constructor annotations, one line per refusal.

An annotation may carry its wording: ``Annotated[str | None, "a pandas frequency such as h, 15min, D"]``;
without one the wording follows the type (``an integer``, ``true or false``, ``a list``, ``M, S or MS``).
A refusal reads ``data.seq_len must be an integer, got 'x'; set data.seq_len=<an integer>``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

from forecast.data.errors import DataError

_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string", Path: "a file path"}


def _parts(hint: Any) -> tuple[list[Any], bool]:
    """The allowed types or literal values of a hint, and whether it allows None."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        parts = [p for arg in typing.get_args(hint) for p in _parts(arg)[0]]
        return [p for p in parts if p is not type(None)], type(None) in typing.get_args(hint)
    if typing.get_origin(hint) is typing.Annotated:
        return _parts(typing.get_args(hint)[0])
    if typing.get_origin(hint) is Literal:
        return [("literal", v) for v in typing.get_args(hint)], None in typing.get_args(hint)
    if hint is type(None):
        return [], True
    origin = typing.get_origin(hint)
    return [origin if origin is not None else hint], False


def _fits(value: Any, allowed: Any) -> bool:
    if isinstance(allowed, tuple):
        return value == allowed[1] and value is not None
    if allowed is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if allowed is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if allowed is Sequence:  # a list, never a string
        return isinstance(value, Sequence) and not isinstance(value, str)
    return isinstance(value, allowed)


def _words(allowed: list[Any]) -> str:
    literals = [str(a[1]) for a in allowed if isinstance(a, tuple) and a[1] is not None]
    if literals:
        return ", ".join(literals[:-1]) + f" or {literals[-1]}" if len(literals) > 1 else literals[0]
    named = [_WORDS.get(a, "a list") for a in allowed]
    return " or ".join(dict.fromkeys(named))


def _wording(hint: Any) -> str | None:
    """The wording an ``Annotated`` hint (or one inside a union) carries."""
    if typing.get_origin(hint) is typing.Annotated:
        return str(typing.get_args(hint)[1])
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return next((w for w in map(_wording, typing.get_args(hint)) if w is not None), None)
    return None


def check_settings(function: Callable[..., Any], values: Mapping[str, Any], prefix: str = "data") -> None:
    """Refuse the first value that does not fit its annotation in ``function``'s signature.

    Raises:
        DataError: ``<prefix>.<key> must be <what>[ or null], got <value>; set <prefix>.<key>=<what>``.
    """
    hints = typing.get_type_hints(function, include_extras=True)
    for key, value in values.items():
        hint = hints.get(key)
        if hint is None:
            continue
        wording = _wording(hint)
        allowed, optional = _parts(hint)
        if value is None and optional:
            continue
        if any(_fits(value, a) for a in allowed):
            continue
        what = wording or _words(allowed)
        raise DataError(f"{prefix}.{key} must be {what}{' or null' if optional else ''}, got {value!r}; "
                        f"set {prefix}.{key}=<{what}>")
