"""Keys and certificates the tests generate with `cryptography`: a CA, server and client
certificates for 127.0.0.1, ssh key pairs in OpenSSH form, RSA keys for GitHub Apps.
Every private key is registered with the log scan (`tests.support.logscan`)."""

import datetime
import ipaddress
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.support.logscan import key_lines

HOST = "127.0.0.1"


def _pem_key(key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> str:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return key_lines(pem, "a private key")


@dataclass(frozen=True)
class Issued:
    cert_pem: str
    key_pem: str


class CertificateAuthority:
    """A throwaway CA that signs server and client certificates."""

    def __init__(self, name: str = "Sluice test CA") -> None:
        self._key = ec_key()
        self._name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.UTC)
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(self._name)
            .issuer_name(self._name)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self._key, hashes.SHA256())
        )
        self.cert_pem = self._cert.public_bytes(serialization.Encoding.PEM).decode()

    def issue(self, common_name: str, *, server: bool) -> Issued:
        key = ec_key()
        now = datetime.datetime.now(datetime.UTC)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(self._name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address(HOST)), x509.DNSName("localhost")]
                ),
                critical=False,
            )
        cert = builder.sign(self._key, hashes.SHA256())
        return Issued(cert.public_bytes(serialization.Encoding.PEM).decode(), _pem_key(key))


def ec_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass(frozen=True)
class SshKeyPair:
    private_openssh: str
    public_line: str
    """`ssh-ed25519 AAAA…` as authorized_keys and known_hosts want it."""


def ssh_key_pair() -> SshKeyPair:
    key = ed25519.Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    return SshKeyPair(key_lines(private, "an ssh private key"), public)


def rsa_pem() -> tuple[str, str]:
    """An RSA private key (PEM, as GitHub hands out App keys) and its public key (PEM)."""
    key = ec_key()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return _pem_key(key), public.decode()
