"""Where a cluster is and which credentials reach it: a kubeconfig file or the pod's own.

A kubeconfig may name programs to run for credentials (`users[].user.exec`) or identity
providers to call (`auth-provider`). Running a command or calling a host because a file
says so is how a kubeconfig turns into code execution (Flux CVE-2022-24817), so both are
refused unless the operator passes `allow_exec=True`. Loading never logs or echoes a
token, a password or key material; errors name the file, the context and the field.
"""

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from app.cluster.errors import ConfigError, scrub
from app.cluster.library import (
    SERVICE_CERT_FILENAME,
    SERVICE_TOKEN_FILENAME,
    ConfigException,
    Configuration,
    InClusterConfigLoader,
    KubeConfigLoader,
)

MAX_KUBECONFIG_BYTES = 1024 * 1024
"""A kubeconfig file larger than this (1 MiB) is refused before it is parsed."""
CREDENTIAL_REFRESH_INTERVAL = 30.0
"""Seconds between checks whether exec or auth-provider credentials need renewing."""
ALLOW_EXEC_FLAG = "allow_exec=True (for Sluice's workers: SLUICE_ALLOW_KUBECONFIG_EXEC=true)"
"""How an operator allows exec and auth-provider credentials, as error messages name it."""


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """One cluster's address and credentials, ready for a `Cluster` to connect with."""

    name: str
    """The kubeconfig context name, or `in-cluster`: how messages and logs name the cluster."""
    server: str
    """The API server URL (any user:password part removed)."""
    configuration: Any
    """The kubernetes-asyncio `Configuration` carrying host, TLS material and credentials."""


def _public_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _named(doc: dict[str, Any], section: str, name: str, source: str) -> dict[str, Any]:
    entries = doc.get(section)
    if not isinstance(entries, list):
        raise ConfigError(f"{source}: `{section}` must be a list")
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == name:
            inner = entry.get(section[:-1])
            if not isinstance(inner, dict):
                raise ConfigError(f"{source}: {section}[name={name}] has no `{section[:-1]}` map")
            return inner
    known = ", ".join(
        sorted(str(e.get("name")) for e in entries if isinstance(e, dict) and e.get("name"))
    )
    raise ConfigError(f"{source}: no {section[:-1]} named {name!r} (known: {known or 'none'})")


def _check_credentials(user: dict[str, Any], where: str, allow_exec: bool) -> None:
    """Refuse exec and auth-provider credentials unless the operator allowed them."""
    if allow_exec:
        return
    if "exec" in user:
        command = str((user.get("exec") or {}).get("command") or "?")
        raise ConfigError(
            f"{where}: uses an exec credential plugin (command {os.path.basename(command)!r}); "
            f"Sluice runs no command named in a kubeconfig unless the operator sets "
            f"{ALLOW_EXEC_FLAG}",
        )
    if "auth-provider" in user:
        provider = str((user.get("auth-provider") or {}).get("name") or "?")
        raise ConfigError(
            f"{where}: uses the {provider!r} auth-provider; Sluice calls no identity provider "
            f"named in a kubeconfig unless the operator sets {ALLOW_EXEC_FLAG}; "
            f"or use a token or client certificate instead",
        )


def _refresher(loader: KubeConfigLoader) -> Callable[[Any], Awaitable[None]]:
    """A `refresh_api_key_hook` renewing exec/auth-provider tokens before they expire."""
    last = time.monotonic()

    async def refresh(configuration: Any) -> None:
        nonlocal last
        if time.monotonic() - last < CREDENTIAL_REFRESH_INTERVAL:
            return
        last = time.monotonic()
        await loader.load_and_set(configuration)

    return refresh


async def load_kubeconfig_dict(
    doc: Any,
    context: str | None = None,
    *,
    allow_exec: bool = False,
    base_dir: Path | None = None,
    source: str = "kubeconfig",
) -> ClusterConfig:
    """A ClusterConfig from a parsed kubeconfig; `context` defaults to its current-context.

    Relative certificate and token file paths are resolved against `base_dir`.
    """
    if not isinstance(doc, dict):
        raise ConfigError(f"{source}: not a kubeconfig (expected a YAML map)")
    name = context or doc.get("current-context")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{source}: no current-context set; pass the context to use")
    ctx = _named(doc, "contexts", name, source)
    cluster = _named(doc, "clusters", str(ctx.get("cluster") or ""), source)
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise ConfigError(f"{source}: cluster {ctx.get('cluster')!r} has no `server` URL")
    where = f"{source}, context {name!r}"
    user: dict[str, Any] = {}
    if ctx.get("user"):
        user = _named(doc, "users", str(ctx["user"]), source)
        _check_credentials(user, f"{where}, user {ctx['user']!r}", allow_exec)
    configuration = Configuration()
    loader = KubeConfigLoader(
        config_dict=doc,
        active_context=name,
        config_base_path=str(base_dir) if base_dir else "",
    )
    try:
        await loader.load_and_set(configuration)
    except (ConfigException, OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"{where}: {scrub(str(e))}") from e
    if "exec" in user or "auth-provider" in user:
        configuration.refresh_api_key_hook = _refresher(loader)
    return ClusterConfig(name=name, server=_public_url(server), configuration=configuration)


def _read_kubeconfig(path: str | Path | None) -> tuple[Any, Path]:
    """The parsed kubeconfig file and its path (default: `$KUBECONFIG`, else ~/.kube/config)."""
    if path is None:
        env = os.environ.get("KUBECONFIG", "")
        if os.pathsep in env:
            raise ConfigError(
                f"KUBECONFIG lists several files ({env!r}); Sluice loads one: pass its path"
            )
        path = env or Path.home() / ".kube" / "config"
    file = Path(path).expanduser()
    try:
        size = file.stat().st_size
        if size > MAX_KUBECONFIG_BYTES:
            raise ConfigError(
                f"kubeconfig {file}: {size} bytes is over the {MAX_KUBECONFIG_BYTES}-byte limit"
            )
        return yaml.safe_load(file.read_bytes()), file.resolve()
    except OSError as e:
        raise ConfigError(f"kubeconfig {file}: cannot read it: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise ConfigError(f"kubeconfig {file}: not valid YAML: {scrub(str(e))}") from e


async def load_kubeconfig(
    path: str | Path | None = None, context: str | None = None, *, allow_exec: bool = False
) -> ClusterConfig:
    """A ClusterConfig from a kubeconfig file (default: `$KUBECONFIG`, else ~/.kube/config)."""
    doc, file = await asyncio.to_thread(_read_kubeconfig, path)
    return await load_kubeconfig_dict(
        doc, context, allow_exec=allow_exec, base_dir=file.parent, source=f"kubeconfig {file}"
    )


def load_in_cluster(
    token_file: str = SERVICE_TOKEN_FILENAME,
    ca_file: str = SERVICE_CERT_FILENAME,
    environ: dict[str, str] | None = None,
) -> ClusterConfig:
    """A ClusterConfig for the pod's own service account (token re-read as it rotates)."""
    configuration = Configuration()
    loader = InClusterConfigLoader(
        token_filename=token_file,
        cert_filename=ca_file,
        environ=dict(os.environ) if environ is None else environ,
    )
    try:
        loader.load_and_set(configuration)
    except (ConfigException, OSError) as e:
        raise ConfigError(
            f"in-cluster config: {scrub(str(e))} (is Sluice running in a pod with a "
            f"service account? otherwise pass a kubeconfig)"
        ) from e
    return ClusterConfig(
        name="in-cluster", server=_public_url(str(configuration.host)), configuration=configuration
    )
