"""Git repositories: resolving, fetching, confined checkouts, directory and Kustomize renders.

This package decides which commit an Application's source means, gets that commit into a
local cache once however many apps share it, and turns a plain directory of YAML/JSON at
that commit into named manifest files for the engine's manifest loader. It is the only
code that talks to Git servers, and everything it hands on has passed its path rules.

Decisions and why:

- Resolution follows Argo CD's ls-remote rules (revisions.py): SHA, HEAD, semver
  constraint over tags (constraints.py), full ref, branch, tag, short SHA; annotated tags
  are peeled to their commit. ls-remote lists only HEAD, branches and tags, so repositories
  with huge numbers of pull-request refs stay cheap.
- Sharing: concurrent callers share one ls-remote per repository, one fetch per
  (repository, commit), one listing per commit and one render per (repository, commit,
  path, options) (singleflight.py); listings and renders are then cached in memory, keyed
  by immutable commits, so 1,000 apps on one repository cost one fetch and cheap renders.
- Fetching (cached_repo.py): a bare cache per repository (urls.cache_key), exactly the
  wanted commit at depth 1 through a staging repository (a failed or oversized fetch
  leaves the cache untouched), fsck on, pack size capped, deadline on every git process
  (gitprocess.py). Only https, http, ssh and (if enabled) local repositories are accepted.
- Credentials come from Argo CD's repository Secrets and templates (credentials.py:
  which URL and project gets which), and every git command reaches its server through
  one `RepoAccess` (access.py: 0600 files removed after the command, git's per-URL
  config, strict ssh host keys and per-host CA bundles from trust.py, GitHub App tokens
  from githubapp.py); never in argv, the environment, logs or errors, and every message
  passes the redactor (redact.py). `Repositories.remote(url, project=…)` hands the same
  access to other renderers (Helm, OCI) for their HTTP calls.
- Paths (paths.py): one resolver for every path from an Application; `/` is the
  repository root, symlinks are followed confined to the repository, escapes are errors
  naming the field. Every commit is scanned for absolute or escaping symlinks (symlinks.py)
  before anything reads or checks it out; the scan and directory rendering work on the
  commit's listing (tree.py), so no file of an unchecked commit touches the disk.
- Directory sources (directory.py) follow Argo CD's walk: name order, recurse, hidden
  directories skipped, include/exclude globs with braces (globs.py), combined size cap
  before reading. Files are read straight from the object database, batched across apps
  (blobs.py): no checkout at all. Types are declared or discovered (sourcetype.py).
- Jsonnet files of a directory source (jsonnet.py) are evaluated by go-jsonnet in a child
  process (jsonnet_child.py) over a private checkout: imports confined to it, deadline,
  output and memory caps, the process group killed past any of them.
- Config Management Plugins (plugins/) run `init`/`generate` from a plugin.yaml in a
  throwaway checkout, with Argo CD's environment and nothing of the worker's.
- Work dirs for tool-based renderers (worktree.py) are random, 0700, and removed after.
- Git LFS (`enableLfs`): pointer files in directory renders and checkouts are replaced
  by their objects (lfs_files.py), downloaded once per cache by git-lfs with the same
  credentials and bounded by size (lfs_store.py, lfs_pointer.py); otherwise the pointer
  renders, as in Argo CD.
- Kustomize sources (kustomize.py) build in such a work dir: the Application's overrides
  merged into the kustomization (kustomize_edit.py), every reference checked to stay in
  the checkout and be local (kustomize_refs.py), the tool run through the same process
  runner as git (process.py: deadline, output cap, process-group kill).

Entry point: `service.Repositories`. Pure helpers other layers use: `urls.same_repo` and
`urls.match_key` (webhooks), `generate_paths` (manifest-generate-paths), `sourcehash`.
"""
