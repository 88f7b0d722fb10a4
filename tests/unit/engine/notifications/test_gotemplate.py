"""Message bodies in Go's template syntax: what Argo CD's catalog templates use."""

from typing import Any

import pytest

from app.engine.notifications.functions import HELPERS, EvalError
from app.engine.notifications.gotemplate import parse_template
from app.engine.notifications.template_functions import MAX_OUTPUT

DATA: dict[str, Any] = {
    "app": {
        "metadata": {"name": "gb", "namespace": "sluice"},
        "spec": {"source": {"repoURL": "https://example.com/r.git"}},
        "status": {
            "sync": {"status": "Synced", "revision": "abc"},
            "conditions": [{"type": "A", "message": "one"}, {"type": "B", "message": "two"}],
            "operationState": {"startedAt": "2026-01-02T10:05:00Z", "phase": "Succeeded"},
        },
    },
    "context": {"argocdUrl": "https://cd"},
    "serviceType": "slack",
    **HELPERS,
}


def render(source: str) -> str:
    return parse_template(source, "t").render(DATA)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("App {{.app.metadata.name}} is {{.app.status.sync.status}}.", "App gb is Synced."),
        ('{{if eq .serviceType "slack"}}:tada:{{else}}-{{end}}', ":tada:"),
        ('{{if eq .serviceType "email"}}e{{else if .context.argocdUrl}}u{{end}}', "u"),
        ('a {{- " b " -}} c', "a b c"),
        (
            "{{range $i, $c := .app.status.conditions}}{{if $i}}, {{end}}{{$c.type}}{{end}}",
            "A, B",
        ),
        ("{{range .app.status.conditions}}[{{.message}}]{{else}}none{{end}}", "[one][two]"),
        ("{{range .app.status.nothing}}x{{else}}none{{end}}", "none"),
        ("{{with .context}}{{.argocdUrl}}/{{$.app.metadata.name}}{{end}}", "https://cd/gb"),
        ("{{ .app.status.missing }}", "<no value>"),
        ("{{ .app.metadata.name | upper | quote }}", '"GB"'),
        ('{{ printf "%s-%d" .app.metadata.name 3 }}', "gb-3"),
        ('{{ default "none" .app.status.missing }}', "none"),
        ('{{ len .app.status.conditions }} {{ index .app.status.conditions 1 "type" }}', "2 B"),
        ("{{ toJson .app.status.sync }}", '{"revision":"abc","status":"Synced"}'),
        ("{{ $x := .app.metadata.name }}{{ $x }}{{/* a comment */}}", "gb"),
        (
            "{{ (call .time.Parse .app.status.operationState.startedAt)"
            '.Format "15:04 2006-01-02" }}',
            "10:05 2026-01-02",
        ),
        ('{{ call .strings.ReplaceAll .app.metadata.name "g" "G" }}', "Gb"),
        ('{{ and .app.metadata.name .serviceType }} {{ or .nothing "x" }}', "slack x"),
        ('{{ trimSuffix ".git" .app.spec.source.repoURL }}', "https://example.com/r"),
    ],
)
def test_templates_render_as_go_text_template_does(source: str, expected: str) -> None:
    assert render(source) == expected


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("{{if .x}}open", "unclosed if"),
        ("{{end}}", "'end' without if"),
        ('{{template "other"}}', "{{template}} is not supported"),
        ('{{ env "HOME" }}', "function 'env' is not supported"),
        ("line\n{{ .a | }}", "line 2: missing value"),
    ],
)
def test_what_cannot_be_parsed_is_refused_naming_the_line(source: str, problem: str) -> None:
    with pytest.raises(EvalError, match=problem.replace("{", r"\{").replace("}", r"\}")):
        parse_template(source, "t")


def test_a_field_of_a_string_is_an_error_not_a_python_attribute() -> None:
    with pytest.raises(EvalError, match="can't evaluate field upper"):
        render("{{ .app.metadata.name.upper }}")


def test_output_is_bounded() -> None:
    with pytest.raises(EvalError, match="output over"):
        render(f'{{{{ repeat {MAX_OUTPUT} "xx" }}}}')
    with pytest.raises(EvalError, match=r"steps|output over"):
        render("{{range 100000}}{{range 100000}}x{{end}}{{end}}")
