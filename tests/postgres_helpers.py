"""A throwaway PostgreSQL server for tests: initdb and pg_ctl in a temporary directory.

Debian's `postgresql` package puts the server programs in /usr/lib/postgresql/<n>/bin (CI
installs it). Without them, tests that need a server are skipped with the reason. initdb
refuses to run as root, so as root the cluster belongs to the `postgres` user.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def find_bin() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").exists() and Path(candidate, "pg_ctl").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def missing_reason() -> str | None:
    if find_bin() is None:
        return "PostgreSQL server programs (initdb, pg_ctl) not installed (Debian: postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser to start PostgreSQL as another user"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed"
    return None


@dataclass
class PostgresServer:
    port: int
    user: str
    # How to stop and start it again (fault tests restart it under running servers).
    pg_ctl: list[str] | None = None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        assert self.pg_ctl is not None
        subprocess.run([*self.pg_ctl, "-m", "fast", "-w", "stop"], check=True, capture_output=True)

    def start(self) -> None:
        assert self.pg_ctl is not None
        subprocess.run([*self.pg_ctl, "-w", "start"], check=True, capture_output=True, timeout=60)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def postgres_server(*, durable: bool = False) -> Iterator[PostgresServer]:
    """A server in a temporary directory. Tests run it with fsync off (they need no
    durability); ``durable`` keeps PostgreSQL's defaults, for measuring writes."""
    bin_dir = find_bin()
    assert bin_dir is not None
    root = Path(tempfile.mkdtemp(prefix="judge-pg-"))
    data = root / "data"
    prefix: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    user = "judge"

    def run(*argv: str) -> None:
        subprocess.run([*prefix, *argv], check=True, capture_output=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", user, "-E", "UTF8")
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
        if not durable:
            options += " -c fsync=off"
        run(
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(root / "log"),
            "-w",
            "start",
        )
        pg_ctl = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options]
        pg_ctl += ["-l", str(root / "log")]
        try:
            yield PostgresServer(port, user, pg_ctl)
        finally:
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
