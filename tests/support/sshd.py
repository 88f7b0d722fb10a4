"""A real OpenSSH server for Git over ssh: Debian's `/usr/sbin/sshd`, started by the test.

It runs as a throwaway server on a random loopback port with its own config, host key and
authorized key in a temp dir (`sshd -D -f CONFIG -e`), no password or keyboard logins, and
serves the bare repositories under `root` to the current user (`ssh://USER@127.0.0.1:PORT
/<root>/<repo>.git`). `known_hosts_line` is what `argocd-ssh-known-hosts-cm` would hold.
"""

import getpass
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from app.embedded.process import free_port
from tests.support.keys import HOST, SshKeyPair, ssh_key_pair

SSHD = "/usr/sbin/sshd"


def available() -> bool:
    return os.path.exists(SSHD) and shutil.which("ssh") is not None


@dataclass
class SshServer:
    directory: Path
    root: Path
    client: SshKeyPair
    host_public: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def user(self) -> str:
        return getpass.getuser()

    def url(self, repo: str) -> str:
        return f"ssh://{self.user}@{HOST}:{self.port}{self.root}/{repo}"

    @property
    def known_hosts_line(self) -> str:
        return f"[{HOST}]:{self.port} {self.host_public}\n"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_sshd(directory: Path, root: Path) -> SshServer:
    """Start sshd and wait until it accepts connections (RuntimeError if it does not)."""
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    host, client = ssh_key_pair(), ssh_key_pair()
    host_key = directory / "host_ed25519"
    host_key.write_text(host.private_openssh)
    os.chmod(host_key, 0o600)
    authorized = directory / "authorized_keys"
    authorized.write_text(client.public_line + "\n")
    os.chmod(authorized, 0o600)
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    port = free_port(HOST)
    config = directory / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                f"ListenAddress {HOST}",
                f"HostKey {host_key}",
                f"PidFile {directory / 'sshd.pid'}",
                f"AuthorizedKeysFile {authorized}",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                "UsePAM no",
                "StrictModes no",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                "PrintMotd no",
                "LogLevel ERROR",
                "",
            ]
        )
    )
    process = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(directory / "sshd.log", "wb"),  # noqa: SIM115
    )
    server = SshServer(directory, root, client, host.public_line, port, process)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited: {(directory / 'sshd.log').read_text()[-2000:]}")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError("sshd did not accept connections within 20 s")
