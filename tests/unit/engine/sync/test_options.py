"""Sync options (SEMANTICS §3): parsing at both levels, problems reported, precedence."""

import pytest

from app.engine.sync.options import (
    DeleteMode,
    OptionScopes,
    Propagation,
    PruneMode,
    SyncOptions,
    parse_app_options,
    parse_resource_options,
)
from tests.unit.engine.sync.builders import obj

APP_CASES = [
    ("Validate=false", "validate", False),
    ("CreateNamespace=true", "create_namespace", True),
    ("ServerSideApply=true", "server_side_apply", True),
    ("ServerSideApply=false", "server_side_apply", False),
    ("Prune=false", "prune", PruneMode.DISABLED),
    ("Prune=confirm", "prune", PruneMode.CONFIRM),
    ("PruneLast=true", "prune_last", True),
    ("Replace=true", "replace", True),
    ("ApplyOutOfSyncOnly=true", "apply_out_of_sync_only", True),
    ("PrunePropagationPolicy=foreground", "prune_propagation_policy", Propagation.FOREGROUND),
    ("PrunePropagationPolicy=background", "prune_propagation_policy", Propagation.BACKGROUND),
    ("PrunePropagationPolicy=orphan", "prune_propagation_policy", Propagation.ORPHAN),
    ("FailOnSharedResource=true", "fail_on_shared_resource", True),
    ("RespectIgnoreDifferences=true", "respect_ignore_differences", True),
    ("Delete=false", "delete", DeleteMode.DISABLED),
    ("Delete=confirm", "delete", DeleteMode.CONFIRM),
    ("SkipDryRunOnMissingResource=true", "skip_dry_run_on_missing_resource", True),
]


@pytest.mark.parametrize(("text", "field", "value"), APP_CASES, ids=[c[0] for c in APP_CASES])
def test_app_option_is_parsed(text: str, field: str, value: object) -> None:
    parsed = parse_app_options([text])
    assert getattr(parsed, field) == value
    assert parsed.problems == ()


RESOURCE_CASES = [
    ("Validate=false", "validate", False),
    ("ServerSideApply=false", "server_side_apply", False),
    ("Prune=false", "prune", PruneMode.DISABLED),
    ("Prune=confirm", "prune", PruneMode.CONFIRM),
    ("PruneLast=true", "prune_last", True),
    ("Replace=true", "replace", True),
    ("Force=true", "force", True),
    ("Delete=false", "delete", DeleteMode.DISABLED),
    ("SkipDryRunOnMissingResource=true", "skip_dry_run_on_missing_resource", True),
]


@pytest.mark.parametrize(
    ("text", "field", "value"), RESOURCE_CASES, ids=[c[0] for c in RESOURCE_CASES]
)
def test_resource_option_is_parsed_from_the_csv_annotation(
    text: str, field: str, value: object
) -> None:
    parsed = parse_resource_options(obj("ConfigMap", "c", options=f" Validate=true , {text} "))
    assert getattr(parsed, field) == value
    assert parsed.problems == ()


PROBLEM_CASES = [
    ("unknown-key", ["Frobnicate=true"], "app", "unknown sync option 'Frobnicate=true'"),
    ("no-equals-sign", ["PruneLast"], "app", "unknown sync option 'PruneLast'"),
    ("wrong-case-value", ["Validate=False"], "app", "Validate takes true or false"),
    (
        "bad-propagation",
        ["PrunePropagationPolicy=Background"],
        "app",
        "foreground or background or orphan",
    ),
    ("force-at-app-level", ["Force=true"], "app", "annotation"),
    (
        "create-namespace-on-resource",
        "CreateNamespace=true",
        "resource",
        "spec.syncPolicy.syncOptions",
    ),
    (
        "propagation-on-resource",
        "PrunePropagationPolicy=orphan",
        "resource",
        "spec.syncPolicy.syncOptions",
    ),
]


@pytest.mark.parametrize(
    ("options", "level", "needle"),
    [c[1:] for c in PROBLEM_CASES],
    ids=[c[0] for c in PROBLEM_CASES],
)
def test_option_without_effect_is_kept_and_reported(
    options: object, level: str, needle: str
) -> None:
    if level == "app":
        assert isinstance(options, list)
        parsed = parse_app_options(options)
        where = "spec.syncPolicy.syncOptions[0]"
    else:
        assert isinstance(options, str)
        parsed = parse_resource_options(
            obj("ConfigMap", "c", options=options), "shop: /ConfigMap:shop/c"
        )
        where = "shop: /ConfigMap:shop/c: annotation argocd.argoproj.io/sync-options"
    assert len(parsed.unknown) == 1
    (problem,) = parsed.problems
    assert problem.startswith(where)
    assert needle in problem
    assert parsed == SyncOptions(unknown=parsed.unknown, problems=parsed.problems)


def test_prune_propagation_defaults_to_foreground() -> None:
    assert parse_app_options([]).propagation is Propagation.FOREGROUND


PRECEDENCE_CASES = [
    (
        "resource-ssa-false-overrides-app",
        ["ServerSideApply=true"],
        "ServerSideApply=false",
        None,
        "server_side_apply",
        False,
    ),
    ("resource-ssa-true-without-app", [], "ServerSideApply=true", None, "server_side_apply", True),
    (
        "app-ssa-applies-to-resources",
        ["ServerSideApply=true"],
        None,
        None,
        "server_side_apply",
        True,
    ),
    (
        "resource-replace-false-overrides-app",
        ["Replace=true"],
        "Replace=false",
        None,
        "replace",
        False,
    ),
    ("live-replace-true-counts", [], None, "Replace=true", "replace", True),
    ("live-force-counts", [], None, "Force=true", "force", True),
    ("validate-false-on-either-level", [], "Validate=false", None, "validate", False),
    ("validate-false-at-app-level", ["Validate=false"], None, None, "validate", False),
    ("validate-by-default", [], None, None, "validate", True),
    (
        "live-prune-false-overrides-app-default",
        ["Prune=confirm"],
        None,
        "Prune=false",
        "prune",
        PruneMode.DISABLED,
    ),
    ("app-prune-default", ["Prune=confirm"], None, None, "prune", PruneMode.CONFIRM),
    ("prune-by-default", [], None, None, "prune", PruneMode.ENABLED),
    ("prune-last-on-live-object", [], None, "PruneLast=true", "prune_last", True),
    ("prune-last-at-app-level", ["PruneLast=true"], None, None, "prune_last", True),
    (
        "skip-dry-run-on-target",
        [],
        "SkipDryRunOnMissingResource=true",
        None,
        "skip_dry_run_on_missing_resource",
        True,
    ),
]


@pytest.mark.parametrize(
    ("app_opts", "target_opts", "live_opts", "prop", "expected"),
    [c[1:] for c in PRECEDENCE_CASES],
    ids=[c[0] for c in PRECEDENCE_CASES],
)
def test_option_precedence(
    app_opts: list[str],
    target_opts: str | None,
    live_opts: str | None,
    prop: str,
    expected: object,
) -> None:
    scopes = OptionScopes(
        parse_app_options(app_opts),
        parse_resource_options(obj("Deployment", "d", options=target_opts)),
        parse_resource_options(obj("Deployment", "d", options=live_opts)),
    )
    assert getattr(scopes, prop) == expected
