"""Monitoring of one deployment: Prometheus alert rules and a Grafana dashboard over vLLM's metrics.

Above plan.py: pure functions of a rendering and its plan. The rules watch what decides whether a
deployment keeps up (KV-cache usage, the waiting queue, preemptions, a stalled engine, missing
metrics); the dashboard shows those and the latencies (queue time, TTFT, time per output token)
and throughput (prompt and generation tokens/s). Every metric is vLLM 0.33.0's own, named as
Prometheus exposes it (`METRICS`, each with the line of vLLM's source that registers it), and
every threshold that is not a property of the metric comes from the deployment's plan: the KV
tokens an engine holds (`max_tokens`) and the KV-bounded concurrency (`concurrency`, requests of
the served length that fit at once). Each rule's `threshold` annotation says where its number
comes from.

The dashboard is the same for every rendering of a model but for the served name it opens on, and
a rules file differs from another of the same served name only in the plan's figures, each on a
short line of its own (`plan_*` annotations, the backlog rule's threshold line). A rules file is
made by filling a template of the served name (`rules_template`: YAML text parts with named slots)
with the plan's figures; a model's document (`document`) keeps the texts as lists of shared lines,
and `entry` joins one rendering's back, as the page does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import NamedTuple

import yaml

from recipes_site import fit, plan
from recipes_site.data import VLLM_VERSION, base_flag
from recipes_site.distinct import DistinctTable

LOGGERS = "vllm/v1/metrics/loggers.py"


class Metric(NamedTuple):
    """One vLLM metric: its registered name, Prometheus type, the series PromQL reads (a counter is
    exposed with `_total`, a histogram's buckets with `_bucket`: prometheus_client 0.26.0
    prometheus_client/metrics.py:363 and :661, the library vLLM registers them with,
    vllm/v1/metrics/loggers.py:9) and where vLLM 0.33.0 registers it."""

    name: str
    kind: str
    series: str
    source: str
    meaning: str


# Every metric is registered with the labels ["model_name", "engine"]
# (vllm/v1/metrics/loggers.py:499); `model_name` is the served model name
# (loggers.py:500: `--served-model-name`'s first value, else the model,
# vllm/config/model.py:2323-2334) and `engine` the engine index (loggers.py:503-505). Prometheus
# adds `instance` and `job` when it scrapes a server's /metrics
# (vllm/entrypoints/serve/instrumentator/metrics.py:77).
LABELS = ("model_name", "engine")
METRICS = {
    m.name: m
    for m in (
        Metric(
            "vllm:kv_cache_usage_perc",
            "gauge",
            "vllm:kv_cache_usage_perc",
            f"{LOGGERS}:619-623",
            "KV-cache usage of an engine; 1 means 100 percent",
        ),
        Metric(
            "vllm:num_requests_running",
            "gauge",
            "vllm:num_requests_running",
            f"{LOGGERS}:527-531",
            "requests in model execution batches",
        ),
        Metric(
            "vllm:num_requests_waiting",
            "gauge",
            "vllm:num_requests_waiting",
            f"{LOGGERS}:537-541",
            "requests waiting to be processed",
        ),
        Metric(
            "vllm:num_preemptions",
            "counter",
            "vllm:num_preemptions_total",
            f"{LOGGERS}:738-742",
            "cumulative preemptions by the engine",
        ),
        Metric(
            "vllm:prompt_tokens",
            "counter",
            "vllm:prompt_tokens_total",
            f"{LOGGERS}:747-751",
            "prefill tokens processed",
        ),
        Metric(
            "vllm:generation_tokens",
            "counter",
            "vllm:generation_tokens_total",
            f"{LOGGERS}:798-802",
            "generation tokens processed",
        ),
        Metric(
            "vllm:request_success",
            "counter",
            "vllm:request_success_total",
            f"{LOGGERS}:808-812",
            "finished requests, by `finished_reason` (an extra label)",
        ),
        Metric(
            "vllm:time_to_first_token_seconds",
            "histogram",
            "vllm:time_to_first_token_seconds_bucket",
            f"{LOGGERS}:930-935",
            "time to first token (TTFT)",
        ),
        Metric(
            "vllm:inter_token_latency_seconds",
            "histogram",
            "vllm:inter_token_latency_seconds_bucket",
            f"{LOGGERS}:940-945",
            "time between output tokens (time per output token, TPOT)",
        ),
        Metric(
            "vllm:request_queue_time_seconds",
            "histogram",
            "vllm:request_queue_time_seconds_bucket",
            f"{LOGGERS}:970-975",
            "time a request spent waiting (WAITING phase)",
        ),
        Metric(
            "vllm:e2e_request_latency_seconds",
            "histogram",
            "vllm:e2e_request_latency_seconds_bucket",
            f"{LOGGERS}:960-965",
            "end-to-end request latency",
        ),
    )
}

# "KV-cache usage. 1 means 100 percent usage." (loggers.py:621): above 90% new requests wait for
# blocks and the scheduler preempts running ones; the warning line of the issue (#27).
KV_WARNING = 0.9
SUSTAINED = "5m"  # how long a condition holds before its alert fires (and the rate window)
GRAFANA_SCHEMA_VERSION = 36  # the classic dashboard model's default (Grafana kinds/dashboard)

# libyaml's emitter when PyYAML has it (as catalog/yaml.py's loader): 7x faster than PyYAML's own,
# which pays ~8% of a build; tests/test_monitoring.py holds the two to the same text.
DUMPER = getattr(yaml, "CSafeDumper", None) or yaml.SafeDumper


class _Flow(dict):
    """A mapping the rules file writes on one line (`labels: {severity: warning}`)."""


def rules_dumper(base: type) -> type:
    """`base` (a PyYAML dumper) writing `_Flow` mappings on one line and a multi-line string as a
    literal block (`|-`: the backlog rule's expression keeps its threshold on a line of its own)."""
    dumper = type("RulesDumper", (base,), {})
    dumper.add_representer(  # type: ignore[attr-defined]
        _Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, True)
    )
    dumper.add_representer(  # type: ignore[attr-defined]
        str,
        lambda d, text: d.represent_scalar(
            "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
        ),
    )
    return dumper


_Dumper = rules_dumper(DUMPER)

# Slots of a rules template, filled per rendering from its plan (`slot_values`).
SLOTS = ("concurrency", "kv_tokens", "context")
_MARK = "\ue000"  # around a slot name in the dumped YAML; never in our text (see `promql_string`)


# -- what a rendering serves ------------------------------------------------------------------------


def served_model_name(argv) -> str | None:
    """The `model_name` label vLLM puts on every metric of a `vllm serve` argv: the first value of
    `--served-model-name`, else the model (vllm/config/model.py:2323-2334)."""
    tokens = list(argv)
    for i, token in enumerate(tokens):
        if token.startswith("--served") and base_flag(token) == "--served-model-name":
            _, eq, value = token.partition("=")
            if eq:
                return value or None
            if i + 1 < len(tokens) and base_flag(tokens[i + 1]) is None:
                return tokens[i + 1]
    for i, token in enumerate(tokens):
        if token.startswith("--model") and base_flag(token) == "--model":
            _, eq, value = token.partition("=")
            return value if eq else (tokens[i + 1] if i + 1 < len(tokens) else None)
    if len(tokens) > 2 and tokens[:2] == ["vllm", "serve"] and base_flag(tokens[2]) is None:
        return tokens[2]
    return None


def rendering_model_name(rendering, fallback: str) -> str:
    """The served name of a rendering's memory process (every process serves the same model)."""
    proc = fit.memory_process(rendering)
    return (served_model_name(proc.argv) if proc else None) or fallback


class Thresholds(NamedTuple):
    """The plan's figures the rules read: requests of `context` tokens that fit at once, and the
    tokens one engine's KV cache holds."""

    concurrency: int
    kv_tokens: int
    context: int


def thresholds(p: dict) -> Thresholds | None:
    """The thresholds of a published plan (plan.py); None when it has no KV figures or the command
    cannot start (nothing to watch against)."""
    figures = (p.get("concurrency"), p.get("max_tokens"), p.get("context_length"))
    if p.get("verdict") != plan.FITS or not all(isinstance(x, int) and x > 0 for x in figures):
        return None
    return Thresholds(*figures)  # type: ignore[arg-type]


def slot_values(t: Thresholds) -> dict[str, str]:
    """The slot texts of a rules template for thresholds `t`: the concurrency as PromQL reads it,
    the token counts as people read them."""
    return {
        "concurrency": str(t.concurrency),
        "kv_tokens": f"{t.kv_tokens:,}",
        "context": f"{t.context:,}",
    }


# -- PromQL -----------------------------------------------------------------------------------------


def promql_string(text: str) -> str:
    """`text` as a double-quoted PromQL string (Go escapes): printable ASCII as it is, `"` and `\\`
    escaped, anything else as \\uXXXX or \\UXXXXXXXX, so a hostile served name can neither close
    the string nor put a line break or a slot mark into the rules file."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _series(name: str, matchers: str) -> str:
    return f"{METRICS[name].series}{{{matchers}}}"


def _slot(name: str) -> str:
    return f"{_MARK}{name}{_MARK}"


# -- the rules --------------------------------------------------------------------------------------


def _rule(
    alert: str,
    expr: str,
    severity: str,
    summary: str,
    description: str,
    threshold: str,
    figures: tuple[str, ...] = (),
):
    """One alerting rule; `figures`: the plan's figures its threshold names, each an annotation
    `plan_<slot>` of its own (a short line of the file, the only lines that differ between the
    renderings of one template)."""
    shown = {"concurrency": "requests", "kv_tokens": "tokens", "context": "tokens"}
    return {
        "alert": alert,
        "expr": expr,
        "for": SUSTAINED,
        "labels": _Flow(severity=severity),
        "annotations": {
            "summary": summary,
            "description": description,
            "threshold": threshold,
            **{f"plan_{f}": f"{_slot(f)} {shown[f]}" for f in figures},
        },
    }


def rule_file(hf_id: str, model_name: str, planned: str | None) -> dict:
    """The rules file of a deployment serving `model_name` (a recipe of `hf_id`), as data. With a
    plan (`planned`: what it describes, `plan_scope`), the plan's figures stand as slot marks
    (`SLOTS`) in `plan_*` annotations and in the rule that reads the plan's concurrency."""
    with_plan = planned is not None
    m = "model_name=" + promql_string(model_name)
    per_server = "model_name, instance"
    kv = METRICS["vllm:kv_cache_usage_perc"]
    plan = f"the plan of {planned} for vLLM {VLLM_VERSION}"
    fits = (
        f"; {plan} fits plan_concurrency of plan_context at once (see VllmQueueBacklog)"
        if with_plan
        else ""
    )
    rules = [
        _rule(
            "VllmKvCacheNearlyFull",
            f"max by ({per_server}, engine) ({_series(kv.name, m)}) > {KV_WARNING}",
            "warning",
            "KV cache of {{ $labels.instance }} engine {{ $labels.engine }} is "
            "{{ $value | humanizePercentage }} full",
            "Out-of-memory risk: above 90% new requests wait for KV blocks and vLLM preempts "
            "running ones to free them.",
            f"{KV_WARNING} of the KV cache ({kv.name}: 1 means 100%, {kv.source})"
            + (f"; one engine holds plan_kv_tokens ({plan})" if with_plan else "")
            + ".",
            ("kv_tokens",) if with_plan else (),
        ),
        _rule(
            "VllmPreempting",
            f"sum by ({per_server}) (rate({_series('vllm:num_preemptions', m)}[{SUSTAINED}])) > 0",
            "warning",
            "{{ $labels.instance }} preempts {{ $value | humanize }} requests/s",
            "The KV cache ran out: vLLM preempted running requests and recomputes them later, "
            "so their latency grows.",
            f"any preemption, for {SUSTAINED}{fits}.",
        ),
        _rule(
            "VllmRequestsQueued",
            f"sum by ({per_server}) ({_series('vllm:num_requests_waiting', m)}) > 0",
            "warning",
            "{{ $value }} requests waiting on {{ $labels.instance }} for " + SUSTAINED,
            "The queue has not emptied: the server is at its concurrency limit "
            "(KV cache, --max-num-seqs or the token budget); add replicas or shorten requests.",
            f"more than 0 waiting, for {SUSTAINED}{fits}.",
        ),
    ]
    if with_plan:
        rules.append(
            _rule(
                "VllmQueueBacklog",
                f"sum by ({per_server}) ({_series('vllm:num_requests_waiting', m)})\n"
                f">= {_slot('concurrency')}",
                "critical",
                "{{ $value }} requests waiting on {{ $labels.instance }}: a whole batch",
                "As many requests wait as the KV cache holds at the served length: each waits "
                "for a full batch to finish. Add replicas.",
                f"plan_concurrency waiting: the KV-bounded concurrency of {plan} "
                "(plan_kv_tokens per engine hold plan_concurrency of plan_context).",
                ("concurrency", "kv_tokens", "context"),
            )
        )
    tokens = " + ".join(
        f"sum by ({per_server}) (rate({_series(name, m)}[{SUSTAINED}]))"
        for name in ("vllm:prompt_tokens", "vllm:generation_tokens")
    )
    rules += [
        _rule(
            "VllmEngineStalled",
            f"(sum by ({per_server}) ({_series('vllm:num_requests_running', m)}) > 0) "
            f"and on ({per_server}) ({tokens} == 0)",
            "critical",
            "{{ $labels.instance }} runs requests but processes no tokens",
            "Requests are running, yet no prompt or generation token was processed: the engine "
            "is stuck (a hung collective, a dead worker).",
            f"no token at all for {SUSTAINED} while requests run.",
        ),
        _rule(
            "VllmMetricsAbsent",
            f"absent({_series('vllm:num_requests_running', m)})",
            "critical",
            f"no vLLM metrics for {hf_id}",
            "No server of this deployment exposes metrics: it is down, still loading, or not "
            "scraped (vLLM serves them at /metrics on its API port).",
            f"no {METRICS['vllm:num_requests_running'].name} series for {SUSTAINED}.",
        ),
    ]
    return {"groups": [{"name": f"vllm {hf_id}", "rules": rules}]}


def rules_template(hf_id: str, model_name: str, planned: str | None) -> list[str]:
    """The rules file as YAML text parts: text at even indexes, a slot name (`SLOTS`) at odd ones."""
    head = (
        f"# Prometheus alert rules for {hf_id} on vLLM {VLLM_VERSION} (recipes-site).\n"
        "# Scrape every vLLM server's /metrics; rules group by `instance`.\n"
    )
    text = head + yaml.dump(
        rule_file(hf_id, model_name, planned),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 16,
    )
    return text.split(_MARK)


def fill(parts: list[str], values: dict[str, str]) -> str:
    """A rules template's text with its slots filled (site.js joins the same parts)."""
    return "".join(p if i % 2 == 0 else values[p] for i, p in enumerate(parts))


def plan_scope(rendering) -> str:
    """What a rendering's plan describes (plan.py: the decode pool of a disaggregated deployment,
    else the deployment), as the rules' thresholds name it."""
    return "this deployment's decode pool" if rendering.decode is not None else "this deployment"


def prometheus_rules(hf_id: str, rendering, p: dict) -> str:
    """The rules file of one rendering with plan `p` (its published default plan)."""
    t = thresholds(p)
    planned = plan_scope(rendering) if t else None
    parts = rules_template(hf_id, rendering_model_name(rendering, hf_id), planned)
    return fill(parts, slot_values(t) if t else {})


# -- the dashboard ----------------------------------------------------------------------------------

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
SELECT = 'model_name="$model_name", instance=~"$instance"'
WINDOW = "$__rate_interval"  # Grafana's rate window for the scrape interval


def _panel(
    n: int, title: str, description: str, unit: str, targets: list[tuple[str, str]], **defaults
) -> dict:
    return {
        "id": n + 1,
        "type": "timeseries",
        "title": title,
        "description": description,
        "gridPos": {"h": 8, "w": 12, "x": 12 * (n % 2), "y": 8 * (n // 2)},
        "datasource": DATASOURCE,
        "targets": [
            {"refId": chr(ord("A") + i), "expr": e, "legendFormat": f}
            for i, (e, f) in enumerate(targets)
        ],
        "fieldConfig": {"defaults": {"unit": unit, **defaults}, "overrides": []},
        "options": {},
    }


def _quantile(q: float, name: str) -> str:
    return (
        f"histogram_quantile({q}, sum by (le, instance) "
        f"(rate({METRICS[name].series}{{{SELECT}}}[{WINDOW}])))"
    )


def _rate(name: str, by: str = "instance") -> str:
    return f"sum by ({by}) (rate({METRICS[name].series}{{{SELECT}}}[{WINDOW}]))"


def _gauge(name: str, agg: str = "sum", by: str = "instance") -> str:
    return f"{agg} by ({by}) ({METRICS[name].series}{{{SELECT}}})"


def _cites(*names: str) -> str:
    return " ".join(f"{n}: {METRICS[n].source}." for n in names)


def _latency(n: int, title: str, what: str, name: str) -> dict:
    return _panel(
        n,
        title,
        f"p50 and p95 of the {what} per server. {_cites(name)}",
        "s",
        [
            (_quantile(0.5, name), "p50 {{instance}}"),
            (_quantile(0.95, name), "p95 {{instance}}"),
        ],
    )


def grafana_dashboard(hf_id: str, model_name: str) -> dict:
    """The Grafana dashboard (classic JSON model) of a recipe's deployments, opening on the served
    name `model_name` (its `model_name` variable lists every name Prometheus has)."""
    kv = "vllm:kv_cache_usage_perc"
    panels = [
        _panel(
            0,
            "KV cache usage",
            f"Per engine; the warning line is {KV_WARNING:.0%}, the alert rules' out-of-memory "
            f"risk signal. {_cites(kv)}",
            "percentunit",
            [(_gauge(kv, "max", "instance, engine"), "{{instance}} engine {{engine}}")],
            min=0,
            max=1,
            thresholds={
                "mode": "absolute",
                "steps": [{"color": "green", "value": None}, {"color": "red", "value": KV_WARNING}],
            },
            custom={"thresholdsStyle": {"mode": "line"}},
        ),
        _panel(
            1,
            "Requests running and waiting",
            "Running: in the batch; waiting: queued for KV blocks or a batch slot. "
            + _cites("vllm:num_requests_running", "vllm:num_requests_waiting"),
            "short",
            [
                (_gauge("vllm:num_requests_running"), "running {{instance}}"),
                (_gauge("vllm:num_requests_waiting"), "waiting {{instance}}"),
            ],
            min=0,
        ),
        _latency(
            2, "Queue time", "time requests wait before they run", "vllm:request_queue_time_seconds"
        ),
        _panel(
            3,
            "Tokens per second",
            "Prompt (prefill) and generation tokens processed per second. "
            + _cites("vllm:prompt_tokens", "vllm:generation_tokens"),
            "short",
            [
                (_rate("vllm:prompt_tokens"), "prompt {{instance}}"),
                (_rate("vllm:generation_tokens"), "generation {{instance}}"),
            ],
            min=0,
        ),
        _latency(
            4, "Time to first token", "time to first token", "vllm:time_to_first_token_seconds"
        ),
        _latency(
            5,
            "Time per output token",
            "time between output tokens (inter-token latency)",
            "vllm:inter_token_latency_seconds",
        ),
        _panel(
            6,
            "Preemptions per second",
            "Requests preempted because the KV cache ran out. " + _cites("vllm:num_preemptions"),
            "short",
            [(_rate("vllm:num_preemptions"), "{{instance}}")],
            min=0,
        ),
        _panel(
            7,
            "Finished requests per second",
            "By finish reason (stop, length, abort, ...). " + _cites("vllm:request_success"),
            "reqps",
            [(_rate("vllm:request_success", "finished_reason"), "{{finished_reason}}")],
            min=0,
        ),
        _latency(
            8,
            "End-to-end request latency",
            "whole request time",
            "vllm:e2e_request_latency_seconds",
        ),
    ]
    running = METRICS["vllm:num_requests_running"].series
    return {
        "uid": "vllm-" + hashlib.sha1(hf_id.encode()).hexdigest()[:12],
        "title": f"vLLM: {hf_id}",
        "description": f"vLLM {VLLM_VERSION} metrics of {hf_id} deployments (recipes-site).",
        "tags": ["vllm", "recipes-site"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": GRAFANA_SCHEMA_VERSION,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                    "hide": 0,
                },
                {
                    "name": "model_name",
                    "label": "Model",
                    "type": "query",
                    "datasource": DATASOURCE,
                    "query": f"label_values({running}, model_name)",
                    "refresh": 1,
                    "hide": 0,
                    "current": {"text": model_name, "value": model_name},
                },
                {
                    "name": "instance",
                    "label": "Server",
                    "type": "query",
                    "datasource": DATASOURCE,
                    "query": f'label_values({running}{{model_name="$model_name"}}, instance)',
                    "refresh": 2,
                    "hide": 0,
                    "multi": True,
                    "includeAll": True,
                    "allValue": ".*",
                    "current": {"text": "All", "value": "$__all"},
                },
            ]
        },
        "annotations": {"list": []},
        "links": [],
        "panels": panels,
    }


# -- the model's document ---------------------------------------------------------------------------


def opening_on(dashboard: dict, model_name: str) -> dict:
    """`dashboard` opening on the served name `model_name` (its `model_name` variable's current
    value): the dashboard of a rendering, from its model's."""
    variables = [
        {**v, "current": {"text": model_name, "value": model_name}}
        if v.get("name") == "model_name"
        else v
        for v in dashboard["templating"]["list"]
    ]
    return {**dashboard, "templating": {**dashboard["templating"], "list": variables}}


def document(hf_id: str, items: Iterable[tuple[str, object, dict]]) -> dict:
    """The monitoring document of a model from `(rendering key, rendering, default plan)` items.

    Each rendering names its rules file and its dashboard as indexes of `texts`, each text a list
    of indexes of `lines` (joined by newlines): the renderings of a model share most lines (a rules
    file differs from another of the same served name only in its plan figures, each on a short
    line; a dashboard from another only in its served name), so the document stays small while an
    entry stays whole for a reader who joins two lists (site.js does, `entry` here)."""
    lines, texts = DistinctTable(), DistinctTable()
    templates: dict[tuple[str, str | None], list[str]] = {}
    dashboards: dict[str, int] = {}
    text_of: dict[str, int] = {}
    base: dict | None = None
    renderings: dict[str, dict] = {}

    def text_index(text: str) -> int:
        found = text_of.get(text)
        if found is None:
            found = text_of[text] = texts.index(tuple(map(lines.index, text.split("\n"))))
        return found

    for key, rendering, p in items:
        name = rendering_model_name(rendering, hf_id)
        t = thresholds(p)
        which = (name, plan_scope(rendering) if t else None)
        if which not in templates:
            templates[which] = rules_template(hf_id, *which)
        if name not in dashboards:
            base = base or grafana_dashboard(hf_id, name)
            dashboards[name] = text_index(dashboard_text(opening_on(base, name)))
        renderings[key] = {
            "prometheus_rules": text_index(fill(templates[which], slot_values(t) if t else {})),
            "grafana_dashboard": dashboards[name],
        }
    return {
        "recipe": hf_id,
        "vllm_version": VLLM_VERSION,
        "lines": lines.items,
        "texts": [list(t) for t in texts.items],
        "renderings": renderings,
    }


def text(doc: dict, index: int) -> str:
    """Text `index` of a monitoring document."""
    return "\n".join(doc["lines"][j] for j in doc["texts"][index])


def entry(doc: dict, key: str) -> dict:
    """One rendering of a monitoring document, whole: `{"prometheus_rules": YAML text,
    "grafana_dashboard": object}`."""
    r = doc["renderings"][key]
    return {
        "prometheus_rules": text(doc, r["prometheus_rules"]),
        "grafana_dashboard": json.loads(text(doc, r["grafana_dashboard"])),
    }


def rendering_monitoring(hf_id: str, rendering, p: dict) -> dict:
    """`entry`'s answer for one rendering with plan `p`, computed alone (the CLI's)."""
    return {
        "prometheus_rules": prometheus_rules(hf_id, rendering, p),
        "grafana_dashboard": grafana_dashboard(hf_id, rendering_model_name(rendering, hf_id)),
    }


def dashboard_text(dashboard: dict) -> str:
    """The dashboard as a file to import into Grafana: a key per line, and one line per panel and
    per variable (the lines a model's dashboards share in its document)."""

    def one(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    def field(key: str, value) -> str:
        if key == "panels":
            return '  "panels": [\n    ' + ",\n    ".join(map(one, value)) + "\n  ]"
        if key == "templating":
            items = ",\n      ".join(map(one, value["list"]))
            return f'  "templating": {{\n    "list": [\n      {items}\n    ]\n  }}'
        return f"  {one(key)}: {one(value)}"

    return "{\n" + ",\n".join(field(k, v) for k, v in dashboard.items()) + "\n}\n"
