"""What `sluice app set` and `app unset` change in an Application's spec, as `argocd app
set`/`unset` change it: pure functions over the spec as JSON, each naming the flag in
its error. The source changed is `spec.source`, or `spec.sources[N-1]` with
`--source-position N`.
"""

import argparse
from typing import Any

from app.cli.client import CliError

SyncOptions = list[str]


def _pairs(values: list[str], flag: str) -> list[tuple[str, str]]:
    found = []
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise CliError(f"{flag}: expected KEY=VALUE, got {value!r}")
        found.append((key, rest))
    return found


def source(spec: dict[str, Any], position: int) -> dict[str, Any]:
    """The source the flags change (1-based position among `spec.sources`)."""
    sources = spec.get("sources")
    if sources:
        if not 1 <= position <= len(sources):
            raise CliError(
                f"--source-position: the app has {len(sources)} sources; give 1 to {len(sources)}"
            )
        found: dict[str, Any] = sources[position - 1]
        return found
    if position != 1:
        raise CliError("--source-position: the app has a single source")
    single: dict[str, Any] = spec.setdefault("source", {})
    return single


def _set_sync_policy(spec: dict[str, Any], args: argparse.Namespace) -> None:
    policy = spec.setdefault("syncPolicy", {})
    if args.sync_policy is not None:
        if args.sync_policy in ("automated", "automatic", "auto"):
            policy.setdefault("automated", {})
        elif args.sync_policy in ("none", "manual"):
            policy.pop("automated", None)
        else:
            raise CliError("--sync-policy: expected automated or none")
    for flag, key in (
        ("self_heal", "selfHeal"),
        ("auto_prune", "prune"),
        ("allow_empty", "allowEmpty"),
    ):
        value = getattr(args, flag)
        if value is not None:
            if "automated" not in policy:
                raise CliError(f"--{flag.replace('_', '-')}: needs --sync-policy automated")
            policy["automated"][key] = value
    if args.sync_option:
        options: SyncOptions = policy.setdefault("syncOptions", [])
        for key, value in _pairs(args.sync_option, "--sync-option"):
            options[:] = [o for o in options if o.partition("=")[0] != key]
            options.append(f"{key}={value}")
    if args.sync_retry_limit is not None:
        policy.setdefault("retry", {})["limit"] = args.sync_retry_limit
    if not policy:
        spec.pop("syncPolicy")


def _set_helm(src: dict[str, Any], args: argparse.Namespace) -> None:
    if not (args.helm_set or args.helm_set_string or args.values or args.release_name):
        return
    helm = src.setdefault("helm", {})
    parameters: list[dict[str, Any]] = helm.setdefault("parameters", [])
    for flag, values, forced in (
        ("--helm-set", args.helm_set, False),
        ("--helm-set-string", args.helm_set_string, True),
    ):
        for key, value in _pairs(values, flag):
            parameters[:] = [p for p in parameters if p.get("name") != key]
            entry: dict[str, Any] = {"name": key, "value": value}
            if forced:
                entry["forceString"] = True
            parameters.append(entry)
    if not parameters:
        helm.pop("parameters")
    for file in args.values:
        value_files = helm.setdefault("valueFiles", [])
        if file not in value_files:
            value_files.append(file)
    if args.release_name:
        helm["releaseName"] = args.release_name


def _set_kustomize(src: dict[str, Any], args: argparse.Namespace) -> None:
    wanted = (
        args.kustomize_image
        or args.nameprefix is not None
        or args.namesuffix is not None
        or args.kustomize_namespace is not None
        or args.kustomize_common_label
        or args.kustomize_common_annotation
        or args.kustomize_replica
    )
    if not wanted:
        return
    kustomize = src.setdefault("kustomize", {})
    for field, value in (
        ("namePrefix", args.nameprefix),
        ("nameSuffix", args.namesuffix),
        ("namespace", args.kustomize_namespace),
    ):
        if value is not None:
            kustomize[field] = value
    for image in args.kustomize_image:
        name = image.split("=", 1)[0].split(":", 1)[0].split("@", 1)[0]
        images = kustomize.setdefault("images", [])
        images[:] = [
            i for i in images if i.split("=", 1)[0].split(":", 1)[0].split("@", 1)[0] != name
        ]
        images.append(image)
    for flag, values, field in (
        ("--kustomize-common-label", args.kustomize_common_label, "commonLabels"),
        ("--kustomize-common-annotation", args.kustomize_common_annotation, "commonAnnotations"),
    ):
        for key, value in _pairs(values, flag):
            kustomize.setdefault(field, {})[key] = value
    for key, value in _pairs(args.kustomize_replica, "--kustomize-replica"):
        if not value.isdigit():
            raise CliError(f"--kustomize-replica: {key}={value}: the count must be a number")
        replicas = kustomize.setdefault("replicas", [])
        replicas[:] = [r for r in replicas if r.get("name") != key]
        replicas.append({"name": key, "count": int(value)})


def _set_directory(src: dict[str, Any], args: argparse.Namespace) -> None:
    if (
        args.directory_recurse is None
        and args.directory_include is None
        and args.directory_exclude is None
    ):
        return
    directory = src.setdefault("directory", {})
    if args.directory_recurse is not None:
        directory["recurse"] = args.directory_recurse
    if args.directory_include is not None:
        directory["include"] = args.directory_include
    if args.directory_exclude is not None:
        directory["exclude"] = args.directory_exclude


def apply_set(spec: dict[str, Any], args: argparse.Namespace) -> None:
    """Change `spec` as `argocd app set` with these flags would."""
    src = source(spec, args.source_position)
    for flag, key in (("repo", "repoURL"), ("path", "path"), ("revision", "targetRevision")):
        value = getattr(args, flag)
        if value is not None:
            src[key] = value
    destination = spec.setdefault("destination", {})
    if args.dest_server is not None:
        destination["server"] = args.dest_server
        destination.pop("name", None)
    if args.dest_name is not None:
        destination["name"] = args.dest_name
        destination.pop("server", None)
    if args.dest_namespace is not None:
        destination["namespace"] = args.dest_namespace
    if args.project is not None:
        spec["project"] = args.project
    _set_sync_policy(spec, args)
    _set_helm(src, args)
    _set_kustomize(src, args)
    _set_directory(src, args)


def _drop_empty(holder: dict[str, Any], key: str) -> None:
    if not holder.get(key):
        holder.pop(key, None)


def apply_unset(spec: dict[str, Any], args: argparse.Namespace) -> None:
    """Change `spec` as `argocd app unset` with these flags would."""
    src = source(spec, args.source_position)
    kustomize = src.get("kustomize") or {}
    for flag, field in (
        ("nameprefix", "namePrefix"),
        ("namesuffix", "nameSuffix"),
        ("kustomize_namespace", "namespace"),
    ):
        if getattr(args, flag):
            kustomize.pop(field, None)
    for name in args.kustomize_image:
        kustomize["images"] = [
            i for i in kustomize.get("images") or [] if i.split("=", 1)[0].split(":", 1)[0] != name
        ]
        _drop_empty(kustomize, "images")
    for name in args.kustomize_replica:
        kustomize["replicas"] = [
            r for r in kustomize.get("replicas") or [] if r.get("name") != name
        ]
        _drop_empty(kustomize, "replicas")
    if "kustomize" in src:
        _drop_empty(src, "kustomize")
    helm = src.get("helm") or {}
    for name in args.parameter:
        helm["parameters"] = [p for p in helm.get("parameters") or [] if p.get("name") != name]
        _drop_empty(helm, "parameters")
    for file in args.values:
        helm["valueFiles"] = [f for f in helm.get("valueFiles") or [] if f != file]
        _drop_empty(helm, "valueFiles")
    if "helm" in src:
        _drop_empty(src, "helm")
    policy = spec.get("syncPolicy") or {}
    for key in args.sync_option:
        policy["syncOptions"] = [
            o for o in policy.get("syncOptions") or [] if o.partition("=")[0] != key
        ]
        _drop_empty(policy, "syncOptions")
    if "syncPolicy" in spec:
        _drop_empty(spec, "syncPolicy")
