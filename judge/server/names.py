"""One person, one name: account names compare as people read them.

Two names are the same account name when they have the same key: Unicode-normalised (NFKC,
so a full-width or ligature spelling is its plain letters), case-folded, and without the
separators ``.``, ``_``, ``-`` (``alice``, ``Alice``, ``a.lice`` and ``alice-`` are one name).
The database holds the key under a unique index, so no spelling gets a second account."""

from __future__ import annotations

import re
import unicodedata

SEPARATORS = re.compile(r"[._\-\s]+")
# Accounts the server makes itself (the admin, the owner of the built-in bots), and names
# people would take for the server's own.
RESERVED = frozenset({"admin", "administrator", "builtin", "root", "system", "judge"})


def name_key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return SEPARATORS.sub("", unicodedata.normalize("NFKC", folded))


def is_reserved(name: str) -> bool:
    return name_key(name) in RESERVED
