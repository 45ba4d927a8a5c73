"""Python 2.7's standard library where bots' calls mean something else on Python 3.

In Python 2 a ``str`` was bytes: bots hashed and compressed their move history as text
(``hashlib.md5(history)``, ``len(zlib.compress(history))``), decoded base64 into code they
then edited with ``re.sub``, and took ``ord()`` of the bytes that came back (here a str in
gives a str out). ``random.seed("text")`` seeded from the text's 2.7 hash,
``random.WichmannHill`` existed, and ``itertools.imap`` & co. could be passed around as
values. ``scipy.misc.comb`` and its kind were still there (now in ``scipy.special``).
``install()`` makes all of that work as it did, in the bot's process only
(``ord`` is among the bot's own builtins, py2compat.bot_builtins).
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import itertools
import random
import sys
from collections.abc import Callable
from typing import Any

from py2order import MASK, py2_hash


def as_bytes(data: Any) -> Any:
    """A Python 2 str (text here) as the bytes it was; anything else unchanged."""
    if isinstance(data, str):
        try:
            return data.encode("latin-1")
        except UnicodeEncodeError:
            return data.encode("utf-8")
    return data


class _Hash:
    """A hashlib object that takes text as 2.7's took a str."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def update(self, data: Any) -> None:
        self._inner.update(as_bytes(data))

    def copy(self) -> _Hash:
        return _Hash(self._inner.copy())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _hash_constructor(make: Callable[..., Any]) -> Callable[..., Any]:
    def construct(*args: Any, **kwargs: Any) -> _Hash:
        return _Hash(make(*[as_bytes(a) for a in args], **kwargs))

    return construct


def _bytes_first(function: Callable[..., Any]) -> Callable[..., Any]:
    """A function of bytes that takes a 2.7 str too, and then gives a str back (a 2.7 str
    of those bytes), so that the text functions the bot applies next still work."""

    def call(data: Any, *args: Any, **kwargs: Any) -> Any:
        result = function(as_bytes(data), *args, **kwargs)
        if isinstance(data, str) and isinstance(result, bytes):
            return result.decode("latin-1")
        return result

    call.__name__ = getattr(function, "__name__", "call")
    return call


_ord = builtins.ord


def py2_ord(value: Any) -> int:
    """``ord`` of one byte: 2.7's str indexing gave a character, Python 3's bytes an int."""
    if isinstance(value, int):
        return value
    return _ord(value)


_seed = random.Random.seed


def py2_seed(self: random.Random, a: Any = None, version: int = 2) -> None:
    """2.7 seeded from ``abs(n)`` for integers and from the hash of anything else."""
    if a is not None and not isinstance(a, int):
        a = py2_hash(a) & MASK
    _seed(self, a)
    self.gauss_next = None  # type: ignore[attr-defined]


class WichmannHill(random.Random):
    """2.7's ``random.WichmannHill``: three small linear congruential generators (Wichmann
    and Hill, Applied Statistics AS 183), seeded as 2.7 seeded them."""

    VERSION = 1

    def seed(self, a: Any = None, version: int = 2) -> None:
        if a is None:
            import time

            a = int(time.time() * 256)
        if not isinstance(a, int):
            a = py2_hash(a)
        a, x = divmod(a, 30268)
        a, y = divmod(a, 30306)
        a, z = divmod(a, 30322)
        self._state = (int(x) + 1, int(y) + 1, int(z) + 1)
        self.gauss_next = None

    def random(self) -> float:
        x, y, z = self._state
        x = (171 * x) % 30269
        y = (172 * y) % 30307
        z = (170 * z) % 30323
        self._state = (x, y, z)
        return (x / 30269.0 + y / 30307.0 + z / 30323.0) % 1.0

    def getstate(self) -> Any:
        return (self.VERSION, self._state, self.gauss_next)

    def setstate(self, state: Any) -> None:
        _, self._state, self.gauss_next = state

    def jumpahead(self, n: int) -> None:
        x, y, z = self._state
        self._state = (
            int(x * pow(171, n, 30269)) % 30269,
            int(y * pow(172, n, 30307)) % 30307,
            int(z * pow(170, n, 30323)) % 30323,
        )


# Functions that moved since the 2014 contest, put back where its entries import them from.
MOVED = {"scipy.misc": ("scipy.special", ("comb", "factorial", "factorial2", "factorialk"))}


class _PutBack(importlib.abc.MetaPathFinder):
    """When a module of ``MOVED`` is imported, give it back its moved functions."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in MOVED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module
        home, names = MOVED[name]

        def exec_module(module: Any) -> None:
            run(module)
            source = importlib.import_module(home)
            for moved in names:
                if not hasattr(module, moved) and hasattr(source, moved):
                    setattr(module, moved, getattr(source, moved))

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


ITERTOOLS = {
    "imap": map,
    "ifilter": filter,
    "izip": zip,
    "ifilterfalse": itertools.filterfalse,
    "izip_longest": itertools.zip_longest,
}


def install() -> None:
    for name in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "new"):
        setattr(hashlib, name, _hash_constructor(getattr(hashlib, name)))
    import base64
    import bz2
    import zlib

    codecs = [n for n in dir(base64) if n.endswith(("encode", "decode")) and n[0] in "abeus"]
    for module, names in (
        (zlib, ("compress", "crc32", "adler32", "decompress")),
        (bz2, ("compress", "decompress")),
        (base64, (*codecs, "decodebytes", "encodebytes")),
    ):
        for name in names:
            setattr(module, name, _bytes_first(getattr(module, name)))
    base64.decodestring = base64.decodebytes  # type: ignore[attr-defined]  # 2.7's names
    base64.encodestring = base64.encodebytes  # type: ignore[attr-defined]
    random.Random.seed = py2_seed  # type: ignore[method-assign]
    random.seed = random._inst.seed  # type: ignore[attr-defined]
    random.WichmannHill = WichmannHill  # type: ignore[attr-defined]
    for name, value in ITERTOOLS.items():
        setattr(itertools, name, value)
    sys.meta_path.insert(0, _PutBack())
