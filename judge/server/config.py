from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judge.analysis import SourceLimits
from judge.bots import BotPython
from judge.server.uploads import UploadLimits

if TYPE_CHECKING:
    from judge.executors.cluster import ClusterTLS


@dataclass(frozen=True)
class Quotas:
    """Per-user limits; over one, a request is refused with 429 and says which. The admin is
    exempt from all but the request rate."""

    bots_per_user: int = 50
    versions_per_bot: int = 100
    uploads_per_hour: int = 60
    # Every stored version's files as unpacked (and built), not the upload's size.
    stored_bytes: int = 512 << 20
    # Requested matches (single and tournament) queued or running at once.
    queued_matches: int = 500
    # Accounts made per client address an hour with open registration (the admin's are
    # not counted): one person, a few accounts, not one per quota.
    registrations_per_hour: int = 3
    # Turns the matches a user requests in 24 hours may ask for (what the options ask:
    # rps turns, counting rounds x runs x pairings...); tournaments count every match.
    turns_per_day: int = 10_000_000
    # Per account (or per client address without a valid token); a burst of this many is
    # allowed. The admin is held to it too.
    requests_per_minute: int = 1200


@dataclass
class ServerConfig:
    data: Path
    host: str = "127.0.0.1"
    port: int = 8000
    # Matches running at once; bots of a match each need a core to meet deadlines fairly.
    concurrency: int = field(default_factory=lambda: max(1, os.cpu_count() or 1))
    # Where matches run (judge.executors): inproc, local, dask://HOST:PORT or dask-local.
    executor: str = "inproc"
    # How this server proves itself to a remote cluster, or that it may use one over plain TCP.
    cluster_tls: ClusterTLS | None = None
    insecure_cluster: bool = False
    ladder: bool = True
    # Every game's built-in bots join the ladders (owned by the user ``builtin``).
    builtin_bots: bool = True
    ladder_interval: float = 2.0
    # Ladder matches kept queued or running per game.
    ladder_backlog: int = 2
    build_timeout: float = 120.0
    # Builds run in their own pool, never in match slots.
    build_concurrency: int = 1
    # A match the judge could not run (sandbox, disk) is retried after 2, 4, ... seconds.
    retry_backoff: float = 2.0
    quotas: Quotas = field(default_factory=Quotas)
    turn_deadline: float = 1.0
    startup_allowance: float = 5.0
    max_attempts: int = 3
    # A running match's claim is renewed every lease/10 s; on a database shared by several
    # servers, a match whose server stopped renewing for a lease is run again elsewhere.
    lease: float = 30.0
    limits: UploadLimits = field(default_factory=UploadLimits)
    # What analysing one .py bot file may cost (its size, CPU, memory), once per content.
    source: SourceLimits = field(default_factory=SourceLimits)
    # Largest request body other than an upload.
    json_body_bytes: int = 1 << 20
    # Accounts can be created by anyone (a class); otherwise only the admin creates them.
    open_registration: bool = False
    # Reverse proxies (CIDRs) believed about the client address they forward
    # (X-Forwarded-For); without, the peer's address is the client's.
    trusted_proxies: tuple[str, ...] = ()

    # The interpreter of uploaded Python bots (--bot-python); None: the judge's own.
    bot_python: BotPython | None = None

    # The database by URL; None: sqlite in the data directory (judge.sqlite3).
    db: str | None = None

    @property
    def db_path(self) -> Path:
        return self.data / "judge.sqlite3"

    @property
    def db_url(self) -> str:
        return self.db if self.db else f"sqlite:///{self.db_path.resolve()}"

    @property
    def bots_dir(self) -> Path:
        return self.data / "bots"

    @property
    def replays_dir(self) -> Path:
        return self.data / "replays"

    @property
    def work_dir(self) -> Path:
        return self.data / "work"

    @property
    def uploads_dir(self) -> Path:
        return self.data / "uploads"

    def version_dir(self, bot_id: int, version: int) -> Path:
        return self.bots_dir / str(bot_id) / str(version)

    def replay_path(self, match_id: str) -> Path:
        return self.replays_dir / f"{match_id}.replay"
