"""Who may talk to a Dask cluster of the judge's.

Whoever reaches a Dask scheduler can submit any Python function, which its workers run as
their user (root in a container). So the judge speaks to a cluster over TLS with mutual
authentication only: every peer (scheduler, worker, client) shows a certificate signed by the
cluster's CA, and nothing else is let in. ``dask-local`` makes a throwaway CA and certificates
in memory for its run (``Security.temporary()``); a remote cluster is ``tls://HOST:PORT`` with
the CA and a certificate and key from files. A plain ``tcp://`` cluster is refused unless the
operator says ``--insecure-cluster`` (a private network where every host is trusted).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

INSECURE_FLAG = "--insecure-cluster"
TLS_FLAGS = "--tls-ca, --tls-cert and --tls-key"


@dataclass(frozen=True)
class ClusterTLS:
    """The files a member of the cluster proves itself with: the cluster's CA certificate and
    this member's certificate and private key (PEM). One certificate may serve every role."""

    ca: Path
    cert: Path
    key: Path

    @classmethod
    def from_options(
        cls, ca: Path | None, cert: Path | None, key: Path | None
    ) -> ClusterTLS | None:
        """None when no file is given; ValueError when only some are."""
        given = [value for value in (ca, cert, key) if value is not None]
        if not given:
            return None
        if len(given) != 3:
            raise ValueError(f"TLS for the cluster needs all three of {TLS_FLAGS}")
        assert ca is not None and cert is not None and key is not None
        for path in (ca, cert, key):
            if not path.is_file():
                raise ValueError(f"TLS file {path} does not exist")
        return cls(ca.resolve(), cert.resolve(), key.resolve())

    def security(self) -> Any:
        """A ``distributed.Security`` that requires TLS and this CA of every peer."""
        from distributed import Security

        ca, cert, key = str(self.ca), str(self.cert), str(self.key)
        return Security(  # type: ignore[no-untyped-call]
            tls_ca_file=ca,
            tls_client_cert=cert,
            tls_client_key=key,
            tls_scheduler_cert=cert,
            tls_scheduler_key=key,
            tls_worker_cert=cert,
            tls_worker_key=key,
            require_encryption=True,
        )


def scheduler_address(name: str, tls: ClusterTLS | None, insecure: bool) -> str:
    """The Dask address an executor name (``dask://``, ``tls://`` or ``tcp://`` HOST:PORT)
    stands for, or ValueError when the judge would talk to it without authentication.

    ``dask://`` is TLS when credentials are given, plain TCP otherwise.
    """
    scheme, _, rest = name.partition("://")
    if scheme == "dask":
        scheme = "tls" if tls is not None else "tcp"
    address = f"{scheme}://{rest}"
    if scheme == "tls" and tls is None:
        raise ValueError(
            f"{name}: a TLS cluster needs the CA and a client certificate: {TLS_FLAGS}"
        )
    if scheme == "tcp" and not insecure:
        raise ValueError(
            f"{name}: refusing an unauthenticated Dask cluster (anyone who reaches the scheduler "
            f"runs code on its workers); use tls://HOST:PORT with {TLS_FLAGS}, "
            f"or pass {INSECURE_FLAG} if every host on that network is trusted"
        )
    return address
