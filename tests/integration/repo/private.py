"""Helpers for the private-repository tests: Secrets as Argo CD users write them, a store
built from them, and a sampler of every process's argv and environment while git runs."""

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

import psutil

from app.model.repository_secret import parse_repository_secret
from app.repo.credentials import CredentialStore, RepoCredential


def secret(name: str, kind: str = "repository", **fields: str) -> dict[str, Any]:
    """A Secret object as the API server returns it (data base64)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": "sluice",
            "labels": {"argocd.argoproj.io/secret-type": kind},
        },
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in fields.items()},
    }


def store(*secrets: dict[str, Any]) -> CredentialStore:
    return CredentialStore([RepoCredential.of(parse_repository_secret(s)) for s in secrets])


def _process_texts() -> Iterable[str]:
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            yield "\0".join(proc.cmdline())
            yield "\0".join(f"{k}={v}" for k, v in proc.environ().items())


@contextlib.asynccontextmanager
async def sampled_processes() -> AsyncIterator[list[str]]:
    """Collect the command line and environment of every process this test started (git,
    ssh, `sluice up` and all they run), every 20 ms while the block runs (a thread does the
    reading, so git keeps running meanwhile)."""
    samples: list[str] = []
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            samples.extend(await asyncio.to_thread(lambda: list(_process_texts())))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.02)

    task = asyncio.create_task(sample())
    try:
        yield samples
    finally:
        stop.set()
        await task
