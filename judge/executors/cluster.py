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

import os
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


CA_FILE, CERT_FILE, KEY_FILE, CA_KEY_FILE = "ca.pem", "cluster.pem", "cluster.key", "ca.key"


def make_certificates(directory: Path, days: int = 825) -> ClusterTLS:
    """A new CA and one certificate it signed, for every member of one cluster (scheduler,
    workers, the judge's client), written into ``directory`` (keys readable by the owner
    only). The CA's key is kept beside them to sign more; hostnames are not checked (Dask
    authenticates peers by the CA alone), so the certificate names no host."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    until = now + datetime.timedelta(days=days)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("botjudge cluster CA"))
        .issuer_name(name("botjudge cluster CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("botjudge cluster member"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, True, False, False, False, False),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)

    def write(file: str, data: bytes, mode: int) -> Path:
        path = directory / file
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(path, mode)
        return path

    def private(k: ec.EllipticCurvePrivateKey) -> bytes:
        return k.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    pem = serialization.Encoding.PEM
    write(CA_KEY_FILE, private(ca_key), 0o600)
    return ClusterTLS(
        ca=write(CA_FILE, ca.public_bytes(pem), 0o644),
        cert=write(CERT_FILE, cert.public_bytes(pem), 0o644),
        key=write(KEY_FILE, private(key), 0o600),
    )
