"""Turning attrs values into plain TOML-ready data and back, driven by their type hints.

Supported field types: str, int, float, bool, StrEnum, nested attrs classes, ``tuple[X, ...]``,
``tuple[X, Y]``, ``dict[str, X]``, ``X | None`` and ``Any`` (data kept as is). ``None`` is never
written (TOML has no null): an absent key reads back as the field's default. Nor is the default of a
field whose metadata says ``omit_default`` (a field added later, so older files stay as they were).
"""

from __future__ import annotations

import enum
import types
import typing
from functools import cache
from typing import Any, Union

import attrs


class DecodeError(ValueError):
    """Data that does not fit the model."""


def encode(value: Any) -> Any:
    if attrs.has(type(value)):
        out = {}
        for f in attrs.fields(type(value)):
            v = getattr(value, f.name)
            if v is not None and not (f.metadata.get("omit_default") and v == f.default):
                out[f.name] = encode(v)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value if v is not None]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items() if v is not None}
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(cls: Any, data: Any, *, where: str = "") -> Any:
    """Build a value of type ``cls`` from plain data; ``DecodeError`` names what does not fit."""
    if cls is Any:
        return data
    origin = typing.get_origin(cls)
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(cls) if a is not type(None)]
        if data is None and len(options) < len(typing.get_args(cls)):
            return None
        for option in options:
            try:
                return decode(option, data, where=where)
            except DecodeError:
                continue
        raise DecodeError(f"{where or 'value'}: {data!r} fits none of {cls}")
    if origin is tuple:
        args = typing.get_args(cls)
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v, where=f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise DecodeError(f"{where}: expected {len(args)} items")
        return tuple(
            decode(a, v, where=f"{where}[{i}]")
            for i, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        _, vt = typing.get_args(cls)
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected a table")
        return {str(k): decode(vt, v, where=f"{where}.{k}") for k, v in data.items()}
    if isinstance(cls, type) and attrs.has(cls):
        return decode_attrs(cls, data, where=where)
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        try:
            return cls(data)
        except ValueError:
            raise DecodeError(f"{where}: unknown value {data!r}") from None
    if cls is bool:
        if isinstance(data, bool):
            return data
        raise DecodeError(f"{where}: expected true or false")
    if cls is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        raise DecodeError(f"{where}: expected a whole number")
    if cls is float:
        if isinstance(data, int | float) and not isinstance(data, bool):
            return float(data)
        raise DecodeError(f"{where}: expected a number")
    if cls is str:
        if isinstance(data, str):
            return data
        raise DecodeError(f"{where}: expected text")
    raise DecodeError(f"{where}: cannot read a {cls}")  # pragma: no cover - a model bug


def decode_attrs(cls: type, data: Any, *, where: str = "", **given: Any) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"{where or cls.__name__}: expected a table")
    hints = _hints(cls)
    kwargs = dict(given)
    for f in attrs.fields(cls):
        if f.name in kwargs or f.name not in data:
            continue
        kwargs[f.name] = decode(hints[f.name], data[f.name], where=f"{where}.{f.name}".lstrip("."))
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise DecodeError(f"{where or cls.__name__}: {err}") from None
