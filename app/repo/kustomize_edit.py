"""An Application's `spec.source.kustomize` overrides, as edits to a kustomization (pure).

Argo CD applies the overrides by running `kustomize edit ...` in its checkout before the
build. Sluice produces the same kustomization directly: the render runs in a private,
throwaway checkout, so the app's own kustomization file is rewritten with the overrides
merged in, the way each `kustomize edit` command would have merged them:

- `namePrefix`, `nameSuffix`, `namespace` replace the kustomization's value
  (`edit set nameprefix|namesuffix|namespace`).
- `images` are `edit set image` arguments: `name:tag`, `name@digest`, `name=newName`,
  `name=newName:tag`, `name=newName@digest`; an entry for the same image name is updated,
  otherwise one is appended.
- `replicas` (`{name, count}`) replace the entry of the same name or are appended.
- `commonLabels` / `commonAnnotations` are added (`edit add label|annotation`); a key the
  kustomization already sets is an error unless `forceCommonLabels` /
  `forceCommonAnnotations` is true, as kustomize refuses it without `--force`.
- `patches` are appended to the kustomization's patches, `components` to its components
  (a component already listed is not listed twice).

Fields that need what Sluice does not have are refused by name (`REFUSED`); fields that
only feed Helm chart inflation, which Sluice's build never enables, are ignored and
reported (`IGNORED`), as are fields this version does not know.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.repo.errors import RenderError

REFUSED: Mapping[str, str] = {
    "version": "Sluice runs the one kustomize it has; remove the field",
    "commonAnnotationsEnvsubst": "Sluice has no Argo CD build environment to substitute from",
    "labelWithoutSelector": "not supported yet; set the labels in the kustomization in Git",
    "labelIncludeTemplates": "not supported yet; set the labels in the kustomization in Git",
    "ignoreMissingComponents": "not supported yet; list only components that exist",
}
"""Override fields refused, with what the user should do instead."""

IGNORED = ("kubeVersion", "apiVersions")
"""Override fields without effect: they only reach Helm inflation, which is never enabled."""

_STRINGS = ("namePrefix", "nameSuffix", "namespace")
_FLAGS = ("forceCommonLabels", "forceCommonAnnotations")
_KNOWN = frozenset(
    (*_STRINGS, *_FLAGS, "images", "replicas", "commonLabels", "commonAnnotations", "patches")
) | {"components"}
_DIGEST = re.compile(r"^[A-Za-z0-9_+.-]+:[A-Fa-f0-9]{32,}$")


@dataclass(frozen=True, slots=True)
class Edited:
    """The kustomization with the overrides merged in, and the override fields ignored."""

    kustomization: dict[str, Any]
    ignored: tuple[str, ...]


def apply_overrides(
    kustomization: Mapping[str, Any], overrides: Mapping[str, Any], *, field: str
) -> Edited:
    """Merge `overrides` (the source's `kustomize` block) into a copy of `kustomization`.

    `field` names the block in errors (`spec.source.kustomize`). RenderError says which
    override is wrong and why.
    """
    _check_fields(overrides, field)
    result = dict(kustomization)
    for name in _STRINGS:
        value = overrides.get(name)
        if value not in (None, ""):
            result[name] = _string(value, f"{field}.{name}")
    images = _list(overrides.get("images"), f"{field}.images")
    for i, image in enumerate(images):
        result["images"] = _set_image(result.get("images"), image, f"{field}.images[{i}]")
    replicas = _list(overrides.get("replicas"), f"{field}.replicas")
    for i, replica in enumerate(replicas):
        where = f"{field}.replicas[{i}]"
        result["replicas"] = _set_replicas(result.get("replicas"), replica, where)
    for name, force in (
        ("commonLabels", "forceCommonLabels"),
        ("commonAnnotations", "forceCommonAnnotations"),
    ):
        added = overrides.get(name)
        if added:
            result[name] = _add_pairs(
                result.get(name),
                added,
                f"{field}.{name}",
                force_field=force,
                force=overrides.get(force) is True,
            )
    patches = _list(overrides.get("patches"), f"{field}.patches")
    if patches:
        result["patches"] = [*_existing_list(result.get("patches"), "patches"), *patches]
    components = _list(overrides.get("components"), f"{field}.components")
    if components:
        result["components"] = _add_components(result.get("components"), components, field)
    ignored = tuple(sorted(n for n in overrides if n not in _KNOWN))
    return Edited(result, ignored)


def _check_fields(overrides: Mapping[str, Any], field: str) -> None:
    """Refuse the overrides Sluice does not carry out, and flags that are not booleans."""
    for name in overrides:
        if name in REFUSED:
            raise RenderError(f"{field}.{name} is set: {REFUSED[name]}")
    for name in _FLAGS:
        if not isinstance(overrides.get(name, False), bool):
            raise RenderError(f"{field}.{name} must be true or false")


def _add_components(existing: Any, components: list[Any], field: str) -> list[Any]:
    """The kustomization's components with the overrides' appended (each path once)."""
    listed = _existing_list(existing, "components")
    for i, component in enumerate(components):
        path = _string(component, f"{field}.components[{i}]")
        if path not in listed:
            listed = [*listed, path]
    return listed


def parse_image(text: str, where: str) -> dict[str, str]:
    """An `edit set image` argument as a kustomization `images` entry."""
    if "$" in text:
        raise RenderError(
            f"{where}: {text!r} uses a build environment variable; Sluice does not substitute "
            "them, write the value out"
        )
    name, sep, replacement = text.partition("=")
    if not sep:
        replacement = text
    new_name, digest, tag = _split_reference(replacement)
    if not sep:
        name = new_name
    if not name or not new_name or (sep and not replacement):
        raise RenderError(
            f"{where}: {text!r} is not an image override; write name:tag, name@digest or "
            "name=newName[:tag|@digest]"
        )
    entry = {"name": name}
    if sep and new_name != name:
        entry["newName"] = new_name
    if tag:
        entry["newTag"] = tag
    if digest:
        if not _DIGEST.match(digest):
            raise RenderError(f"{where}: {digest!r} is not an image digest (algorithm:hex)")
        entry["digest"] = digest
    return entry


def _split_reference(reference: str) -> tuple[str, str, str]:
    """(name, digest, tag) of `name[:tag][@digest]`; a `:` before the last `/` is a port."""
    name, _, digest = reference.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        return name[:colon], digest, name[colon + 1 :]
    return name, digest, ""


def _set_image(existing: Any, image: Any, where: str) -> list[Any]:
    entry = parse_image(_string(image, where), where)
    images = _existing_list(existing, "images")
    for i, current in enumerate(images):
        if isinstance(current, dict) and current.get("name") == entry["name"]:
            merged = {k: v for k, v in current.items() if k not in ("newTag", "digest")}
            if "newTag" not in entry and "digest" not in entry:
                merged.update({k: current[k] for k in ("newTag", "digest") if k in current})
            merged.update(entry)
            return [*images[:i], merged, *images[i + 1 :]]
    return [*images, entry]


def _set_replicas(existing: Any, replica: Any, where: str) -> list[Any]:
    if not isinstance(replica, dict) or not isinstance(replica.get("name"), str):
        raise RenderError(f"{where} must be an object with a name and a count")
    count = replica.get("count")
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise RenderError(f"{where}.count: {count!r} is not a whole number of replicas")
    entry = {"name": replica["name"], "count": count}
    listed = _existing_list(existing, "replicas")
    kept = [r for r in listed if not (isinstance(r, dict) and r.get("name") == entry["name"])]
    if len(kept) == len(listed):
        return [*listed, entry]
    position = next(
        i for i, r in enumerate(listed) if isinstance(r, dict) and r.get("name") == entry["name"]
    )
    return [*kept[:position], entry, *kept[position:]]


def _add_pairs(
    existing: Any, added: Any, where: str, *, force_field: str, force: bool
) -> dict[str, str]:
    if not isinstance(added, dict):
        raise RenderError(f"{where} must be a map of names to values")
    if existing is not None and not isinstance(existing, dict):
        raise RenderError(f"the kustomization's {where.rsplit('.', 1)[-1]} is not a map")
    pairs = dict(existing or {})
    for key, value in added.items():
        text = _string(value, f"{where}.{key}")
        if "$" in text and where.endswith("commonLabels"):
            raise RenderError(
                f"{where}.{key}: {text!r} uses a build environment variable; Sluice does not "
                "substitute them, write the value out"
            )
        if key in pairs and not force:
            raise RenderError(
                f"{where}.{key}: the kustomization already sets {key!r}; set {force_field}: "
                "true to override it"
            )
        pairs[key] = text
    return pairs


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RenderError(f"{where} must be a list")
    return value


def _existing_list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RenderError(f"the kustomization's {name} is not a list")
    return list(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise RenderError(f"{where} must be a string, not {type(value).__name__}")
    return value
