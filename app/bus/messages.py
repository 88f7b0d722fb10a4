"""Work messages: typed payloads, their JSON wire form, and the channel each travels on.

On the wire a message is a JSON object with a version field `v`, the app as
`namespace/name`, refresh levels by name (`"latest"`), and the payload's other fields
under their own names:

    {"v": 1, "app": "sluice/guestbook", "level": "latest", "reason": "webhook push"}

A decoder accepts version `VERSION` and ignores fields it does not know (a newer sender
may add optional fields without a version bump; removing or changing one bumps it).
Every message is at most `MAX_BYTES`; anything that cannot be decoded raises
MessageError with the field at fault, which the consumer turns into a terminated
(never redelivered) message and a log line.
"""

import dataclasses
import functools
import hashlib
import typing
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from app import jsonio
from app.bus.errors import MessageError
from app.bus.subjects import Work, app_token
from app.model.identity import AppRef
from app.model.sync import RefreshLevel

VERSION = 1
MAX_BYTES = 64 * 1024
"""Largest encoded message; payloads are references, manifests live in Redis."""


class Payload(Protocol):
    """What every work message has: the app it is about, and its de-duplication id."""

    @property
    def app(self) -> AppRef: ...

    def dedup_id(self) -> str:
        """`Nats-Msg-Id` for this message: equal ids within the window are one message."""
        ...


@dataclass(frozen=True, slots=True)
class RefreshRequest:
    """Compare the app at `level` (levels of waiting requests merge by max)."""

    app: AppRef
    level: RefreshLevel
    reason: str

    def dedup_id(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class RenderRequest:
    """Resolve and render the app's sources; `force` bypasses the manifest cache."""

    app: AppRef
    level: RefreshLevel
    reason: str

    def dedup_id(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class ManifestsReady:
    """The render of `revisions` (one commit per source) is cached, or failed with `error`."""

    app: AppRef
    level: RefreshLevel
    revisions: tuple[str, ...]
    error: str = ""

    def dedup_id(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class SyncStep:
    """Advance operation `operation` of the app past step `step` (a replay is a no-op)."""

    app: AppRef
    operation: str
    step: int
    reason: str

    def dedup_id(self) -> str:
        return f"sync:{app_token(self.app)}:{self.operation}:{self.step}"


@dataclass(frozen=True, slots=True)
class HookRequest:
    """Run or follow the hooks of step `step` of operation `operation`."""

    app: AppRef
    operation: str
    step: int
    reason: str

    def dedup_id(self) -> str:
        return f"hook:{app_token(self.app)}:{self.operation}:{self.step}"


@dataclass(frozen=True, slots=True)
class NotifyRequest:
    """Deliver one rendered notification (`notification`: its JSON) to one destination,
    and record `record` for the Application object `uid` once delivered."""

    app: AppRef
    uid: str
    record: str
    trigger: str
    service: str
    recipient: str
    notification: str

    def dedup_id(self) -> str:
        digest = hashlib.sha256(self.record.encode()).hexdigest()[:32]
        return f"notify:{app_token(self.app)}:{self.uid}:{digest}"


M = TypeVar("M", bound=Payload)


@dataclass(frozen=True, slots=True)
class Channel(Generic[M]):
    """A kind of work together with the payload type its messages carry."""

    work: Work
    payload: type[M]


REFRESH = Channel(Work.REFRESH, RefreshRequest)
RENDER = Channel(Work.RENDER, RenderRequest)
COMPARE = Channel(Work.COMPARE, ManifestsReady)
SYNC = Channel(Work.SYNC, SyncStep)
HOOK = Channel(Work.HOOK, HookRequest)
NOTIFY = Channel(Work.NOTIFY, NotifyRequest)


def encode(message: Payload) -> bytes:
    """The wire form of a payload; MessageError if it exceeds MAX_BYTES."""
    doc: dict[str, Any] = {"v": VERSION}
    for f in dataclasses.fields(typing.cast(Any, message)):
        doc[f.name] = _encode_value(getattr(message, f.name))
    data = jsonio.dumps(doc)
    if len(data) > MAX_BYTES:
        raise MessageError(
            f"{type(message).__name__} for {message.app} is {len(data)} bytes, over the "
            f"{MAX_BYTES}-byte limit; shorten its text fields"
        )
    return data


def _encode_value(value: Any) -> Any:
    if isinstance(value, AppRef):
        return str(value)
    if isinstance(value, RefreshLevel):
        return value.name.lower()
    if isinstance(value, tuple):
        return list(value)
    return value


def decode(channel: Channel[M], data: bytes) -> M:
    """Parse a message of `channel`; MessageError names what is wrong."""
    what = channel.payload.__name__
    if len(data) > MAX_BYTES:
        raise MessageError(f"{what}: {len(data)} bytes, over the {MAX_BYTES}-byte limit")
    try:
        doc = jsonio.loads(data)
    except ValueError as e:
        raise MessageError(f"{what}: not JSON ({e})") from None
    if not isinstance(doc, dict):
        raise MessageError(f"{what}: expected a JSON object, got {type(doc).__name__}")
    version = doc.get("v")
    if version != VERSION:
        raise MessageError(
            f"{what}: message version {version!r}, this worker reads version {VERSION}; "
            "run the same Sluice version on every worker"
        )
    hints = _hints(channel.payload)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(typing.cast(Any, channel.payload)):
        if f.name not in doc:
            if f.default is dataclasses.MISSING:
                raise MessageError(f"{what}.{f.name}: is required")
            continue
        kwargs[f.name] = _decode_value(hints[f.name], doc[f.name], f"{what}.{f.name}")
    return channel.payload(**kwargs)


@functools.cache
def _hints(payload: type) -> dict[str, Any]:
    return typing.get_type_hints(payload)


def _decode_value(tp: Any, value: Any, where: str) -> Any:
    if tp is AppRef:
        if not isinstance(value, str):
            raise MessageError(f"{where}: expected namespace/name, got {value!r:.60}")
        try:
            return AppRef.parse(value)
        except ValueError as e:
            raise MessageError(f"{where}: {e}") from None
    if tp is RefreshLevel:
        if not isinstance(value, str):
            raise MessageError(f"{where}: expected a level name, got {value!r:.60}")
        try:
            return RefreshLevel.parse(value)
        except ValueError as e:
            raise MessageError(f"{where}: {e}") from None
    if tp is str:
        if not isinstance(value, str):
            raise MessageError(f"{where}: expected a string, got {value!r:.60}")
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise MessageError(f"{where}: expected an integer, got {value!r:.60}")
        return value
    if typing.get_origin(tp) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise MessageError(f"{where}: expected a list of strings, got {value!r:.60}")
        return tuple(value)
    raise TypeError(f"{where}: unsupported payload field type {tp!r}")
