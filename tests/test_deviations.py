"""Issue 11: where the reference is wrong we are right on purpose, and say so.

Each deliberate deviation is asserted here, and docs/compat-deviations.json (read by
`shared/tools/compat-parity --deviations`) must cover exactly the fields a build changes.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from parity_kit import DEVIATIONS, explaining_rules, rewritten

from recipes_site.build import build, synthesis_context
from recipes_site.catalog import load_catalog
from recipes_site.cli import _rendering_text
from recipes_site.render.picker import _extras
from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis import render_strategy
from recipes_site.synthesis.shell import comment_text, heredoc

ROOT = Path(__file__).resolve().parents[1]
RULES = {rule["id"]: rule for rule in DEVIATIONS}
COMPAT = ROOT.parent / "shared" / "compat"  # beside the checkout, as conftest finds the corpus
PARITY = COMPAT.parent / "tools" / "compat-parity"
BASH = shutil.which("bash")


@pytest.fixture(scope="module")
def project():
    catalog, _ = load_catalog(ROOT)
    return catalog, synthesis_context(catalog)


def _recipe(project, hf_id: str) -> dict:
    return next(d for d in project[0].recipes if d.hf_id == hf_id).data


def _render(project, hf_id, strategy, hw="h200", variant="default", recipe=None):
    ctx = project[1]
    return render_strategy(
        ctx, recipe or _recipe(project, hf_id), variant, strategy, ctx.hardware(hw)
    )


# -- multi-node docker runs on the host network ----------------------------------------------------


def test_multi_node_processes_run_on_the_host_network(project):
    r = _render(project, "deepseek-ai/DeepSeek-V3.2", "multi_node_tp", hw="h100")
    assert r.deploy_type == "multi_node" and r.workers
    for p in (r.head, *r.workers):
        argv = list(p.docker_argv)
        assert argv[argv.index("--network") + 1] == "host" and "-p" not in argv
        assert "  --privileged --ipc=host --network host \\" in p.docker_command.splitlines()
    single = _render(project, "deepseek-ai/DeepSeek-V3.2", "single_node_tp", hw="h200").single
    assert "--network" not in single.docker_argv and "-p" in single.docker_argv


def test_pools_spanning_nodes_get_it_and_co_located_pools_do_not(project):
    spread = _render(project, "deepseek-ai/DeepSeek-V3.2", "pd_cluster", hw="h100")
    assert spread.prefill.nodes >= 2 and "--network" in spread.prefill.process.docker_argv
    shared = _render(project, "Qwen/Qwen3-8B", "pd_cluster", hw="h200")
    assert shared.prefill.nodes == 0 and "--network" not in shared.prefill.process.docker_argv


def test_tpu_keeps_the_one_host_network_flag_it_had(project):
    recipe = json.loads(json.dumps(_recipe(project, "Qwen/Qwen3-8B")))
    recipe["compatible_strategies"] = ["single_node_tp", "multi_node_tp"]
    recipe["meta"]["hardware"] = {"trillium": "supported"}
    r = _render(project, None, "multi_node_tp", hw="trillium", recipe=recipe)
    assert r.deploy_type == "multi_node"
    assert r.head.docker_argv.count("--network") == 1 and "-p" in r.head.docker_argv


# -- gated checkpoints get the host's HF_TOKEN ------------------------------------------------------


def test_gated_checkpoint_passes_hf_token_through_without_printing_it(project):
    r = _render(project, "meta-llama/Llama-3.1-8B-Instruct", "single_node_tp")
    argv = list(r.single.docker_argv)
    assert argv[argv.index("HF_TOKEN") - 1] == "-e"
    assert "  -e HF_TOKEN \\" in r.single.docker_command.splitlines()
    assert (
        "HF_TOKEN" not in r.single.command and "HF_TOKEN" not in r.env
    )  # serve form: the shell has it


def test_a_variant_serving_another_checkpoint_is_not_gated(project):
    recipe = _recipe(project, "meta-llama/Llama-3.1-8B-Instruct")
    other = next(
        k
        for k, v in recipe["variants"].items()
        if v.get("model_id") not in (None, recipe["model"]["model_id"])
    )
    r = _render(project, None, "single_node_tp", variant=other, recipe=recipe)
    assert "HF_TOKEN" not in r.single.docker_argv


def test_variant_gated_overrides_the_model(project):
    recipe = json.loads(json.dumps(_recipe(project, "Qwen/Qwen3-8B")))
    assert (
        "HF_TOKEN" not in _render(project, None, "single_node_tp", recipe=recipe).single.docker_argv
    )
    recipe["variants"]["fp8"]["gated"] = True
    assert (
        "HF_TOKEN"
        in _render(project, None, "single_node_tp", variant="fp8", recipe=recipe).single.docker_argv
    )


def test_gated_rule_lists_exactly_the_fields_gating_changes(project):
    """Render gated recipes with and without the flag: the rendering fields that differ, over
    every deploy type, are the rule's fields."""
    changed = set()
    for hf_id in ("meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct"):
        gated = _recipe(project, hf_id)
        plain = json.loads(json.dumps(gated))
        plain["model"]["gated"] = False
        for sid in (
            "single_node_tp",
            "multi_node_tp",
            "pd_cluster",
            "kv_store_centralized_mooncake",
        ):
            for hw in ("h100", "h200"):
                a = rendering_json(_render(project, None, sid, hw=hw, recipe=gated))
                b = rendering_json(_render(project, None, sid, hw=hw, recipe=plain))
                changed |= {k for k in a if a[k] != b.get(k)}
                for k in a:
                    if a[k] != b.get(k):  # the rule's rewrite of the ungated value is ours
                        assert rewritten(RULES["gated-model-hf-token"], b[k]) == a[k], (
                            hf_id,
                            sid,
                            k,
                        )
    assert changed and changed <= set(RULES["gated-model-hf-token"]["applies_to"])
    assert {
        "docker_command",
        "docker_argv",
        "head_docker_command",
        "vllm_docker_argv",
        "prefill",
    } <= changed


# -- the Mooncake config heredoc expands our variables, and only them --------------------------------


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_heredoc_expands_the_master_address_and_runs_nothing(tmp_path):
    config = {
        "master_server_address": "$MOONCAKE_MASTER_IP:50051",
        "device_name": "$MOONCAKE_DEVICE_NAME",
        "x": "$(touch pw1)",
        "y": "`touch pw2`",
        "z": "a\\b ${HOME} $((1+1)) $",
        "q": 'it\'s "q"',
    }
    text = heredoc("$MOONCAKE_CONFIG_PATH", config, "note line\n$(touch pw3)")
    assert "<<EOF\n" in text and "<<'EOF'" not in text
    env = {
        "PATH": "/usr/bin:/bin",
        "MOONCAKE_CONFIG_PATH": str(tmp_path / "mooncake.json"),
        "MOONCAKE_MASTER_IP": "10.1.2.3",
        "MOONCAKE_DEVICE_NAME": "mlx5_0",
        "HOME": "/root",
    }
    subprocess.run([BASH, "--noprofile", "--norc", "-c", text], cwd=tmp_path, env=env, check=True)
    written = json.loads((tmp_path / "mooncake.json").read_text())
    assert written == {**config, "master_server_address": "10.1.2.3:50051", "device_name": "mlx5_0"}
    assert not list(tmp_path.glob("pw*"))


def test_the_page_and_the_command_write_the_same_config_step(project):
    r = _render(project, "deepseek-ai/DeepSeek-V3.2", "kv_store_centralized_mooncake")
    page = next(e["text"] for e in _extras(r) if e["id"] == "mooncake-config")
    text = _rendering_text(r, docker=False)
    assert page in text
    assert text.index("cat > $MOONCAKE_CONFIG_PATH <<EOF") < text.index("mooncake_master")
    assert (
        "cat > $MOONCAKE_STORE_CONFIG_PATH <<EOF" in text
    )  # the store's own config, as on the page


def _reference_step(path_var: str, config: dict, note: str | None) -> str:
    """The config step as the reference writes it: the same lines, its delimiter quoted."""
    comments = "".join(f"# {comment_text(line)}\n" for line in (note or "").splitlines())
    body = json.dumps(config, indent=2, ensure_ascii=False)
    return f"{comments}cat > {path_var} <<'EOF'\n{body}\nEOF"


def test_the_heredoc_rule_rewrites_the_reference_step_into_ours(project):
    """The rule holds no API field, so compat-parity never applies its rewrite: applied here to
    every config step of the project's kv-store deployments and to hostile values."""
    rule, steps = RULES["mooncake-config-heredoc-expands"], []
    for sid in ("kv_store_centralized_mooncake", "kv_store_distributed_mooncake"):
        kv = _render(project, "deepseek-ai/DeepSeek-V3.2", sid).kv
        steps.append(("$MOONCAKE_CONFIG_PATH", kv.config, kv.config_note))
        if isinstance((kv.store or {}).get("config"), dict):
            steps.append(("$MOONCAKE_STORE_CONFIG_PATH", kv.store["config"], kv.store.get("note")))
    hostile = {"a": "$(touch pw) `x` a\\b ${HOME} $((1)) $ $lower", "q": 'it\'s "q"'}
    steps.append(("$MOONCAKE_CONFIG_PATH", hostile, "a note with $(x) `y` and a\\b"))
    assert len(steps) >= 4
    for path_var, config, note in steps:
        assert rewritten(rule, _reference_step(path_var, config, note)) == heredoc(
            path_var, config, note
        )


def test_every_rule_carries_a_rewrite():
    for rule in DEVIATIONS:
        assert rule.get("rewrite"), rule["id"]
        for pattern, replacement in rule["rewrite"]:
            re.compile(pattern)
            assert isinstance(replacement, str)


# -- the deviations file against a build of the public corpus ---------------------------------------


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory):
    if not (COMPAT / "corpus").is_dir() or not PARITY.is_file():
        pytest.skip("the public compat corpus is not present")
    out = tmp_path_factory.mktemp("compat") / "site"
    assert build(COMPAT / "corpus", out).ok
    return out


def test_the_file_covers_exactly_the_fields_the_build_changes(corpus_site):
    cache, changed, unexplained = {}, set(), []
    with gzip.open(COMPAT / "expected" / "renderings.jsonl.gz", "rt") as f:
        for line in f:
            row = json.loads(line)
            path = (
                corpus_site
                / "api"
                / "v1"
                / "models"
                / row["recipe"]
                / "hw"
                / f"{row['hardware']}.json"
            )
            if path not in cache:
                cache[path] = json.loads(path.read_text())
            doc = cache[path]
            key = (row["variant"], row["strategy"], row["node_count"])
            mine = next(
                r
                for r in doc["renderings"]
                if (r["variant"], r["strategy"], r["node_count"]) == key
            )
            diff = {k for k, v in row["expected"].items() if mine.get(k) != v}
            changed |= diff
            if explaining_rules(row["expected"], mine) is None:  # as --strict-deviations
                unexplained.append((row["recipe"], row["hardware"], key, sorted(diff)))
    assert unexplained == []
    assert changed == set(RULES["multi-node-host-network"]["fields"])  # no corpus recipe is gated


def test_parity_is_exact_modulo_the_documented_deviations(corpus_site):
    out = subprocess.run(
        [
            str(PARITY),
            str(corpus_site),
            "--deviations",
            str(ROOT / "docs" / "compat-deviations.json"),
            "--strict-deviations",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    text = "\n".join(out)
    assert "deviations counted only where their rewrites reproduce our value" in text
    assert "matched by field names only" not in text  # every rule has a rewrite
    assert out[-2].startswith("parity modulo documented deviations:") and out[-2].endswith(
        " 100.0%"
    )
    assert re.search(
        r"documented deviation multi-node-host-network: [1-9][0-9]* renderings", "\n".join(out)
    )
    assert "fields that differ most" not in "\n".join(out)
