"""Python 2.7's iteration order of dicts and sets, and its ordering of mixed types.

A Python 2 bot that walks a dict (``for move, n in counts.iteritems()``) or a set, and keeps
the first or last of equal candidates, chose by the order of CPython 2.7's hash table:
where each key's hash lands, how collisions probe, when the table grows. ``Py2Dict`` and
``Py2Set`` are a dict and a set that iterate in that order: beside the real container they
keep a shadow of 2.7's table (keys only, with its empty and deleted slots), which changes
only when a key is added or removed. ``py2_hash`` is 2.7's hash of the types bots use as
keys (str, int, float, bool, tuple); other objects hash as here (their order cannot match:
in 2.7 it depends on memory addresses).

Python 2 also ordered values of different types (``None < 0``, numbers before everything,
then by type name): ``py2_cmp`` and the ``__py2_lt__``... helpers the translation calls.
"""

from __future__ import annotations

import builtins
import collections
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

MASK = (1 << 64) - 1
PERTURB_SHIFT = 5
MIN_SIZE = 8


def _c_long(value: int) -> int:
    """``value`` wrapped to a signed 64-bit C long, as 2.7's hash arithmetic does."""
    value &= MASK
    return value - (1 << 64) if value >> 63 else value


def _no_minus_one(value: int) -> int:
    return -2 if value == -1 else value


def _hash_text(text: str | bytes) -> int:
    codes = text if isinstance(text, bytes) else [ord(c) for c in text]
    if not codes:
        return 0
    x = codes[0] << 7
    for code in codes:
        x = ((1000003 * x) ^ code) & MASK
    x ^= len(codes)
    return _no_minus_one(_c_long(x))


def _hash_float(value: float) -> int:
    import math

    if math.isinf(value):
        return 314159 if value > 0 else -271828
    if math.isnan(value):
        return 0
    whole = math.floor(value)
    if whole == value:
        return py2_hash(int(value))
    mantissa, exponent = math.frexp(value)
    mantissa *= 2147483648.0
    high = int(mantissa)  # C's (long) truncates toward zero, as int() does
    mantissa = (mantissa - high) * 2147483648.0
    return _no_minus_one(_c_long(high + int(mantissa) + (exponent << 15)))


def _hash_int(value: int) -> int:
    if -(1 << 63) <= value < (1 << 63):
        return _no_minus_one(value)
    # A long beyond a C long: 2.7 sums its 30-bit digits with a rotation, modulo 2**64 - 1.
    digits = abs(value)
    parts = []
    while digits:
        parts.append(digits & ((1 << 30) - 1))
        digits >>= 30
    x = 0
    for digit in reversed(parts):
        x = ((x << 30) & MASK) | (x >> (64 - 30))
        x += digit
        if x > MASK:
            x -= MASK
    return _no_minus_one(_c_long(x if value > 0 else -x))


def _hash_tuple(items: tuple[Any, ...]) -> int:
    x = 0x345678
    mult = 1000003
    remaining = len(items)
    for item in items:
        remaining -= 1
        x = _c_long((x ^ py2_hash(item)) * mult)
        mult = _c_long(mult + 82520 + remaining + remaining)
    return _no_minus_one(_c_long(x + 97531))


def py2_hash(value: Any) -> int:
    """CPython 2.7's ``hash(value)`` (64-bit, no hash randomisation) for the usual key types."""
    kind = type(value)
    if kind is str or kind is bytes:
        return _hash_text(value)
    if kind is int:
        return _hash_int(value)
    if kind is bool:
        return int(value)
    if kind is float:
        return _hash_float(value)
    if kind is tuple:
        return _hash_tuple(value)
    if isinstance(value, str | bytes):
        return _hash_text(value)
    if isinstance(value, int):
        return _hash_int(int(value))
    if isinstance(value, float):
        return _hash_float(float(value))
    if isinstance(value, tuple):
        return _hash_tuple(tuple(value))
    return hash(value)


class _Dummy:
    """A deleted slot."""


DUMMY = _Dummy()
EMPTY = None


class Table:
    """The keys of a 2.7 hash table, slot by slot (EMPTY, DUMMY or the key)."""

    __slots__ = ("fill", "hashes", "mask", "slots", "used")

    def __init__(self, size: int = MIN_SIZE) -> None:
        self._empty(size)

    def _empty(self, size: int) -> None:
        self.slots: list[Any] = [EMPTY] * size
        self.hashes: list[int] = [0] * size
        self.mask = size - 1
        self.fill = 0  # slots not EMPTY
        self.used = 0  # slots holding a key

    def find(self, key: Any, hashed: int) -> int:
        """The slot of ``key``, or where it would go (the first deleted slot on its path)."""
        slots = self.slots
        mask = self.mask
        i = hashed & MASK
        index = i & mask
        entry = slots[index]
        if entry is EMPTY:
            return index
        free = -1
        if entry is DUMMY:
            free = index
        elif entry is key or (self.hashes[index] == hashed and entry == key):
            return index
        perturb = hashed & MASK
        while True:
            i = (i * 5 + perturb + 1) & MASK
            index = i & mask
            entry = slots[index]
            if entry is EMPTY:
                return index if free < 0 else free
            if entry is DUMMY:
                if free < 0:
                    free = index
            elif entry is key or (self.hashes[index] == hashed and entry == key):
                return index
            perturb >>= PERTURB_SHIFT

    def put_new(self, key: Any, hashed: int) -> None:
        """Insert a key that is not in the table (no growth)."""
        index = self.find(key, hashed)
        if self.slots[index] is EMPTY:
            self.fill += 1
        self.slots[index] = key
        self.hashes[index] = hashed
        self.used += 1

    def put_clean(self, key: Any, hashed: int) -> None:
        """Insert into a table without deleted slots (a resize)."""
        slots = self.slots
        mask = self.mask
        i = hashed & MASK
        index = i & mask
        perturb = hashed & MASK
        while slots[index] is not EMPTY:
            i = (i * 5 + perturb + 1) & MASK
            index = i & mask
            perturb >>= PERTURB_SHIFT
        slots[index] = key
        self.hashes[index] = hashed
        self.fill += 1
        self.used += 1

    def remove(self, key: Any, hashed: int) -> None:
        index = self.find(key, hashed)
        self.slots[index] = DUMMY
        self.used -= 1

    def resize(self, minused: int) -> None:
        size = MIN_SIZE
        while size <= minused:
            size <<= 1
        old = [(k, h) for k, h in zip(self.slots, self.hashes, strict=True) if _is_key(k)]
        self._empty(size)
        for key, hashed in old:
            self.put_clean(key, hashed)

    def grow_if_full(self) -> None:
        """After adding a key: 2.7 grows at two thirds full, to four times the keys."""
        if self.fill * 3 >= (self.mask + 1) * 2:
            self.resize((2 if self.used > 50000 else 4) * self.used)

    def keys(self) -> list[Any]:
        return [k for k in self.slots if k is not EMPTY and k is not DUMMY]

    def entries(self) -> list[tuple[Any, int]]:
        return [(k, h) for k, h in zip(self.slots, self.hashes, strict=True) if _is_key(k)]

    def pop_index(self) -> int:
        """The slot ``popitem``/``pop`` take: slot 0 if it holds a key, else the next one on
        from the finger 2.7 keeps in slot 0's hash."""
        if _is_key(self.slots[0]):
            index = 0
        else:
            index = self.hashes[0]
            if index > self.mask or index < 1:
                index = 1
            while not _is_key(self.slots[index]):
                index += 1
                if index > self.mask:
                    index = 1
        return index


def _is_key(entry: Any) -> bool:
    return entry is not EMPTY and entry is not DUMMY


_dict_setitem = dict.__setitem__
_dict_delitem = dict.__delitem__
_dict_contains = dict.__contains__


class Py2Dict(dict[Any, Any]):
    """A dict that iterates (keys, values, items, repr) in CPython 2.7's order; ``keys()``,
    ``values()`` and ``items()`` return lists, as in Python 2."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Py2Dict:
        # here, not in __init__: a bot's subclass may never call dict.__init__
        made = super().__new__(cls)
        made._table = Table()
        return made

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if args or kwargs:
            self.update(*args, **kwargs)

    @classmethod
    def presized(cls, count: int, ordered: dict[Any, Any]) -> Py2Dict:
        """A ``{k: v, ...}`` display of ``count`` pairs (2.7 sizes the table for more than 5
        first), from the Python 3 dict of the same display (same first-insertion order)."""
        made = cls()
        if count > 5:
            made._table.resize(count)
        for key, value in ordered.items():
            made[key] = value
        return made

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[Any, Any]]) -> Py2Dict:
        made = cls()
        for key, value in pairs:
            made[key] = value
        return made

    def __setitem__(self, key: Any, value: Any) -> None:
        if not _dict_contains(self, key):
            hashed = py2_hash(key)
            _dict_setitem(self, key, value)
            table = self._table
            table.put_new(key, hashed)
            table.grow_if_full()
            return
        _dict_setitem(self, key, value)

    def __delitem__(self, key: Any) -> None:
        _dict_delitem(self, key)
        self._table.remove(key, py2_hash(key))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._table.keys())

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._table.keys())

    def keys(self) -> list[Any]:  # type: ignore[override]
        return self._table.keys()

    def values(self) -> list[Any]:  # type: ignore[override]
        get = dict.__getitem__
        return [get(self, k) for k in self._table.keys()]  # noqa: SIM118 (a Table)

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        get = dict.__getitem__
        return [(k, get(self, k)) for k in self._table.keys()]  # noqa: SIM118

    def iterkeys(self) -> Iterator[Any]:
        return iter(self.keys())

    def itervalues(self) -> Iterator[Any]:
        return iter(self.values())

    def iteritems(self) -> Iterator[tuple[Any, Any]]:
        return iter(self.items())

    def has_key(self, key: Any) -> bool:
        return _dict_contains(self, key)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items()) + "}"

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if _dict_contains(self, key):
            return dict.__getitem__(self, key)
        self[key] = default
        return default

    def pop(self, key: Any, *default: Any) -> Any:
        if _dict_contains(self, key):
            value = dict.__getitem__(self, key)
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def popitem(self) -> tuple[Any, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        table = self._table
        index = table.pop_index()
        key = table.slots[index]
        value = dict.__getitem__(self, key)
        _dict_delitem(self, key)
        table.slots[index] = DUMMY
        table.used -= 1
        table.hashes[0] = index + 1
        return key, value

    def clear(self) -> None:
        dict.clear(self)
        self._table = Table()

    def copy(self) -> Py2Dict:
        made = Py2Dict.__new__(type(self))
        made._merge(self)
        return made

    def __copy__(self) -> Py2Dict:
        return self.copy()

    def _merge(self, other: Any) -> None:
        """2.7's PyDict_Merge: room for both first, then the other's keys in its order."""
        if isinstance(other, dict) and (other is self or not other):
            return
        if isinstance(other, Py2Dict):
            table = self._table
            if (table.fill + len(other)) * 3 >= (table.mask + 1) * 2:
                table.resize((table.used + len(other)) * 2)
            get = dict.__getitem__
            for key, hashed in other._table.entries():
                if not _dict_contains(self, key):
                    table.put_new(key, hashed)
                _dict_setitem(self, key, get(other, key))
            return
        if isinstance(other, dict):  # a dict not made here: its own order stands in for 2.7's
            table = self._table
            if (table.fill + len(other)) * 3 >= (table.mask + 1) * 2:
                table.resize((table.used + len(other)) * 2)
            for key, value in other.items():
                if not _dict_contains(self, key):
                    table.put_new(key, py2_hash(key))
                _dict_setitem(self, key, value)
            return
        if hasattr(other, "keys"):
            for key in list(other.keys()):
                self[key] = other[key]
            return
        for pair in other:
            key, value = pair
            self[key] = value

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        if len(args) > 1:
            raise TypeError(f"update expected at most 1 arguments, got {len(args)}")
        if args:
            self._merge(args[0])
        if kwargs:
            self._merge(Py2Dict.from_pairs(kwargs.items()))

    @classmethod
    def fromkeys(cls, iterable: Iterable[Any], value: Any = None) -> Py2Dict:  # type: ignore[override]
        made = cls()
        if isinstance(iterable, Py2Dict | Py2Set) and type(made) is Py2Dict:
            source = iterable._table.entries()
            made._table.resize(len(iterable))
            for key, hashed in source:
                made._table.put_new(key, hashed)
                _dict_setitem(made, key, value)
            return made
        for key in iterable:
            made[key] = value
        return made

    def __reduce__(self) -> Any:
        return (type(self).from_pairs, (self.items(),))


class Py2DefaultDict(Py2Dict):
    """``collections.defaultdict`` with 2.7's order."""

    def __init__(self, default_factory: Callable[[], Any] | None = None, *args: Any, **kw: Any):
        if default_factory is not None and not callable(default_factory):
            raise TypeError("first argument must be callable or None")
        self.default_factory = default_factory
        super().__init__(*args, **kw)

    def __missing__(self, key: Any) -> Any:
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def copy(self) -> Py2DefaultDict:
        made = Py2DefaultDict(self.default_factory)
        made._merge(self)
        return made

    def __repr__(self) -> str:
        return f"defaultdict({self.default_factory!r}, {Py2Dict.__repr__(self)})"

    def __reduce__(self) -> Any:
        return (Py2DefaultDict, (self.default_factory,), None, None, iter(self.items()))


_set_add = set.add
_set_discard = set.discard
_set_contains = set.__contains__


class Py2Set(set[Any]):
    """A set that iterates in CPython 2.7's order."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Py2Set:
        made = super().__new__(cls)
        made._table = Table()
        return made

    def __init__(self, iterable: Iterable[Any] = ()) -> None:
        super().__init__()
        self._update(iterable)

    def _update(self, iterable: Iterable[Any]) -> None:
        table = self._table
        if isinstance(iterable, Py2Set | Py2Dict) and (iterable is self or not iterable):
            return
        if isinstance(iterable, Py2Set | Py2Dict):
            # 2.7's set_merge / dict branch: room for both, then the other's table order
            if (table.fill + len(iterable)) * 3 >= (table.mask + 1) * 2:
                table.resize((table.used + len(iterable)) * 2)
            for key, hashed in iterable._table.entries():
                if not _set_contains(self, key):
                    _set_add(self, key)
                    table.put_new(key, hashed)
            return
        for key in iterable:
            self.add(key)

    def add(self, key: Any) -> None:
        if not _set_contains(self, key):
            hashed = py2_hash(key)
            _set_add(self, key)
            self._table.put_new(key, hashed)
            self._table.grow_if_full()

    def discard(self, key: Any) -> None:
        if _set_contains(self, key):
            _set_discard(self, key)
            self._table.remove(key, py2_hash(key))

    def remove(self, key: Any) -> None:
        if not _set_contains(self, key):
            raise KeyError(key)
        self.discard(key)

    def pop(self) -> Any:
        if not self:
            raise KeyError("pop from an empty set")
        table = self._table
        index = table.pop_index()
        key = table.slots[index]
        _set_discard(self, key)
        table.slots[index] = DUMMY
        table.used -= 1
        table.hashes[0] = index + 1
        return key

    def clear(self) -> None:
        set.clear(self)
        self._table = Table()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._table.keys())

    def __repr__(self) -> str:
        return f"set({list(self)!r})"

    def copy(self) -> Py2Set:
        return Py2Set(self)

    def __copy__(self) -> Py2Set:
        return self.copy()

    def update(self, *others: Iterable[Any]) -> None:
        for other in others:
            self._update(other)

    def union(self, *others: Iterable[Any]) -> Py2Set:
        made = Py2Set(self)
        made.update(*others)
        return made

    def __or__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return self.union(other)

    __ror__ = __or__

    def __ior__(self, other: Any) -> Py2Set:
        self.update(other)
        return self

    def intersection(self, *others: Iterable[Any]) -> Py2Set:
        made = self
        for other in others:
            made = made._intersect(other)
        return made if others else Py2Set(self)

    def _intersect(self, other: Iterable[Any]) -> Py2Set:
        made = Py2Set()
        if isinstance(other, set | frozenset):
            if len(other) > len(self):
                small, large = self, other
            else:
                small, large = (other, self)
            for key in small:
                if key in large:
                    made.add(key)
            return made
        for key in other:
            if _set_contains(self, key):
                made.add(key)
        return made

    def __and__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return self._intersect(other)

    def __rand__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return Py2Set(other)._intersect(self)

    def __iand__(self, other: Any) -> Py2Set:
        kept = self._intersect(other)
        self.clear()
        self._update(kept)
        return self

    def intersection_update(self, *others: Iterable[Any]) -> None:
        for other in others:
            self.__iand__(other)

    def difference(self, *others: Iterable[Any]) -> Py2Set:
        if len(others) == 1 and isinstance(others[0], set | frozenset | dict):
            other = others[0]
            made = Py2Set()
            for key in self:
                if key not in other:
                    made.add(key)
            return made
        made = Py2Set(self)
        made.difference_update(*others)
        return made

    def __sub__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return self.difference(other)

    def __rsub__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return Py2Set(other).difference(self)

    def difference_update(self, *others: Iterable[Any]) -> None:
        for other in others:
            for key in other:
                self.discard(key)

    def __isub__(self, other: Any) -> Py2Set:
        self.difference_update(other)
        return self

    def symmetric_difference(self, other: Iterable[Any]) -> Py2Set:
        made = Py2Set(other)
        made.symmetric_difference_update(self)
        return made

    def symmetric_difference_update(self, other: Iterable[Any]) -> None:
        for key in Py2Set(other) if not isinstance(other, Py2Set) else other:
            if _set_contains(self, key):
                self.discard(key)
            else:
                self.add(key)

    def __xor__(self, other: Any) -> Py2Set:
        if not isinstance(other, set | frozenset):
            return NotImplemented
        return self.symmetric_difference(other)

    __rxor__ = __xor__

    def __ixor__(self, other: Any) -> Py2Set:
        self.symmetric_difference_update(other)
        return self

    def __reduce__(self) -> Any:
        return (Py2Set, (list(self),))


# -- Python 2's ordering of values of different types ------------------------------------------

_NUMBERS = (int, float, complex, bool)


def _type_rank(value: Any) -> tuple[int, str]:
    """2.7's default order of unlike types: None first, then numbers, then by type name."""
    if value is None:
        return (0, "")
    if isinstance(value, _NUMBERS):
        return (1, "")
    name = type(value).__name__
    return (2, {"str": "str", "bytes": "str", "Py2Dict": "dict", "Py2Set": "set"}.get(name, name))


def py2_cmp(a: Any, b: Any) -> int:
    """``cmp(a, b)`` in Python 2: like values by their own order, unlike ones by type."""
    try:
        if a == b:
            return 0
    except TypeError:
        pass
    if isinstance(a, list | tuple) and type(a) is type(b):
        for x, y in zip(a, b, strict=False):
            found = py2_cmp(x, y)
            if found:
                return found
        return (len(a) > len(b)) - (len(a) < len(b))
    if isinstance(a, dict) and isinstance(b, dict) and len(a) != len(b):
        return -1 if len(a) < len(b) else 1
    try:
        return (a > b) - (a < b)
    except TypeError:
        pass
    rank_a, rank_b = _type_rank(a), _type_rank(b)
    if rank_a != rank_b:
        return -1 if rank_a < rank_b else 1
    return -1 if id(type(a)) < id(type(b)) else 1


py2_key = functools.cmp_to_key(py2_cmp)


def py2_lt(a: Any, b: Any) -> bool:
    try:
        return bool(a < b)
    except TypeError:
        return py2_cmp(a, b) < 0


def py2_le(a: Any, b: Any) -> bool:
    try:
        return bool(a <= b)
    except TypeError:
        return py2_cmp(a, b) <= 0


def py2_gt(a: Any, b: Any) -> bool:
    try:
        return bool(a > b)
    except TypeError:
        return py2_cmp(a, b) > 0


def py2_ge(a: Any, b: Any) -> bool:
    try:
        return bool(a >= b)
    except TypeError:
        return py2_cmp(a, b) >= 0


_max = builtins.max
_min = builtins.min
_sorted = builtins.sorted


def _with_py2_key(key: Any) -> Any:
    return py2_key if key is None else (lambda item: py2_key(key(item)))


def _retrying(function: Callable[..., Any]) -> Callable[..., Any]:
    """``max``/``min``/``sorted`` that order unlike types as 2.7 did where 3 refuses."""

    @functools.wraps(function)
    def ordered(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not isinstance(args[0], list | tuple | str | dict | set | range):
            args = (list(args[0]),)  # an iterator would be spent by the first try
        try:
            return function(*args, **kwargs)
        except TypeError:
            key = _with_py2_key(kwargs.pop("key", None))
            return function(*args, key=key, **kwargs)

    return ordered


py2_max = _retrying(_max)
py2_min = _retrying(_min)
py2_sorted_plain = _retrying(_sorted)


def dict_method(name: str) -> Callable[..., Any]:
    """``dict.iteritems`` and the like, unbound: ``dict.iteritems(d)``."""
    plain = {"iteritems": "items", "itervalues": "values", "iterkeys": "keys"}.get(name, name)

    def call(mapping: Any, *args: Any) -> Any:
        if isinstance(mapping, Py2Dict):
            return getattr(mapping, name)(*args)
        if name == "has_key":
            return args[0] in mapping
        found = getattr(dict, plain)(mapping, *args)
        return iter(found) if name != plain else found

    return call


def dict_display(count: int, ordered: dict[Any, Any]) -> Py2Dict:
    return Py2Dict.presized(count, ordered)


class Py2Counter(collections.Counter[Any], Py2Dict):
    """``collections.Counter`` with 2.7's order (``most_common`` breaks ties by it)."""

    def __repr__(self) -> str:
        if not self:
            return "Counter()"
        items = ", ".join(f"{k!r}: {v!r}" for k, v in self.most_common())
        return f"Counter({{{items}}})"
