"""What this process trusts: ssh host keys and per-server CA bundles, from Argo CD's ConfigMaps.

`argocd-ssh-known-hosts-cm` (`ssh_known_hosts`) becomes the one `known_hosts` file every
ssh that git runs checks host keys against (`StrictHostKeyChecking=yes`; the system's own
files are never consulted). `argocd-tls-certs-cm` holds one PEM bundle per server name;
each becomes a file git is told to trust for that host (`http.<https://host>.sslCAInfo`)
instead of the system's CAs, as Argo CD does, and the same bundle builds the TLS context
of HTTP calls made for that host (the GitHub App token exchange, later Helm and OCI).
Files are replaced atomically, so a git process already running keeps a whole file.
"""

import hashlib
import os
import ssl
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _write_atomic(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(temporary, path)


class RepoTrust:
    """The known_hosts file and the CA bundle files of one process (under `home`)."""

    def __init__(self, home: Path) -> None:
        self._home = home
        self.known_hosts = home / "known_hosts"
        self._tls_dir = home / "tls"
        self._known_hosts_text = ""
        self._bundles: dict[str, str] = {}

    def prepare(self) -> None:
        """Create the directories and files (idempotent; blocking, call in a thread)."""
        self._tls_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        _write_atomic(self.known_hosts, self._known_hosts_text)
        for host, pem in self._bundles.items():
            _write_atomic(self._bundle_path(host), pem)

    def update(self, known_hosts: str, tls_certs: Mapping[str, str]) -> None:
        """Put new host keys and CA bundles in force (blocking, call in a thread; `home`
        must exist)."""
        bundles = {host.lower(): pem for host, pem in tls_certs.items()}
        gone = set(self._bundles) - set(bundles)
        self._tls_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for host, pem in bundles.items():
            _write_atomic(self._bundle_path(host), pem)
        _write_atomic(self.known_hosts, known_hosts)
        # Files first, then the names: `ca_file` never names a bundle not yet written.
        self._known_hosts_text = known_hosts
        self._bundles = bundles
        for host in gone:
            self._bundle_path(host).unlink(missing_ok=True)

    @property
    def known_hosts_text(self) -> str:
        return self._known_hosts_text

    def _bundle_path(self, host: str) -> Path:
        return self._tls_dir / (hashlib.sha256(host.encode()).hexdigest()[:32] + ".pem")

    def ca_file(self, host: str) -> Path | None:
        """The CA bundle file configured for `host`, if any."""
        return self._bundle_path(host) if host.lower() in self._bundles else None

    def ssl_context(self, host: str, *, insecure: bool = False) -> ssl.SSLContext:
        """A client TLS context for `host`: its bundle if configured, else the system's CAs."""
        context = ssl.create_default_context()
        pem = self._bundles.get(host.lower())
        if pem:
            context = ssl.create_default_context(cadata=pem)
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context
