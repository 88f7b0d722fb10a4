"""Every Runtime follows Argo CD's repository Secrets and trust ConfigMaps: a Secret is in
force for the next git command, an edit replaces it, a bad edit is refused naming the
field (and the repository reports it), a deletion drops it; the known-hosts and TLS
ConfigMaps become the files git checks against."""

from app.repo.credentials import CredentialError
from app.repo.urls import parse_repo_url
from app.runtime.runtime import Runtime
from tests.integration.repo.private import secret
from tests.support.keys import CertificateAuthority
from tests.support.waiting import eventually

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sluice"}}
URL = "https://git.example.com/org/app.git"


def configmap(name: str, data: dict[str, str]) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "sluice"},
        "data": data,
    }


async def test_a_repository_secret_is_followed(runtime: Runtime) -> None:
    rt = runtime
    repo = parse_repo_url(URL)
    await rt.control_plane.apply(NAMESPACE)

    async def password() -> str:
        try:
            found = rt.repos.access.store.for_url(repo)
        except CredentialError as e:
            return str(e)
        return found.creds.password if found is not None else ""

    async def is_(expected: str) -> bool:
        return await password() == expected

    await rt.control_plane.apply(secret("repo-1", url=URL, password="first-Pw-1111"))
    await eventually(lambda: is_("first-Pw-1111"), timeout=20, what="the Secret in force")
    await rt.control_plane.apply(secret("repo-1", url=URL, password="rotated-Pw-2222"))
    await eventually(lambda: is_("rotated-Pw-2222"), timeout=20, what="the rotated password")

    await rt.control_plane.apply(secret("repo-1", url=URL, insecure="maybe"))

    async def refused() -> bool:
        text = await password()
        return "repository Secret sluice/repo-1 cannot be used: data.insecure" in text

    await eventually(refused, timeout=20, what="the bad edit refused")
    await rt.control_plane.delete("v1", "Secret", "repo-1", "sluice")
    await eventually(lambda: is_(""), timeout=20, what="the deleted Secret dropped")


async def test_trust_configmaps_are_followed(runtime: Runtime) -> None:
    rt = runtime
    trust = rt.repos.access.trust
    await rt.control_plane.apply(NAMESPACE)
    line = "[git.example.com]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample\n"
    ca = CertificateAuthority().cert_pem
    await rt.control_plane.apply(configmap("argocd-ssh-known-hosts-cm", {"ssh_known_hosts": line}))
    await rt.control_plane.apply(
        configmap("argocd-tls-certs-cm", {"git.example.com": ca, "broken.example": "no"})
    )

    async def in_force() -> bool:
        ca_file = trust.ca_file("git.example.com")
        return (
            trust.known_hosts.is_file()
            and trust.known_hosts.read_text() == line
            and ca_file is not None
            and ca_file.read_text() == ca
        )

    await eventually(in_force, timeout=20, what="host keys and CA bundle in force")
    assert trust.ca_file("broken.example") is None
    await rt.control_plane.delete("v1", "ConfigMap", "argocd-ssh-known-hosts-cm", "sluice")

    async def forgotten() -> bool:
        return trust.known_hosts_text == ""

    await eventually(forgotten, timeout=20, what="the deleted ConfigMap dropped")
