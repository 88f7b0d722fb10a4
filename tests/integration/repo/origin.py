"""Real Git repositories in temp dirs, built with the git binary, for the repository tests."""

import os
import subprocess
from pathlib import Path

_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Sluice Test",
    "GIT_AUTHOR_EMAIL": "test@sluice.invalid",
    "GIT_COMMITTER_NAME": "Sluice Test",
    "GIT_COMMITTER_EMAIL": "test@sluice.invalid",
    "PATH": os.environ.get("PATH", os.defpath),
    "HOME": os.devnull,
}


class Origin:
    """A non-bare repository standing in for a Git server (served over file://)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    @property
    def url(self) -> str:
        return f"file://{self.path}"

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=_ENV, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def write(self, files: dict[str, str]) -> None:
        for name, content in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)

    def link(self, name: str, target: str) -> None:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)

    def remove(self, *names: str) -> None:
        self.git("rm", "--quiet", "-r", *names)

    def commit(self, message: str = "change", files: dict[str, str] | None = None) -> str:
        if files:
            self.write(files)
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def tag(self, name: str, *, annotated: bool = False, at: str = "HEAD") -> None:
        if annotated:
            self.git("tag", "-a", name, "-m", f"release {name}", at)
        else:
            self.git("tag", name, at)

    def branch(self, name: str, at: str = "HEAD") -> None:
        self.git("branch", "--force", name, at)

    def rev(self, name: str) -> str:
        return self.git("rev-parse", f"{name}^{{commit}}")


def manifest(name: str, kind: str = "ConfigMap") -> str:
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n"
