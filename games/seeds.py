"""Where a match's randomness comes from: one secret, and keyed derivations of it.

A match has a secret of 32 bytes. Each seat's seed (``JUDGE_SEED``) and the game's own
generator are derived from it with HMAC-SHA256 under labels of their own (``seat/0``,
``game``), so a bot that knows its seed learns nothing of the secret, of another seat's seed or
of the game's draws. The game's generator is a ``random.Random`` drawing from a keyed BLAKE2b
stream, so the draws a bot sees (its own dice) do not give away the ones it does not.

The secret comes from ``secrets`` (no seed given), from a seed alone (``secret_from_seed``:
reproducible, and just as guessable as the seed), or from a seed and a server's own key
(``keyed_secret``). A replay holds ``commitment(secret)`` in its header and the secret
itself in its result, once the match is over (docs/replays.md).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

SECRET_BYTES = 32
SEED_BITS = 128  # a seed drawn when none is given: as hard to guess as the secret's bits
# Seeds from one seat's JUDGE_SEED: 63 bits, a positive int64 for any language.
SEAT_SEED_BITS = 63
_STREAM_BLOCK = 64  # bytes of one BLAKE2b output


def random_seed() -> int:
    import secrets  # (only a command drawing a seed needs it: ~1 ms of imports)

    return secrets.randbits(SEED_BITS)


def secret_from_seed(seed: int) -> bytes:
    """The secret of a match given only its seed: anyone who knows (or guesses) the seed
    derives it too, so a small or published seed is no secret."""
    return hashlib.sha256(f"botjudge match seed {seed}".encode()).digest()


def keyed_secret(key: bytes, seed: int) -> bytes:
    """The secret of a match with this seed under a key nobody else has (a server's)."""
    return hmac.digest(key, f"botjudge match seed {seed}".encode(), "sha256")


def derive(secret: bytes, label: str) -> bytes:
    return hmac.digest(secret, f"botjudge/{label}".encode(), "sha256")


def seat_seed(secret: bytes, seat: int) -> int:
    """The seed seat ``seat`` gets as JUDGE_SEED."""
    return int.from_bytes(derive(secret, f"seat/{seat}")[:8], "big") >> (64 - SEAT_SEED_BITS)


def game_rng(secret: bytes) -> random.Random:
    """The generator the game's rules draw from (shuffles, dice, coin tosses)."""
    return StreamRandom(derive(secret, "game"))


def commitment(secret: bytes) -> str:
    """What a replay's header shows of the secret before the match is over."""
    return hashlib.sha256(b"botjudge commitment " + secret).hexdigest()


class StreamRandom(random.Random):
    """``random.Random``'s methods over a BLAKE2b stream keyed with ``key`` (counter mode).

    Unlike the Mersenne Twister, whose state follows from 624 of its outputs, no number of
    draws tells anything of the draws still to come. ``randint``, ``shuffle``, ``choice``...
    all draw through ``getrandbits`` and ``random``, so the stream alone decides them.
    """

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._block = 0  # blocks of the stream used so far
        self._pool = 0  # bits drawn from the stream and not used yet, lowest first
        self._pooled = 0  # how many
        super().__init__()

    def seed(self, a: Any = None, version: int = 2) -> None:
        """The stream is fixed by its key: seeding starts it over (``Random.__init__`` calls
        this; nothing else should)."""
        self._block = self._pool = self._pooled = 0
        self.gauss_next = None

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        while self._pooled < k:
            block = hashlib.blake2b(
                self._block.to_bytes(8, "little"), key=self._key, digest_size=_STREAM_BLOCK
            ).digest()
            self._block += 1
            self._pool |= int.from_bytes(block, "little") << self._pooled
            self._pooled += 8 * _STREAM_BLOCK
        value = self._pool & ((1 << k) - 1)
        self._pool >>= k
        self._pooled -= k
        return value

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def getstate(self) -> tuple[Any, ...]:
        return (self._key, self._block, self._pool, self._pooled, self.gauss_next)

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._key, self._block, self._pool, self._pooled, self.gauss_next = state
