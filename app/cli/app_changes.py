"""`sluice app set|unset|edit`: change an Application's spec, as `argocd app set|unset|edit`.

Each reads the Application, changes its spec (`spec_edits.py`, or the user in
`$EDITOR`) and writes it back with the resourceVersion it read, so a change someone
made meanwhile fails (409) instead of being overwritten. The server checks the result
against the project and RBAC (`update` on the app, in its old and new project).
"""

import argparse
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from app.cli.client import OK, Api, CliError, app_path, app_query
from app.cli.output import say
from app.cli.running import runner
from app.cli.spec_edits import apply_set, apply_unset

MAX_EDIT_BYTES = 1 << 20


async def _update(args: argparse.Namespace, change: Callable[[dict[str, Any]], None]) -> int:
    async with Api.from_args(args) as api:
        app = await api.call("GET", app_path(args), query=app_query(args))
        app.pop("status", None)
        change(app["spec"])
        await api.call("PUT", app_path(args), query=app_query(args), body=app)
    say(f"application '{args.name}' updated")
    return OK


async def set_app(args: argparse.Namespace) -> int:
    return await _update(args, lambda spec: apply_set(spec, args))


async def unset_app(args: argparse.Namespace) -> int:
    return await _update(args, lambda spec: apply_unset(spec, args))


def _edit(text: str) -> str:
    editor = shlex.split(os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi")
    with tempfile.TemporaryDirectory(prefix="sluice-edit-") as folder:
        path = Path(folder) / "spec.yaml"
        path.write_text(text)
        try:
            subprocess.run([*editor, str(path)], check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise CliError(f"the editor {editor[0]!r} failed ({e}); set EDITOR") from None
        edited = path.read_text()
    if len(edited) > MAX_EDIT_BYTES:
        raise CliError(f"the edited spec is larger than {MAX_EDIT_BYTES} bytes")
    return edited


async def edit_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        app = await api.call("GET", app_path(args), query=app_query(args))
        before = yaml.safe_dump({"spec": app["spec"]}, sort_keys=False)
        edited = _edit(before)
        if edited == before:
            say("edit cancelled, no changes made")
            return OK
        try:
            doc = yaml.safe_load(edited)
        except yaml.YAMLError as e:
            raise CliError(f"the edited spec is not valid YAML: {e}; nothing changed") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("spec"), dict):
            raise CliError("the edited text must be a mapping with `spec`; nothing changed")
        app.pop("status", None)
        app["spec"] = doc["spec"]
        await api.call("PUT", app_path(args), query=app_query(args), body=app)
    say(f"application '{args.name}' updated")
    return OK


def _set_flags(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    flag = argparse.BooleanOptionalAction
    add("--repo", default=None, help="source repository URL")
    add("--path", default=None, help="path in the repository")
    add("--revision", default=None, help="target revision (branch, tag, commit)")
    add("--dest-server", default=None, help="destination cluster URL")
    add("--dest-name", default=None, help="destination cluster name")
    add("--dest-namespace", default=None, help="destination namespace")
    add("--project", default=None, help="the app's project")
    add("--sync-policy", default=None, help="automated or none")
    add("--self-heal", action=flag, default=None, help="automated: revert live changes")
    add("--auto-prune", action=flag, default=None, help="automated: prune resources")
    add("--allow-empty", action=flag, default=None, help="automated: allow no resources")
    add("--sync-option", action="append", default=[], help="KEY=VALUE (repeatable)")
    add("--sync-retry-limit", type=int, default=None, help="retries of a failed sync")
    add("--helm-set", action="append", default=[], help="Helm parameter KEY=VALUE")
    add("--helm-set-string", action="append", default=[], help="Helm string KEY=VALUE")
    add("--values", action="append", default=[], help="Helm value file (repeatable)")
    add("--release-name", default=None, help="Helm release name")
    add("--nameprefix", default=None, help="Kustomize namePrefix")
    add("--namesuffix", default=None, help="Kustomize nameSuffix")
    add("--kustomize-namespace", default=None, help="Kustomize namespace")
    add("--kustomize-image", action="append", default=[], help="Kustomize image override")
    add("--kustomize-common-label", action="append", default=[], help="KEY=VALUE")
    add("--kustomize-common-annotation", action="append", default=[], help="KEY=VALUE")
    add("--kustomize-replica", action="append", default=[], help="NAME=COUNT")
    add("--directory-recurse", action=flag, default=None, help="directory: recurse")
    add("--directory-include", default=None, help="directory: include glob")
    add("--directory-exclude", default=None, help="directory: exclude glob")
    add("--source-position", type=int, default=1, help="which source (multi-source apps)")


def _unset_flags(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--nameprefix", action="store_true", help="Kustomize namePrefix")
    add("--namesuffix", action="store_true", help="Kustomize nameSuffix")
    add("--kustomize-namespace", action="store_true", help="Kustomize namespace")
    add("--kustomize-image", action="append", default=[], help="image name (repeatable)")
    add("--kustomize-replica", action="append", default=[], help="replica name (repeatable)")
    add("-p", "--parameter", action="append", default=[], help="Helm parameter name")
    add("--values", action="append", default=[], help="Helm value file")
    add("--sync-option", action="append", default=[], help="sync option KEY")
    add("--source-position", type=int, default=1, help="which source (multi-source apps)")


def register(named: Callable[[str, str], argparse.ArgumentParser]) -> None:
    setter = named("set", "set an application's spec fields (as argocd app set)")
    _set_flags(setter)
    setter.set_defaults(run=runner(set_app))
    unsetter = named("unset", "unset an application's spec fields (as argocd app unset)")
    _unset_flags(unsetter)
    unsetter.set_defaults(run=runner(unset_app))
    named("edit", "edit an application's spec in $EDITOR").set_defaults(run=runner(edit_app))
