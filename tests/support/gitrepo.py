"""Real git repositories for tests, authored with GitPython.

`GitRepo.create(path)` makes a repository with a `main` branch; `commit({...})` writes,
changes or (with None) deletes files and commits them, returning the new commit SHA.
Its `url` is a `file://` URL that the render worker fetches like any remote.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
import yaml


@dataclass
class GitRepo:
    path: Path
    repo: git.Repo

    @classmethod
    def create(cls, path: Path) -> "GitRepo":
        path.mkdir(parents=True, exist_ok=True)
        repo = git.Repo.init(path, initial_branch="main")
        with repo.config_writer() as config:
            config.set_value("user", "name", "Sluice Test")
            config.set_value("user", "email", "test@sluice.invalid")
        return cls(path, repo)

    def close(self) -> None:
        """End GitPython's helper processes (it keeps `git cat-file` running between reads)."""
        self.repo.close()

    @property
    def url(self) -> str:
        return self.path.resolve().as_uri()

    @property
    def head(self) -> str:
        sha = self.repo.head.commit.hexsha
        self.repo.close()
        return sha

    def commit(self, files: Mapping[str, str | None], message: str = "change") -> str:
        """Write (or delete, for None) files relative to the root, commit, return the SHA."""
        added: list[str] = []
        removed: list[str] = []
        for name, text in files.items():
            target = self.path / name
            if text is None:
                if target.exists():
                    removed.append(name)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            added.append(name)
        if added:
            self.repo.index.add(added)
        if removed:
            self.repo.index.remove(removed, working_tree=True)
        sha = self.repo.index.commit(message).hexsha
        self.repo.close()
        return sha

    def tag(self, name: str) -> None:
        self.repo.create_tag(name)
        self.repo.close()


def manifests(*objects: Mapping[str, Any]) -> str:
    """Objects as one multi-document YAML string."""
    return yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False)
