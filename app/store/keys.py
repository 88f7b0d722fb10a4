"""Every Redis key Sluice uses, on one screen.

    sluice:app:{ns/app}                hash  doc (last Application that parsed, no status),
                                             spec (its hash), invalid (why today's does not)
    sluice:apps                        set   ns/app of every registered Application
    sluice:project:{ns/name}           str   AppProject JSON
    sluice:refs:{repo}                 str   ls-remote listing of a repository (short TTL)
    sluice:status:{ns/app}             hash  seq, status (comparison result JSON)
    sluice:compare-seq:{ns/app}        int   comparisons begun (the next seq)
    sluice:compare-marks:{ns/app}      hash  what the compare stage remembers between runs
    sluice:operation:{ns/app}          hash  id, step, phase, state (OperationState JSON), sync
                                             (SyncState JSON), terminate, origin, finalized,
                                             restored
    sluice:history:{ns/app}            hash  <id> -> RevisionHistory JSON (newest N kept)
    sluice:history-seq:{ns/app}        int   next history id
    sluice:tree:{ns/app}               str   resource tree JSON
    sluice:live:{ns/app}               hash  <group/Kind:namespace/name> -> object JSON
    sluice:live-warm:{ns/app}          str   present once the watcher's initial list is in:
                                             its keeper (the leader's lease token)
    sluice:manifests:{repo}:<commit>:<spec>   hash  data, digest (TTL)
    sluice:lease:{name}                str   holder token (PX)
    sluice:lease:{stage:ns/app}        str   holder token of the (stage, app) handler (PX)
    sluice:pending:{stage:ns/app}      hash  level, count, payload, bound, last: work not
                                             yet taken (bound, last: stream sequences)
    sluice:inflight:{stage:ns/app}     hash  the same: work the holder took
    sluice:answered:{stage:ns/app}     hash  epoch, l<level> -> stream sequence every
                                             request at or below was stored before a
                                             finished run of that level or higher began
    sluice:notified:{ns/app}:<uid>     zset  notifications sent for one Application object:
                                             record key -> time sent (Argo CD keeps the same
                                             on the object; a re-created app starts afresh)
    sluice:notify-lock:{ns/app}:<key>  str   holder token while one notification is sent (PX)
    sluice:repo-change:{digest}        str   claimed by the process reacting to one state of
                                             the repository Secrets and ConfigMaps (EX)
    sluice:repo-connections            hash  digest of project+URL -> connection state JSON

The part in braces is a Redis Cluster hash tag: keys a script or transaction touches
together share it, so they live in one slot. `ns/app` is the Application's namespace and
name; `repo` is a digest of the repository URL (a URL may carry credentials, a key is
visible to anyone who can list keys).
"""

import hashlib

from app.model.identity import AppRef

PREFIX = "sluice:"
_MAX_PART = 253


def _app(app: AppRef) -> str:
    for part, what in ((app.namespace, "namespace"), (app.name, "name")):
        if not part or len(part) > _MAX_PART or any(c in part for c in "/{}\n "):
            raise ValueError(
                f"invalid Application {what} {part!r}: a Kubernetes name, 1-253 characters"
            )
    return f"{app.namespace}/{app.name}"


def _stage(stage: str) -> str:
    if not stage.isidentifier():
        raise ValueError(f"invalid stage name {stage!r}: letters, digits and '_' only")
    return stage


def app(app: AppRef) -> str:
    return f"{PREFIX}app:{{{_app(app)}}}"


APPS = f"{PREFIX}apps"


def project(namespace: str, name: str) -> str:
    return f"{PREFIX}project:{{{namespace}/{name}}}"


def refs(repo_key: str) -> str:
    """`repo_key` is already a digest (see `repo_digest`)."""
    return f"{PREFIX}refs:{{{repo_key}}}"


def repo_digest(repo_url: str) -> str:
    """A repository URL as a key part: a digest, since a URL may carry credentials."""
    return hashlib.sha256(repo_url.encode()).hexdigest()[:32]


def status(app: AppRef) -> str:
    return f"{PREFIX}status:{{{_app(app)}}}"


def compare_seq(app: AppRef) -> str:
    return f"{PREFIX}compare-seq:{{{_app(app)}}}"


def compare_marks(app: AppRef) -> str:
    return f"{PREFIX}compare-marks:{{{_app(app)}}}"


def operation(app: AppRef) -> str:
    return f"{PREFIX}operation:{{{_app(app)}}}"


def history(app: AppRef) -> str:
    return f"{PREFIX}history:{{{_app(app)}}}"


def history_seq(app: AppRef) -> str:
    return f"{PREFIX}history-seq:{{{_app(app)}}}"


def tree(app: AppRef) -> str:
    return f"{PREFIX}tree:{{{_app(app)}}}"


def live(app: AppRef) -> str:
    return f"{PREFIX}live:{{{_app(app)}}}"


def live_warm(app: AppRef) -> str:
    return f"{PREFIX}live-warm:{{{_app(app)}}}"


def manifests(repo_url: str, commit: str, spec_hash: str) -> str:
    return f"{PREFIX}manifests:{{{repo_digest(repo_url)}}}:{commit}:{spec_hash}"


REPO_CONNECTIONS = f"{PREFIX}repo-connections"


def repo_change(version: str) -> str:
    """`version` names the repository Secrets' and ConfigMaps' resourceVersions."""
    return f"{PREFIX}repo-change:{{{hashlib.sha256(version.encode()).hexdigest()[:32]}}}"


def lease(name: str) -> str:
    if not name or len(name) > _MAX_PART or any(c in name for c in "{}\n "):
        raise ValueError(f"invalid lease name {name!r}")
    return f"{PREFIX}lease:{{{name}}}"


def work_lease(stage: str, app: AppRef) -> str:
    return f"{PREFIX}lease:{{{_stage(stage)}:{_app(app)}}}"


def pending(stage: str, app: AppRef) -> str:
    return f"{PREFIX}pending:{{{_stage(stage)}:{_app(app)}}}"


def inflight(stage: str, app: AppRef) -> str:
    return f"{PREFIX}inflight:{{{_stage(stage)}:{_app(app)}}}"


def answered(stage: str, app: AppRef) -> str:
    return f"{PREFIX}answered:{{{_stage(stage)}:{_app(app)}}}"


def _uid(uid: str) -> str:
    if len(uid) > 64 or any(c in uid for c in "{}\n :"):
        raise ValueError(f"invalid object uid {uid!r}")
    return uid or "-"


def notified(app: AppRef, uid: str) -> str:
    return f"{PREFIX}notified:{{{_app(app)}}}:{_uid(uid)}"


def notify_lock(app: AppRef, record: str) -> str:
    """`record` is a notification's record key; the key holds its digest only."""
    return f"{PREFIX}notify-lock:{{{_app(app)}}}:{repo_digest(record)}"
