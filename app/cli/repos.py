"""`sluice repo …` and `sluice repocreds …`: Argo CD's `argocd repo`/`argocd repocreds` commands.

Secrets are read from files (`--ssh-private-key-path`, `--github-app-private-key-path`,
`--tls-client-cert-path`) or standard input (`--password-stdin`), never needed on the
command line; `--password` exists for Argo CD users' scripts, but anything on a command
line is visible in `ps`, so prefer `--password-stdin`. The server writes the Secrets and
never sends a secret back.
"""

import argparse
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from app.cli.client import OK, Api, CliError, add_connection_flags
from app.cli.output import add_output_flag, dump, say, table
from app.cli.running import runner

MAX_FILE_BYTES = 64 * 1024


def _read(path: str, what: str) -> str:
    try:
        data = Path(path).read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as e:
        raise CliError(f"{what}: cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise CliError(f"{what}: {path} is larger than {MAX_FILE_BYTES} bytes")
    return data.decode("utf-8", "replace")


def _creds_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    password = args.password
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    pairs = {
        "username": args.username,
        "password": password,
        "bearerToken": args.bearer_token,
        "proxy": args.proxy,
        "noProxy": args.no_proxy,
        "githubAppEnterpriseBaseUrl": args.github_app_enterprise_base_url,
        "type": args.type,
    }
    body.update({k: v for k, v in pairs.items() if v})
    files = {
        "sshPrivateKey": args.ssh_private_key_path,
        "tlsClientCertData": args.tls_client_cert_path,
        "tlsClientCertKey": args.tls_client_cert_key_path,
        "githubAppPrivateKey": args.github_app_private_key_path,
    }
    body.update({k: _read(v, f"--{k}") for k, v in files.items() if v})
    if args.github_app_id:
        body["githubAppID"] = args.github_app_id
    if args.github_app_installation_id:
        body["githubAppInstallationID"] = args.github_app_installation_id
    flags = {
        "insecure": args.insecure_skip_server_verification,
        "insecureIgnoreHostKey": args.insecure_ignore_host_key,
        "forceHttpBasicAuth": args.force_http_basic_auth,
        "enableLfs": args.enable_lfs,
        "enableOCI": args.enable_oci,
    }
    body.update({k: True for k, v in flags.items() if v})
    return body


def _repo_path(url: str, suffix: str = "") -> str:
    return f"/api/v1/repositories/{quote(url, safe='')}{suffix}"


def _state(repo: dict[str, Any]) -> tuple[str, str]:
    state = repo.get("connectionState") or {}
    return state.get("status", "Unknown"), state.get("message", "")


def _creds_kind(view: dict[str, Any]) -> str:
    return "true" if view.get("inheritedCreds") or any(
        view.get(k) for k in ("hasPassword", "hasBearerToken", "hasSshPrivateKey",
                              "hasTlsClientCert", "githubAppID")
    ) else "false"  # fmt: skip


async def add_repo(args: argparse.Namespace) -> int:
    body = _creds_body(args) | {"repo": args.url}
    if args.name:
        body["name"] = args.name
    if args.project:
        body["project"] = args.project
    query = {"upsert": "true"} if args.upsert else {}
    async with Api.from_args(args) as api:
        added = await api.call("POST", "/api/v1/repositories", query=query, body=body)
    status, message = _state(added)
    detail = f"{status}: {message}" if message else status
    say(f"Repository '{added['repo']}' added (connection: {detail})")
    return OK


def _refresh(args: argparse.Namespace) -> str:
    """`--refresh hard`: measure the connection state now instead of the cached one."""
    return "?forceRefresh=true" if args.refresh == "hard" else ""


async def list_repos(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/repositories" + _refresh(args)))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    rows = []
    for repo in items:
        status, message = _state(repo)
        rows.append((
            repo.get("type", "git"), repo.get("name", ""), repo["repo"],
            str(repo.get("insecure", False)).lower(), str(repo.get("enableOCI", False)).lower(),
            str(repo.get("enableLfs", False)).lower(), _creds_kind(repo), status, message,
            repo.get("project", ""),
        ))  # fmt: skip
    table(
        ("TYPE", "NAME", "REPO", "INSECURE", "OCI", "LFS", "CREDS", "STATUS", "MESSAGE", "PROJECT"),
        rows,
    )
    return OK


async def get_repo(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        repo = await api.call("GET", _repo_path(args.url) + _refresh(args))
    if args.output != "table":
        dump(repo, args.output)
        return OK
    status, message = _state(repo)
    table(
        ("TYPE", "NAME", "REPO", "PROJECT", "CREDS", "STATUS", "MESSAGE"),
        [(repo.get("type"), repo.get("name"), repo["repo"], repo.get("project"),
          _creds_kind(repo), status, message)],
    )  # fmt: skip
    return OK


async def rm_repo(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        for url in args.url:
            say((await api.call("DELETE", _repo_path(url)))["message"])
    return OK


async def add_repocreds(args: argparse.Namespace) -> int:
    body = _creds_body(args) | {"url": args.url}
    query = {"upsert": "true"} if args.upsert else {}
    async with Api.from_args(args) as api:
        added = await api.call("POST", "/api/v1/repocreds", query=query, body=body)
    say(f"Repository credentials for '{added['url']}' added")
    return OK


async def list_repocreds(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/repocreds"))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    rows = [
        (c["url"], c.get("username", ""), str(c.get("hasSshPrivateKey", False)).lower(),
         str(c.get("hasTlsClientCert", False)).lower(), str(bool(c.get("githubAppID"))).lower())
        for c in items
    ]  # fmt: skip
    table(("URL PATTERN", "USERNAME", "SSH_CREDS", "TLS_CREDS", "GITHUB_APP"), rows)
    return OK


async def rm_repocreds(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        for url in args.url:
            path = f"/api/v1/repocreds/{quote(url, safe='')}"
            say((await api.call("DELETE", path))["message"])
    return OK


def _credential_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--username", default="", help="HTTPS user")
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument("--password", default="", help="HTTPS password (visible in ps: prefer "
                        "--password-stdin)")  # fmt: skip
    secret.add_argument(
        "--password-stdin", action="store_true", help="read the password from stdin"
    )
    secret.add_argument("--bearer-token", default="", help="HTTPS bearer token")
    parser.add_argument("--ssh-private-key-path", default="", help="file with the ssh private key")
    parser.add_argument("--tls-client-cert-path", default="", help="client certificate (PEM)")
    parser.add_argument("--tls-client-cert-key-path", default="", help="client key (PEM)")
    parser.add_argument("--github-app-id", type=int, default=0, help="GitHub App ID")
    parser.add_argument("--github-app-installation-id", type=int, default=0)
    parser.add_argument("--github-app-private-key-path", default="", help="the App's key (PEM)")
    parser.add_argument("--github-app-enterprise-base-url", default="", help="GitHub Enterprise")
    parser.add_argument("--insecure-skip-server-verification", action="store_true",
                        help="do not verify the server's TLS certificate")  # fmt: skip
    parser.add_argument("--insecure-ignore-host-key", action="store_true",
                        help="ssh: do not check the server's host key")  # fmt: skip
    parser.add_argument("--force-http-basic-auth", action="store_true")
    parser.add_argument("--enable-lfs", action="store_true")
    parser.add_argument("--enable-oci", action="store_true")
    parser.add_argument("--proxy", default="", help="HTTP(S) proxy URL")
    parser.add_argument("--no-proxy", default="", help="hosts that bypass the proxy")
    parser.add_argument("--type", default="", choices=("", "git", "helm", "oci"))
    parser.add_argument("--upsert", action="store_true", help="replace an existing one")


def _parent(output: bool) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    add_connection_flags(parent)
    if output:
        add_output_flag(parent)
    return parent


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    common, plain = _parent(True), _parent(False)
    group = sub.add_parser("repo", help="manage repositories (like `argocd repo`)")
    commands = group.add_subparsers(dest="repo_command", metavar="COMMAND", required=True)
    add = commands.add_parser("add", help="register a repository", parents=[plain])
    add.add_argument("url")
    add.add_argument("--name", default="")
    add.add_argument("--project", default="", help="scope the repository to this project")
    _credential_flags(add)
    add.set_defaults(run=runner(add_repo))
    listing = commands.add_parser("list", help="repositories and their connection state",
                                  parents=[common])  # fmt: skip
    listing.set_defaults(run=runner(list_repos))
    get = commands.add_parser("get", help="one repository", parents=[common])
    get.add_argument("url")
    get.set_defaults(run=runner(get_repo))
    for parser in (listing, get):
        parser.add_argument(
            "--refresh", choices=("hard",), default="",
            help="check the connection now instead of answering from the cache (10 min)",
        )  # fmt: skip
    rm = commands.add_parser("rm", help="remove repositories", parents=[plain])
    rm.add_argument("url", nargs="+")
    rm.set_defaults(run=runner(rm_repo))

    creds = sub.add_parser("repocreds", help="manage credential templates (`argocd repocreds`)")
    creds_commands = creds.add_subparsers(dest="repocreds_command", metavar="COMMAND",
                                          required=True)  # fmt: skip
    add_creds = creds_commands.add_parser("add", help="add a template", parents=[plain])
    add_creds.add_argument("url", help="URL prefix the credentials apply to")
    _credential_flags(add_creds)
    add_creds.set_defaults(run=runner(add_repocreds))
    listing = creds_commands.add_parser("list", help="credential templates", parents=[common])
    listing.set_defaults(run=runner(list_repocreds))
    rm_creds = creds_commands.add_parser("rm", help="remove templates", parents=[plain])
    rm_creds.add_argument("url", nargs="+")
    rm_creds.set_defaults(run=runner(rm_repocreds))
