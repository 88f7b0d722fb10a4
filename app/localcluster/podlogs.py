"""A simulated pod's log: a few lines per container, derived from the pod itself.

Nothing runs in the local cluster, so a container's log says what the simulation did,
in order and with the times its status records: the container started (image, command,
ports), what an `echo` command would print, whether it became ready, how it ended (exit
code, or the crash loop of the `fail` lever), and a last line when the pod is deleted.
Every line is a function of the pod, so `kubectl logs -f` sees new lines appear exactly
when the pod's status changes. Lines are marked `localcluster:` so nobody mistakes them
for an application's output (what an echo prints is shown as is).
"""

import shlex
from dataclasses import dataclass
from typing import Any

from app.localcluster import errors
from app.localcluster.levers import FAIL, NEVER_READY, levers_of
from app.localcluster.objectmeta import epoch, now
from app.model.resource import KubeObject

PREFIX = "localcluster: "


@dataclass(frozen=True, slots=True)
class Line:
    at: str
    """When the line was written (RFC 3339, as the pod's status records times)."""
    text: str


@dataclass(frozen=True, slots=True)
class LogOptions:
    """The pods/log query: which container, which part of its log, how to show it."""

    container: str = ""
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    since_seconds: int | None = None
    since_time: str = ""
    limit_bytes: int | None = None


def _containers(pod: KubeObject) -> list[dict[str, Any]]:
    spec = pod.get("spec") or {}
    found: list[dict[str, Any]] = []
    for key in ("initContainers", "containers", "ephemeralContainers"):
        found.extend(c for c in spec.get(key) or () if isinstance(c, dict))
    return found


def _status(pod: KubeObject, name: str) -> dict[str, Any] | None:
    status = pod.get("status") or {}
    for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(key) or ():
            if isinstance(entry, dict) and entry.get("name") == name:
                return entry
    return None


def container_of(pod: KubeObject, options: LogOptions) -> dict[str, Any]:
    """The container whose log is asked for; 400 as the real server words it otherwise."""
    name = str(pod["metadata"]["name"])
    containers = _containers(pod)
    if not options.container:
        regular = [
            c for c in (pod.get("spec") or {}).get("containers") or () if isinstance(c, dict)
        ]
        if len(regular) == 1:
            return regular[0]
        names = " ".join(str(c.get("name")) for c in regular)
        raise errors.bad_request(
            f"a container name must be specified for pod {name}, choose one of: [{names}]"
        )
    for container in containers:
        if container.get("name") == options.container:
            return container
    raise errors.bad_request(f"container {options.container} is not valid for pod {name}")


def _started_at(pod: KubeObject, state: dict[str, Any]) -> str:
    for key in ("running", "terminated"):
        detail = state.get(key) or {}
        if detail.get("startedAt"):
            return str(detail["startedAt"])
    return str((pod.get("status") or {}).get("startTime") or "")


def _echoed(container: dict[str, Any]) -> str | None:
    """What the container's command prints when it is an `echo` (or `sh -c "echo …"`)."""
    words = [str(w) for w in [*(container.get("command") or ()), *(container.get("args") or ())]]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("sh", "bash") and words[1] == "-c":
        try:
            words = shlex.split(words[2])
        except ValueError:
            return None
    if words and words[0].rsplit("/", 1)[-1] == "echo":
        return " ".join(words[1:])
    return None


def lines(pod: KubeObject, container: dict[str, Any], *, deleted: bool = False) -> list[Line]:
    """The log of `container` so far; 400 while it has not started."""
    name = str(container.get("name", ""))
    status = _status(pod, name)
    state = (status or {}).get("state") or {}
    waiting = state.get("waiting") or {}
    started = _started_at(pod, state)
    if status is None or not started or (waiting and not status.get("restartCount")):
        reason = waiting.get("reason") or "ContainerCreating"
        raise errors.bad_request(
            f'container "{name}" in pod "{pod["metadata"]["name"]}" is waiting to start: {reason}'
        )
    out = [Line(started, f"{PREFIX}container {name} started from image {container.get('image')}")]
    words = [*(container.get("command") or ()), *(container.get("args") or ())]
    if words:
        out.append(Line(started, f"{PREFIX}running {shlex.join(str(w) for w in words)}"))
    for port in container.get("ports") or ():
        if isinstance(port, dict) and port.get("containerPort"):
            protocol = port.get("protocol", "TCP")
            out.append(Line(started, f"{PREFIX}listening on {port['containerPort']}/{protocol}"))
    echoed = _echoed(container)
    if echoed is not None:
        out.append(Line(started, echoed))
    terminated = state.get("terminated") or {}
    if terminated:
        finished = str(terminated.get("finishedAt") or started)
        code, reason = terminated.get("exitCode", 0), terminated.get("reason", "")
        out.append(Line(finished, f"{PREFIX}exited with code {code} ({reason})"))
    elif waiting.get("reason") == "CrashLoopBackOff":
        out.append(Line(started, f"{PREFIX}error: failing on purpose (lever {FAIL})"))
        out.append(Line(started, f"{PREFIX}exited with code 1; back-off restarting the container"))
    elif status.get("ready"):
        out.append(Line(started, f"{PREFIX}ready"))
    elif levers_of(pod).never_ready:
        out.append(Line(started, f"{PREFIX}readiness check failing (lever {NEVER_READY})"))
    if deleted and not terminated:
        out.append(Line(now(), f"{PREFIX}received SIGTERM, container {name} stopping"))
    return out


def previous_lines(pod: KubeObject, container: dict[str, Any]) -> list[Line]:
    """The log of the container's previous instance (one that restarted), else 400."""
    status = _status(pod, str(container.get("name", ""))) or {}
    if not status.get("restartCount"):
        raise errors.bad_request(
            f'previous terminated container "{container.get("name")}" in pod '
            f'"{pod["metadata"]["name"]}" not found'
        )
    return lines(pod, container)


def finished(pod: KubeObject, container: dict[str, Any]) -> bool:
    """Whether the container has ended (its log will not grow)."""
    status = _status(pod, str(container.get("name", ""))) or {}
    return bool((status.get("state") or {}).get("terminated"))


def select(found: list[Line], options: LogOptions, now: float) -> list[Line]:
    """The lines `sinceSeconds`/`sinceTime` and `tailLines` keep."""
    if options.since_seconds is not None:
        found = [line for line in found if (epoch(line.at) or 0) >= now - options.since_seconds]
    elif options.since_time:
        since = epoch(options.since_time)
        if since is None:
            raise errors.bad_request(f"sinceTime {options.since_time!r} is not an RFC 3339 time")
        found = [line for line in found if (epoch(line.at) or 0) >= since]
    if options.tail_lines is not None:
        found = found[-options.tail_lines :] if options.tail_lines else []
    return found


def render(found: list[Line], options: LogOptions) -> bytes:
    """The lines as the kubelet sends them: newline-terminated, optionally time-stamped."""
    text = "".join(
        f"{line.at.replace('Z', '.000000000Z')} {line.text}\n"
        if options.timestamps
        else f"{line.text}\n"
        for line in found
    )
    return text.encode()
