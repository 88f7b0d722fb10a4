"""Plugin runs on real commits through `render_plugin`: discovery kinds, file modes, the
repository lock and the memory cap, with plugins the tests write."""

import asyncio
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.model.app_spec import ApplicationSource
from app.repo.errors import LimitExceeded, RenderError
from app.repo.plugins.run import render_plugin
from app.repo.service import Repositories
from app.repo.settings import MiB, RepoSettings
from tests.integration.repo.origin import Origin

BUILD = {"ARGOCD_APP_NAME": "web"}


async def build() -> dict[str, str]:
    return BUILD


CONFIG_MAP = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-plugin"}}'


def write_plugin(root: Path, name: str, generate: list[str], **spec: Any) -> None:
    document = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ConfigManagementPlugin",
        "metadata": {"name": name},
        "spec": {"generate": {"command": generate}, **spec},
    }
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "plugin.yaml").write_text(json.dumps(document))


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    return tmp_path / "plugins"


@pytest.fixture
def repos(settings: RepoSettings, plugins: Path) -> Repositories:
    return Repositories(replace(settings, plugins_dir=plugins, tool_timeout=30.0))


async def render(
    repos: Repositories, origin: Origin, commit: str, path: str, plugin: dict[str, Any] | None
) -> tuple[str, bytes] | None:
    source = ApplicationSource(origin.url, path, "main", plugin=plugin)
    output = await render_plugin(
        repos, source, commit, field="spec.source", project="", build=build,
        declared=plugin is not None,
    )  # fmt: skip
    return None if output is None else (output.plugin, output.output)


async def test_discovery_by_glob_and_by_command_in_name_order(
    repos: Repositories, origin: Origin, plugins: Path
) -> None:
    write_plugin(plugins, "a-glob", ["echo", "glob"], discover={"find": {"glob": "**/deep.env"}})
    write_plugin(
        plugins, "b-command", ["echo", "command"],
        discover={"find": {"command": ["sh", "-c", "ls marker.txt 2>/dev/null || true"]}},
    )  # fmt: skip
    commit = origin.commit(
        files={"g/x/y/deep.env": "", "c/marker.txt": "", "n/cm.yaml": CONFIG_MAP}
    )

    assert await render(repos, origin, commit, "g", None) == ("a-glob", b"glob\n")
    assert await render(repos, origin, commit, "c", None) == ("b-command", b"command\n")
    assert await render(repos, origin, commit, "n", None) is None, "nothing matched"
    with pytest.raises(RenderError, match=r"spec\.source\.plugin: no plugin's discover rules"):
        await render(repos, origin, commit, "n", {})


async def test_a_source_no_plugin_can_take_costs_no_checkout(
    repos: Repositories, origin: Origin, plugins: Path
) -> None:
    write_plugin(plugins, "colour", ["echo", "x"], discover={"fileName": "*.colour"})
    commit = origin.commit(files={"plain/cm.yaml": CONFIG_MAP, "coloured/a.colour": ""})

    assert await render(repos, origin, commit, "plain", None) is None
    assert repos.stats.checkout == 0, "the commit's listing ruled the plugin out"
    assert await render(repos, origin, commit, "coloured", None) == ("colour", b"x\n")


async def test_execute_bits_are_kept_only_with_preserve_file_mode(
    repos: Repositories, origin: Origin, plugins: Path
) -> None:
    write_plugin(plugins, "strict", ["./gen.sh"])
    write_plugin(plugins, "keeps", ["./gen.sh"], preserveFileMode=True)
    origin.write({"app/gen.sh": f"#!/bin/sh\necho '{CONFIG_MAP}'\n"})
    os.chmod(origin.path / "app" / "gen.sh", 0o700)
    commit = origin.commit()

    assert await render(repos, origin, commit, "app", {"name": "keeps"}) == (
        "keeps", CONFIG_MAP.encode() + b"\n",
    )  # fmt: skip
    with pytest.raises(RenderError, match=r"plugin 'strict' generate \(gen\.sh\) could not start"):
        await render(repos, origin, commit, "app", {"name": "strict"})


async def test_what_a_plugin_writes_in_its_checkout_is_gone_at_the_next_render(
    repos: Repositories, origin: Origin, plugins: Path
) -> None:
    step = f"ls ../left.txt 2>/dev/null; echo dirty > ../left.txt; echo '{CONFIG_MAP}'"
    write_plugin(plugins, "litters", ["sh", "-c", step])
    commit = origin.commit(files={"app/x.txt": ""})

    first = await render(repos, origin, commit, "app", {"name": "litters"})
    second = await render(repos, origin, commit, "app", {"name": "litters"})

    assert first == second == ("litters", CONFIG_MAP.encode() + b"\n")
    assert not (origin.path / "left.txt").exists(), "the origin is never written"


async def test_lock_repo_runs_one_render_of_a_repository_at_a_time(
    repos: Repositories, origin: Origin, plugins: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "journal"
    step = f"echo start >> {journal}; sleep 0.2; echo end >> {journal}; echo '{CONFIG_MAP}'"
    write_plugin(plugins, "locked", ["sh", "-c", step], lockRepo=True)
    commit = origin.commit(files={"app/x.txt": ""})

    await asyncio.gather(
        *(render(repos, origin, commit, "app", {"name": "locked"}) for _ in range(3))
    )

    assert journal.read_text().split() == ["start", "end"] * 3


async def test_a_plugin_that_eats_memory_is_killed_at_the_cap(
    repos: Repositories, origin: Origin, plugins: Path
) -> None:
    hog = "import time; hog = b'x' * (512 << 20); time.sleep(60)"
    write_plugin(plugins, "hog", [sys.executable, "-c", hog])
    commit = origin.commit(files={"app/x.txt": ""})
    capped = Repositories(replace(repos.settings, max_render_memory=128 * MiB))

    with pytest.raises(LimitExceeded, match=r"plugin 'hog' generate .* its memory exceeded 128"):
        await render(capped, origin, commit, "app", {"name": "hog"})
