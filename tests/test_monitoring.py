"""Monitoring: every bundled rendering's Prometheus rules and Grafana dashboard, checked against
a real PromQL parser (promql-parser), Prometheus' rule-file structure and Grafana's dashboard model
(tests/data/*.schema.json say where each is written from), and their thresholds against the plan."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import jsonschema
import promql_parser
import pytest
import yaml
from cli_kit import run
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from recipes_site import monitoring
from recipes_site.render.inputs import rendering_key
from recipes_site.synthesis.types import process, rendering

DATA = Path(__file__).parent / "data"
RULE_FILE_SCHEMA = json.loads((DATA / "prometheus-rule-file.schema.json").read_text())
DASHBOARD_SCHEMA = json.loads((DATA / "grafana-dashboard.schema.json").read_text())
RULE_FILE = jsonschema.Draft202012Validator(RULE_FILE_SCHEMA)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it: same result
# Labels an expression may read: vLLM's own (monitoring.LABELS), the histogram bucket bound `le`,
# request_success's `finished_reason`, and what Prometheus adds to every scraped series.
KNOWN_LABELS = {*monitoring.LABELS, "le", "finished_reason", "instance", "job"}
SERIES = {m.series for m in monitoring.METRICS.values()}


def key_of(hw: str, variant: str, strategy: str, node_count: int) -> str:
    """The key of a hardware document's entry (what inputs.rendering_key makes of its rendering)."""
    return f"{hw}/{variant}/{strategy}/{node_count}"


def _docs(site: Path) -> dict[Path, dict]:
    return {
        p: json.loads(p.read_text())
        for p in sorted((site / "api/v1/models").glob("*/*/monitoring.json"))
    }


@pytest.fixture(scope="module")
def site(project_site) -> Path:
    return project_site[0]


@pytest.fixture(scope="module")
def docs(site) -> dict[Path, dict]:
    found = _docs(site)
    assert found, "the build wrote no monitoring documents"
    return found


def _entries(docs):
    for path, doc in docs.items():
        for key in doc["renderings"]:
            yield path, doc, key, monitoring.entry(doc, key)


@cache
def _loaded(text: str) -> dict:
    """A rules file as Prometheus reads it (renderings with equal figures share their text)."""
    return yaml.load(text, Loader=LOADER)


def _selectors(expr: str) -> list:
    """Every vector selector of a parsed expression."""
    found: list = []

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)
        elif isinstance(node, promql_parser.MatrixSelector):
            found.append(node.vector_selector)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return found


def _grouping_labels(expr: str) -> set[str]:
    return {
        label.strip()
        for group in re.findall(r"\b(?:by|on) \(([^)]*)\)", expr)
        for label in group.split(",")
    }


@cache
def _check_expr(expr: str, model_name: str | None) -> None:
    """`expr` parses, reads only vLLM series as Prometheus exposes them, filters on the served
    name and groups by known labels."""
    selectors = _selectors(expr)
    assert selectors, expr
    for vs in selectors:
        assert vs.name in SERIES, f"{vs.name} is no vLLM 0.33.0 series we cite: {expr}"
        matchers = {m.name: m.value for m in vs.matchers.matchers}
        assert set(matchers) <= KNOWN_LABELS, expr
        if model_name is not None:
            assert matchers.get("model_name") == model_name, expr
    assert _grouping_labels(expr) <= KNOWN_LABELS, expr


# -- the rules files --------------------------------------------------------------------------------


def _hw_entries(path: Path):
    """(rendering key, published entry) of every rendering of a model's hardware documents."""
    for hw_path in sorted((path.parent / "hw").glob("*.json")):
        hw = json.loads(hw_path.read_text())
        for e in hw["renderings"]:
            yield key_of(hw["hardware"], e["variant"], e["strategy"], e["node_count"]), e


def _served(e: dict) -> str:
    """The served name of a published rendering, read from its memory process's argv."""
    argv = (e.get("decode") or {}).get("argv") or e.get("argv") or e.get("head_argv")
    return monitoring.served_model_name(argv or e.get("vllm_argv"))


def test_every_rendering_of_every_hardware_document_has_monitoring(site, docs):
    for path, doc in docs.items():
        keys = [key for key, _ in _hw_entries(path)]
        assert sorted(doc["renderings"]) == sorted(keys), path
        assert doc["recipe"] == str(path.parent.relative_to(site / "api/v1/models"))


@pytest.fixture(scope="module")
def published(docs) -> dict[Path, dict[str, dict]]:
    """Per monitoring document, its model's hardware-document entries by rendering key."""
    return {path: dict(_hw_entries(path)) for path in docs}


def test_every_rules_file_is_a_prometheus_rule_file_whose_expressions_parse(docs, published):
    checked, seen = 0, set()
    for path, _doc, key, found in _entries(docs):
        text = found["prometheus_rules"]
        if text in seen:
            continue
        seen.add(text)
        rules = _loaded(text)
        RULE_FILE.validate(rules)
        names = [g["name"] for g in rules["groups"]]
        assert len(names) == len(set(names)), key  # rulefmt: group names are unique in a file
        served = published[path][key]
        for group in rules["groups"]:
            for rule in group["rules"]:
                _check_expr(rule["expr"], _served(served))
                assert rule["labels"]["severity"] in ("warning", "critical")
                assert rule["annotations"]["threshold"], rule["alert"]
                # Prometheus expands annotations as Go templates: only the forms we write
                for annotation in rule["annotations"].values():
                    for action in re.findall(r"\{\{(.*?)\}\}", annotation):
                        assert action.strip() in {
                            "$labels.instance",
                            "$labels.engine",
                            "$value",
                            "$value | humanize",
                            "$value | humanizePercentage",
                        }, annotation
                    assert annotation.count("{{") == annotation.count("}}"), annotation
                # every plan figure a threshold names is an annotation of a rule of the file
                figures = {a for r in group["rules"] for a in r["annotations"]}
                for figure in re.findall(r"\bplan_\w+", rule["annotations"]["threshold"]):
                    assert figure in figures, (key, rule["alert"], figure)
        checked += 1
    assert checked > 100  # every distinct rules file of the bundled renderings


def test_thresholds_are_the_plans_figures(docs, published):
    """The backlog rule waits for the plan's concurrency; the annotations carry the plan's figures."""
    seen_plan = 0
    for path, doc in docs.items():
        for key, e in published[path].items():
            p = e["plan"]["default"]
            rules = {
                r["alert"]: r
                for r in _loaded(monitoring.entry(doc, key)["prometheus_rules"])["groups"][0][
                    "rules"
                ]
            }
            kv = rules["VllmKvCacheNearlyFull"]
            assert kv["expr"].endswith(f") > {monitoring.KV_WARNING}")
            if p.get("verdict") == "fits" and p.get("concurrency"):
                seen_plan += 1
                backlog = rules["VllmQueueBacklog"]
                assert backlog["expr"].endswith(f">= {p['concurrency']}"), key
                assert kv["annotations"]["plan_kv_tokens"] == f"{p['max_tokens']:,} tokens"
                notes = backlog["annotations"]
                assert notes["plan_concurrency"] == f"{p['concurrency']} requests"
                assert notes["plan_context"] == f"{p['context_length']:,} tokens"
            else:
                assert "VllmQueueBacklog" not in rules, key
                assert not any(
                    k.startswith("plan_") for r in rules.values() for k in r["annotations"]
                )
    assert seen_plan > 100


def test_no_slot_is_left_unfilled(docs):
    for path, doc in docs.items():
        assert not any("\ue000" in line for line in doc["lines"]), path


# -- the dashboard ----------------------------------------------------------------------------------

# What Grafana puts in place of the dashboard's variables before it sends a query.
GRAFANA_VARIABLES = {
    "$__rate_interval": "5m",
    "$model_name": "Qwen/Qwen3-8B",
    "$instance": ".*",
    "${datasource}": "prometheus",
}


def _as_grafana_sends(expr: str) -> str:
    for name, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(name, value)
    assert "$" not in expr, expr
    return expr


def _check_dashboard(dashboard: dict) -> None:
    jsonschema.validate(dashboard, DASHBOARD_SCHEMA)
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    cells = set()
    for panel in dashboard["panels"]:
        g = panel["gridPos"]
        assert g["x"] + g["w"] <= 24
        area = {
            (x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])
        }
        assert not cells & area, f"panel {panel['title']} overlaps another"
        cells |= area
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs))
        for target in panel["targets"]:
            _check_expr(_as_grafana_sends(target["expr"]), "Qwen/Qwen3-8B")
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    for name in ("model_name", "instance"):
        inner = re.fullmatch(r"label_values\((.*), (\w+)\)", variables[name]["query"])
        assert inner, variables[name]["query"]
        _check_expr(_as_grafana_sends(inner.group(1)), None)
        assert inner.group(2) == name


def test_every_dashboard_loads_against_grafanas_model_and_its_queries_parse(docs):
    seen = set()
    for _, doc, key, found in _entries(docs):
        index = doc["renderings"][key]["grafana_dashboard"]
        if (id(doc), index) not in seen:
            seen.add((id(doc), index))
            _check_dashboard(found["grafana_dashboard"])


def test_a_renderings_dashboard_opens_on_its_served_name(docs, published):
    for path, doc in docs.items():
        boards = set()
        for key, e in published[path].items():
            board = monitoring.entry(doc, key)["grafana_dashboard"]
            variables = {v["name"]: v for v in board["templating"]["list"]}
            assert variables["model_name"]["current"]["value"] == _served(e)
            boards.add(json.dumps(board["panels"]))
        assert len(boards) == 1, path  # one dashboard per model but for its served name


def test_the_dashboard_reads_every_metric_the_issue_names():
    board = monitoring.grafana_dashboard("acme/Tiny-1B", "acme/Tiny-1B")
    text = json.dumps(board)
    for series in (
        "vllm:kv_cache_usage_perc",
        "vllm:num_requests_waiting",
        "vllm:num_requests_running",
        "vllm:request_queue_time_seconds_bucket",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:time_to_first_token_seconds_bucket",
        "vllm:inter_token_latency_seconds_bucket",
        "vllm:num_preemptions_total",
    ):
        assert series in text, series
    assert "histogram_quantile(0.95" in text


# -- the metric names -------------------------------------------------------------------------------


def test_series_are_named_as_prometheus_client_exposes_vllms_metrics():
    """vLLM registers its metrics with prometheus_client (vllm/v1/metrics/loggers.py:9); the
    exposition of a metric of each kind, made the way vLLM makes it, holds the series we read."""
    registry = CollectorRegistry()
    kinds = {"gauge": Gauge, "counter": Counter, "histogram": Histogram}
    for m in monitoring.METRICS.values():
        metric = kinds[m.kind](
            m.name, m.meaning, labelnames=list(monitoring.LABELS), registry=registry
        )
        metric.labels("acme/Tiny-1B", "0")
    exposed = {
        line.split("{", 1)[0]
        for line in generate_latest(registry).decode().splitlines()
        if line and not line.startswith("#")
    }
    for m in monitoring.METRICS.values():
        assert m.series in exposed, (m.series, sorted(exposed))


@pytest.mark.skipif(
    not os.environ.get("VLLM_SRC"), reason="set VLLM_SRC to a vLLM 0.33.0 source tree"
)
def test_every_metric_is_registered_where_the_table_says():
    """With VLLM_SRC=<...>/vllm (the package folder of vLLM 0.33.0's source): each cited line range
    registers the metric under its name and with vLLM's labels."""
    root = Path(os.environ["VLLM_SRC"])
    for m in monitoring.METRICS.values():
        path, lines = m.source.split(":")
        first, last = (int(x) for x in lines.split("-"))
        text = (root / path.removeprefix("vllm/")).read_text().splitlines()[first - 1 : last]
        assert f'name="{m.name}",' in "\n".join(text), m
        kind = {"gauge": "_gauge_cls", "counter": "_counter_cls", "histogram": "_histogram_cls"}
        assert kind[m.kind] in text[0], m


# -- what a rendering serves, hostile names ---------------------------------------------------------


def _rendering(argv: tuple) -> object:
    proc = process(argv, " ".join(argv), {}, argv, " ".join(argv))
    return rendering("h100", "single_node_tp", "default", 1, "single_node", {}, None, single=proc)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("vllm", "serve", "acme/Tiny-1B", "--tensor-parallel-size", "2"), "acme/Tiny-1B"),
        (("vllm", "serve", "acme/Tiny-1B", "--served-model-name", "tiny", "t2"), "tiny"),
        (("vllm", "serve", "acme/Tiny-1B", "--served_model_name=tiny"), "tiny"),
        (("vllm", "serve", "--model", "acme/Tiny-1B"), "acme/Tiny-1B"),
    ],
)
def test_served_model_name_is_the_label_vllm_sets(argv, expected):
    assert monitoring.served_model_name(argv) == expected


@pytest.mark.parametrize(
    "name",
    ['a"b', "back\\slash", "{{ $labels.x }}", "line\nbreak", "é\u2028\ue000concurrency\ue000"],
)
def test_a_hostile_served_name_stays_a_label_value(name):
    """A recipe's --served-model-name cannot close the PromQL string, break the YAML, fill a slot
    or become a Go template: the matcher reads back exactly the name."""
    r = _rendering(("vllm", "serve", "acme/Tiny-1B", "--served-model-name", name))
    plan = {"verdict": "fits", "concurrency": 3, "max_tokens": 40000, "context_length": 8192}
    text = monitoring.prometheus_rules("acme/Tiny-1B", r, plan)
    rules = yaml.safe_load(text)
    jsonschema.validate(rules, RULE_FILE_SCHEMA)
    for rule in rules["groups"][0]["rules"]:
        for vs in _selectors(rule["expr"]):
            assert {m.name: m.value for m in vs.matchers.matchers}["model_name"] == name
        assert all(name not in a for a in rule["annotations"].values())
    doc = monitoring.document("acme/Tiny-1B", [("h100/default/single_node_tp/1", r, plan)])
    assert monitoring.entry(doc, "h100/default/single_node_tp/1")["prometheus_rules"] == text


def test_a_command_that_cannot_start_gets_rules_without_plan_thresholds():
    r = _rendering(("vllm", "serve", "acme/Tiny-1B"))
    text = monitoring.prometheus_rules("acme/Tiny-1B", r, {"verdict": "over", "gpus": 1})
    alerts = [x["alert"] for x in yaml.safe_load(text)["groups"][0]["rules"]]
    assert "VllmQueueBacklog" not in alerts and "VllmKvCacheNearlyFull" in alerts


def test_rendering_key_names_hardware_variant_strategy_and_nodes():
    r = _rendering(("vllm", "serve", "acme/Tiny-1B"))
    assert rendering_key("h100", r) == "h100/default/single_node_tp/1"


# -- the CLI ----------------------------------------------------------------------------------------


def test_command_monitoring_prints_what_the_api_publishes(site, tmp_path):
    doc = json.loads((site / "api/v1/models/Qwen/Qwen3-8B/monitoring.json").read_text())
    hw = json.loads((site / "api/v1/models/Qwen/Qwen3-8B/hw/h100.json").read_text())
    pick = hw["recommended"]["default"]
    key = key_of("h100", pick["variant"], pick["strategy"], pick["node_count"])
    out = tmp_path / "dashboard.json"
    r = run(
        "command", "Qwen/Qwen3-8B", "--hardware", "h100", "--monitoring", "--dashboard", str(out)
    )
    assert r.returncode == 0, r.stderr
    expected = monitoring.entry(doc, key)
    assert r.stdout == expected["prometheus_rules"]
    assert json.loads(out.read_text()) == expected["grafana_dashboard"]
    printed = run("command", "Qwen/Qwen3-8B", "--hardware", "h100", "--dashboard", "-")
    assert json.loads(printed.stdout) == expected["grafana_dashboard"]


@pytest.mark.skipif(not hasattr(yaml, "CSafeDumper"), reason="PyYAML built without libyaml")
@pytest.mark.parametrize("name", ["acme/Tiny-1B", 'it\'s "odd" \\ é \u2028', "x" * 300])
def test_libyaml_and_pyyaml_write_the_same_rules_file(name):
    """The build writes rules with libyaml's emitter where PyYAML has it (monitoring.DUMPER): a
    machine without it writes the same bytes."""
    for planned in ("this deployment", None):
        data = monitoring.rule_file("acme/Tiny-1B", name, planned)
        options = {"sort_keys": False, "allow_unicode": True, "width": 1 << 16}
        c = yaml.dump(data, Dumper=monitoring.rules_dumper(yaml.CSafeDumper), **options)
        assert c == yaml.dump(data, Dumper=monitoring.rules_dumper(yaml.SafeDumper), **options)
