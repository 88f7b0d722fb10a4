"""The CLI's side of the REST API: connection flags, requests, the event stream, exit codes.

`--server` (or `SLUICE_SERVER`, else the current context of `sluice login`, else
`http://127.0.0.1:8080`) and `--token` (or `SLUICE_TOKEN`, else the context's token, else
the token `sluice up` keeps in `<state dir>/api-token`) say where and as whom. A stored
token only ever goes to the server it was stored for (`config.py`). Every failure
becomes a `CliError` carrying the server's own message (a `Status`
says what to do) and an exit code scripts can use:

    0  done (or: condition met, no differences)
    1  done, but the answer is "no": differences found, app Degraded, operation failed
    2  error: bad usage, refused request, server unreachable
    3  timed out waiting
"""

import argparse
import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import aiohttp

from app.cli import config

OK = 0
NO = 1
ERROR = 2
TIMEOUT = 3

DEFAULT_SERVER = "http://127.0.0.1:8080"
REQUEST_TIMEOUT = 30.0
"""Seconds one API request may take."""


def app_path(args: argparse.Namespace, suffix: str = "") -> str:
    return f"/api/v1/applications/{quote(args.name, safe='')}{suffix}"


def app_query(args: argparse.Namespace) -> dict[str, str]:
    return {"appNamespace": args.app_namespace} if args.app_namespace else {}


class CliError(Exception):
    """A failure to report on stderr, with the exit code to leave with."""

    def __init__(self, message: str, code: int = ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def add_connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", default=None, help=f"API URL (SLUICE_SERVER; default {DEFAULT_SERVER})"
    )
    parser.add_argument("--token", default=None, help="bearer token (SLUICE_TOKEN)")


def _local_token() -> str:
    local = Path(os.environ.get("SLUICE_STATE_DIR", ".sluice")) / "api-token"
    try:
        return local.read_text().strip()
    except OSError:
        return ""


def _loopback(server: str) -> bool:
    """Whether `server` is on this machine (where `sluice up` keeps its token)."""
    host = urlsplit(server).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def target(args: argparse.Namespace) -> tuple[str, str]:
    """The server and token a command uses (see the module's docstring for the order)."""
    try:
        context = config.load().current_context
    except config.ConfigError as e:
        raise CliError(str(e)) from None
    server = (
        getattr(args, "server", None)
        or os.environ.get("SLUICE_SERVER")
        or (context.server if context else "")
        or DEFAULT_SERVER
    ).rstrip("/")
    token = getattr(args, "token", None) or os.environ.get("SLUICE_TOKEN", "")
    if not token and context is not None and context.server.rstrip("/") == server:
        token = context.token
    if not token and _loopback(server):
        token = _local_token()
    return server, str(token)


@dataclass(frozen=True)
class Event:
    """One Server-Sent Event: its stream sequence, type and CloudEvent."""

    seq: int
    type: str
    cloudevent: dict[str, Any]

    @property
    def app(self) -> str:
        return str(self.cloudevent.get("subject", ""))

    @property
    def data(self) -> dict[str, Any]:
        data = self.cloudevent.get("data")
        return data if isinstance(data, dict) else {}


READY = Event(0, "ready", {})
"""Yielded once the server has subscribed: what happens from then on will be streamed."""


class Api:
    """An open session with the API (use `async with Api.from_args(args) as api`)."""

    def __init__(self, server: str, token: str) -> None:
        self.server = server.rstrip("/")
        self._token = token
        self._session: aiohttp.ClientSession | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "Api":
        return cls(*target(args))

    async def __aenter__(self) -> "Api":
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        self._session = aiohttp.ClientSession(headers=headers)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    @property
    def session(self) -> aiohttp.ClientSession:
        assert self._session is not None, "use `async with Api(...)`"
        return self._session

    def _unreachable(self, e: Exception) -> CliError:
        return CliError(
            f"cannot reach the Sluice API at {self.server} ({type(e).__name__}: {e}); "
            "start it (`sluice up`) or point --server / SLUICE_SERVER at it"
        )

    async def call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | list[tuple[str, str]] | None = None,
        body: Any = None,
    ) -> Any:
        """The JSON answer, or CliError with the server's message."""
        send_body = body if body is not None else ({} if method in ("POST", "PUT") else None)
        try:
            async with self.session.request(
                method,
                self.server + path,
                params=query,
                json=send_body,
                timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
            ) as response:
                text = await response.text()
                if response.status >= 400:
                    raise CliError(_failure(response.status, text))
                return json.loads(text) if text else None
        except (aiohttp.ClientError, TimeoutError) as e:
            raise self._unreachable(e) from None

    async def events(
        self, *, app: str = "", namespace: str = "", after: int | None = None
    ) -> AsyncIterator[Event]:
        """Follow `/api/v1/stream` (one app's events, or all): READY first, then events."""
        query: dict[str, str] = {"app": app} if app else {}
        if namespace:
            query["appNamespace"] = namespace
        if after is not None:
            query["after"] = str(after)
        try:
            async with self.session.get(
                self.server + "/api/v1/stream",
                params=query,
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=REQUEST_TIMEOUT),
            ) as response:
                if response.status >= 400:
                    raise CliError(_failure(response.status, await response.text()))
                async for event in _parse(response.content):
                    yield event
        except (aiohttp.ClientError, asyncio.IncompleteReadError) as e:
            raise self._unreachable(e) from None


async def _parse(content: aiohttp.StreamReader) -> AsyncIterator[Event]:
    fields: dict[str, str] = {}
    async for raw in content:
        line = raw.decode(errors="replace").rstrip("\r\n")
        if line.startswith(":"):
            if line[1:].strip() == "ready":
                yield READY
            continue
        if line:
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
            continue
        if "data" in fields:
            try:
                doc = json.loads(fields["data"])
            except ValueError:
                doc = {}
            seq = int(fields["id"]) if fields.get("id", "").isdigit() else 0
            yield Event(seq, fields.get("event", "message"), doc if isinstance(doc, dict) else {})
        fields = {}


def _failure(status: int, text: str) -> str:
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("message"), str):
        return f"{doc['message']} (HTTP {status})"
    return f"the API answered HTTP {status}: {text[:300]}"
