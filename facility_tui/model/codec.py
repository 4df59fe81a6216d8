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

from facility_tui.model.encounter import build
from facility_tui.model.log import Log


class DecodeError(ValueError):
    """Data that does not fit the model; ``where`` is the key path (``combatants[2].sheet.hlt``)
    when known, for a message that points at the line of a hand-edited save."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


_PLAIN = frozenset({str, int, float, bool})  # kept as they are, the most common by far


@cache
def _encoded_fields(cls: type) -> tuple[tuple[str, bool, Any], ...] | None:
    """An attrs class's fields as ``encode`` reads them (name, omitted at its default, the
    default), worked out once per class; ``None`` for any other type."""
    if not attrs.has(cls):
        return None
    return tuple(
        (f.name, bool(f.metadata.get("omit_default")), f.default) for f in attrs.fields(cls)
    )


def encode(value: Any) -> Any:
    cls: Any = type(value)
    if cls in _PLAIN:
        return value
    fields = _encoded_fields(cls)
    if fields is not None:
        out = {}
        for name, omit, default in fields:
            v = getattr(value, name)
            if v is not None and not (omit and v == default):
                out[name] = encode(v)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | Log):
        return [encode(v) for v in value if v is not None]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items() if v is not None}
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def hints(cls: type) -> dict[str, Any]:
    """The type of each field of attrs class ``cls`` (worked out once per class)."""
    return _hints(cls)


_REQUIRED = object()


@cache
def defaults(cls: type) -> tuple[tuple[str, Any], ...]:
    """``(field name, default value)`` of an attrs class, in field order; a field without a
    default (or with a factory that needs the instance) has ``_REQUIRED``."""
    out = []
    for f in attrs.fields(cls):
        d = f.default
        if d is attrs.NOTHING:
            value = _REQUIRED
        elif isinstance(d, attrs.Factory):  # type: ignore[arg-type]
            value = _REQUIRED if d.takes_self else d.factory()
        else:
            value = d
        out.append((f.name, value))
    return tuple(out)


def encode_sparse(value: Any) -> Any:
    """Like ``encode``, but an attrs value keeps only the fields that differ from their
    default: what a fresh value would not have. ``decode`` reads it back whole, since an
    absent key is the field's default. (A default may then change only with a migration.)"""
    cls: Any = type(value)
    if cls in _PLAIN:
        return value
    if _encoded_fields(cls) is not None:
        out = {}
        for name, default in defaults(cls):
            v = getattr(value, name)
            if v is None or (default is not _REQUIRED and v == default):
                continue
            out[name] = encode_sparse(v)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | Log):
        return [encode_sparse(v) for v in value if v is not None]
    if isinstance(value, dict):
        return {str(k): encode_sparse(v) for k, v in value.items() if v is not None}
    return value


def unknown_key(
    cls: Any, data: Any, where: str, sheets: dict[str, type] | None = None
) -> str | None:
    """The path of the first key of ``data`` that no field of ``cls`` (an attrs class, read
    recursively through its type hints) has, or ``None``. ``sheets`` gives the class of fields
    typed ``Any`` by name (a combatant's ``sheet``, an encounter's ``state``)."""
    origin = typing.get_origin(cls)
    if origin in (Union, types.UnionType):
        found = [unknown_key(a, data, where, sheets) for a in typing.get_args(cls)]
        return None if None in found else found[0]
    if origin in (tuple, Log) and isinstance(data, list):
        args = typing.get_args(cls)
        for i, v in enumerate(data):
            arg = args[0] if len(args) == 2 and args[1] is Ellipsis else args[min(i, len(args) - 1)]
            bad = unknown_key(arg, v, f"{where}[{i}]", None)
            if bad:
                return bad
        return None
    if origin is dict and isinstance(data, dict):
        vt = typing.get_args(cls)[1]
        for k, v in data.items():
            bad = unknown_key(vt, v, f"{where}.{k}", None)
            if bad:
                return bad
        return None
    if isinstance(cls, type) and attrs.has(cls) and isinstance(data, dict):
        hints = _hints(cls)
        for k, v in data.items():
            at = f"{where}.{k}" if where else str(k)
            if k not in hints:
                return at
            sub = (sheets or {}).get(k, hints[k])
            bad = unknown_key(sub, v, at, None)
            if bad:
                return bad
    return None


def fields_of(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in attrs.fields(cls))


def got(value: Any) -> str:
    """A value from a save, short, for a message (control characters escaped)."""
    from facility_tui.model.text import printable

    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    text = printable(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."


def decode(cls: Any, data: Any, *, where: str = "") -> Any:
    """Build a value of type ``cls`` from plain data; ``DecodeError`` names what does not fit."""
    try:
        return _fast(cls)(data)
    except _Miss:
        return _decode(cls, data, where=where)  # the same rules, step by step: the message


def _decode(cls: Any, data: Any, *, where: str = "") -> Any:
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
        raise DecodeError(f"{where or 'value'}: {data!r} fits none of {cls}", where)
    if origin is Log:  # read as the tuple it holds
        (entry,) = typing.get_args(cls)
        return Log.of(decode(tuple[entry, ...], data, where=where))  # type: ignore[valid-type]
    if origin is tuple:
        args = typing.get_args(cls)
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected a list, got {got(data)}", where)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v, where=f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise DecodeError(f"{where}: expected {len(args)} items", where)
        return tuple(
            decode(a, v, where=f"{where}[{i}]")
            for i, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        _, vt = typing.get_args(cls)
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected a table, got {got(data)}", where)
        return {str(k): decode(vt, v, where=f"{where}.{k}") for k, v in data.items()}
    if isinstance(cls, type) and attrs.has(cls):
        return decode_attrs(cls, data, where=where)
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        try:
            return cls(data)
        except ValueError:
            raise DecodeError(f"{where}: unknown value {data!r}", where) from None
    if cls is bool:
        if isinstance(data, bool):
            return data
        raise DecodeError(f"{where}: expected true or false, got {got(data)}", where)
    if cls is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        raise DecodeError(f"{where}: expected a whole number, got {got(data)}", where)
    if cls is float:
        if isinstance(data, int | float) and not isinstance(data, bool):
            return float(data)
        raise DecodeError(f"{where}: expected a number, got {got(data)}", where)
    if cls is str:
        if isinstance(data, str):
            return data
        raise DecodeError(f"{where}: expected text, got {got(data)}", where)
    raise DecodeError(f"{where}: cannot read a {cls}")  # pragma: no cover - a model bug


def decode_attrs(cls: type, data: Any, *, where: str = "", **given: Any) -> Any:
    try:
        return _fast_attrs(cls, data, given)
    except _Miss:
        return _decode_attrs(cls, data, where=where, **given)


def _decode_attrs(cls: type, data: Any, *, where: str = "", **given: Any) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"{where or cls.__name__}: expected a table", where)
    hints = _hints(cls)
    kwargs = dict(given)
    for f in attrs.fields(cls):
        if f.name in kwargs or f.name not in data:
            continue
        kwargs[f.name] = decode(hints[f.name], data[f.name], where=f"{where}.{f.name}".lstrip("."))
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise DecodeError(f"{where or cls.__name__}: {err}", where) from None


# -- the same rules, as one function per type ---------------------------------------------------

# ``decode`` works out what to do from the type hints at every value, and names where it is
# (``combatants[2].sheet.hlt``) at every step: a thousand combatants' sheets took most of the time
# a big save takes to open. Each type gets one function, made once, that builds the same value or
# gives up (``_Miss``) without a word; ``decode`` then goes the slow way to say what did not fit.


class _Miss(Exception):
    pass


Fast = typing.Callable[[Any], Any]
_FAST: dict[Any, Fast] = {}


def _fast(cls: Any) -> Fast:
    made = _FAST.get(cls)
    if made is None:
        made = _FAST[cls] = _make_fast(cls)
    return made


def _keep(data: Any) -> Any:
    return data


def _make_fast(cls: Any) -> Fast:  # one branch per kind of type, as ``_decode``
    if cls is Any:
        return _keep
    origin = typing.get_origin(cls)
    if origin in (Union, types.UnionType):
        args = typing.get_args(cls)
        options = [a for a in args if a is not type(None)]
        nullable = len(options) < len(args)

        def union(data: Any) -> Any:
            if data is None and nullable:
                return None
            for option in options:
                try:
                    return _fast(option)(data)
                except _Miss:
                    continue
            raise _Miss

        return union
    if origin is Log:
        (entry,) = typing.get_args(cls)
        entries = _fast(tuple[entry, ...])  # type: ignore[valid-type]
        return lambda data: Log.of(entries(data))
    if origin is tuple:
        args = typing.get_args(cls)
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]

            def many(data: Any) -> Any:
                if not isinstance(data, list):
                    raise _Miss
                one = _fast(item)
                return tuple([one(v) for v in data])

            return many

        def fixed(data: Any) -> Any:
            if not isinstance(data, list) or len(args) != len(data):
                raise _Miss
            return tuple([_fast(a)(v) for a, v in zip(args, data, strict=True)])

        return fixed
    if origin is dict:
        vt = typing.get_args(cls)[1]

        def table(data: Any) -> Any:
            if not isinstance(data, dict):
                raise _Miss
            one = _fast(vt)
            return {str(k): one(v) for k, v in data.items()}

        return table
    if isinstance(cls, type) and attrs.has(cls):
        return lambda data: _fast_attrs(cls, data, {})
    if isinstance(cls, type) and issubclass(cls, enum.Enum):

        def member(data: Any) -> Any:
            try:
                return cls(data)
            except ValueError:
                raise _Miss from None

        return member
    if cls is bool:
        return _fast_bool
    if cls is int:
        return _fast_int
    if cls is float:
        return _fast_float
    if cls is str:
        return _fast_str
    return _miss


def _miss(data: Any) -> Any:
    raise _Miss


def _fast_bool(data: Any) -> Any:
    if isinstance(data, bool):
        return data
    raise _Miss


def _fast_int(data: Any) -> Any:
    if isinstance(data, int) and not isinstance(data, bool):
        return data
    raise _Miss


def _fast_float(data: Any) -> Any:
    if isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    raise _Miss


def _fast_str(data: Any) -> Any:
    if isinstance(data, str):
        return data
    raise _Miss


@cache
def _field_types(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = _hints(cls)
    return tuple((f.name, hints[f.name]) for f in attrs.fields(cls))


_EXACT: dict[Fast, type] = {_fast_str: str, _fast_int: int, _fast_bool: bool}


@cache
def _field_decoders(cls: type) -> dict[str, Fast | type]:
    """Each field's decoder; for text, a whole number or true/false, the type itself: checked
    in place (``_fast_attrs``), as a parser gives them (an int of a subclass goes the slow way,
    to the same value)."""
    out: dict[str, Fast | type] = {}
    for name, hint in _field_types(cls):
        one = _fast(hint)
        out[name] = _EXACT.get(one, one)
    return out


def _fast_attrs(cls: type, data: Any, given: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        raise _Miss
    kwargs = dict(given)
    fields = _field_decoders(cls)
    # (by the data's keys, not the class's fields: a sparse save's combatant names a few of
    # its 25 fields; a key that is no field is left out, as the fields' loop left it)
    for name, value in data.items():
        one = fields.get(name)
        if one is None or name in given:
            continue
        if one.__class__ is type:
            if value.__class__ is not one:
                raise _Miss
            kwargs[name] = value
        else:
            kwargs[name] = one(value)
    try:
        return build(cls, kwargs)
    except (TypeError, ValueError):
        raise _Miss from None
