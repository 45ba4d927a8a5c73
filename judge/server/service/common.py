"""What every part of the service shares: errors (with their HTTP status), names, options,
and the context (configuration, storage, blob store, sandbox, live hub)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from games import UnknownGame, get_game, get_plugin, seeds
from judge.bots import builtin_bots
from judge.executors import Executor
from judge.sandbox import Sandbox
from judge.server.blobs import BlobStore
from judge.server.config import ServerConfig
from judge.server.health import Faults
from judge.server.live import Hub
from judge.server.metrics import Metrics
from judge.server.records import Match, User
from judge.server.storage import Storage

PRIORITY = {"smoke": 30, "manual": 20, "tournament": 10, "final": 10, "ladder": 0, "contest": 0}
FINAL = ("finished", "error", "cancelled")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    status = 400


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Taken(ServiceError):
    status = 409


class QuotaExceeded(ServiceError):
    status = 429


def new_token() -> str:
    return "jt_" + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a fast hash cannot be brute-forced; no salt needed.
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str, what: str) -> str:
    # fullmatch: re.match with '$' accepts a trailing newline ("alice\n").
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise BadRequest(
            f"{what} {name!r} is not allowed: 1-40 letters, digits, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return name


def game_or_error(game: str) -> str:
    try:
        return get_game(game).name
    except UnknownGame as exc:
        raise BadRequest(str(exc)) from None


def validate_options(game: str, options: Any) -> dict[str, Any]:
    """The game's options from a request's data: pure and bounded (games/base.py), never a
    file; BadRequest with the reason."""
    try:
        return get_game(game).Options.from_data(options).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in exc.errors()
        )
        raise BadRequest(f"bad options for {game}: {problems}") from None
    except ValueError as exc:
        raise BadRequest(f"bad options for {game}: {exc}") from None


def smoke_options(game: str) -> dict[str, Any]:
    """Options that make a smoke match quick: the game says which."""
    return validate_options(game, dict(get_plugin(game).smoke_options))


def smoke_opponent(game: str) -> str:
    return next(iter(builtin_bots(game)))


def result_for(match: Match, viewer: User | None, owners: dict[int, int]) -> dict[str, Any] | None:
    """A match result with each bot's stderr shown only to that bot's owner (and the admin)."""
    if match.result is None:
        return None
    result: dict[str, Any] = json.loads(json.dumps(match.result))
    for player, seat in zip(result.get("players", []), match.seats, strict=False):
        owner = owners.get(seat.bot_id) if seat.bot_id is not None else None
        visible = viewer is not None and (
            viewer.is_admin or (owner is not None and owner == viewer.id)
        )
        if not visible:
            player.pop("stderr", None)
    return result


@dataclass
class Context:
    config: ServerConfig
    storage: Storage
    blobs: BlobStore
    sandbox: Sandbox
    # Where matches run; opened by Service.run (judge.executors).
    executor: Executor
    hub: Hub = field(default_factory=Hub)
    # Writes the database or the disk refused lately (for /api/health).
    faults: Faults = field(default_factory=Faults)
    metrics: Metrics = field(default_factory=Metrics)
    rng: random.Random = field(default_factory=random.Random)
    # Mixed into every match's seed (judge/server/seedkey.py); loaded by Service.open.
    seed_key: bytes = field(default=b"", repr=False)
    # This server process, among those that may share one database.
    instance: str = field(
        default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
    )

    def __post_init__(self) -> None:
        work = re.escape(str(self.work_root))
        self._box_path = re.compile(work + r"/[^/\s'\"]+/\d+")
        self._data_path = re.compile(re.escape(str(self.config.data)))

    @property
    def work_root(self) -> Path:
        """This process's scratch directory (matches' and builds' private copies)."""
        return self.config.work_dir / self.instance

    def match_secret(self, seed: int) -> str:
        """The secret of a match with this seed here: unknown to anyone without the key."""
        if not self.seed_key:
            raise RuntimeError("the seed key is not loaded (Service.open)")
        return seeds.keyed_secret(self.seed_key, seed).hex()

    def scrub(self, value: Any) -> Any:
        """``value`` with the server's file paths taken out of every string (for public JSON)."""
        if isinstance(value, str):
            return self._data_path.sub("<data>", self._box_path.sub("<box>", value))
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        return value
