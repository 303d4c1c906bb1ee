"""Cross-file rules of recipes_site.catalog.checks (strategies, hardware keys, feature modes, ids)."""

from __future__ import annotations

from pathlib import Path

import catalog_kit as kit
import pytest

from recipes_site.catalog import checks, load_catalog
from recipes_site.catalog.diagnostics import Diagnostic, Level, errors

REL = "acme/Widget-7B.yaml"
V = kit.VALID_RECIPE


def check(tmp_path: Path, text: str, rel: str = REL):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, rel, text)
    return load_catalog(root)[1]


def one(diags, key_path: str, level: Level = Level.ERROR) -> Diagnostic:
    found = [d for d in diags if d.key_path == key_path and d.level is level]
    assert len(found) == 1, [d.format() for d in diags]
    return found[0]


def add_variant_keys(text: str, extra: str) -> str:
    return kit.replace(
        text, '    description: "BF16 weights."\n', '    description: "BF16 weights."\n' + extra
    )


# ---- strategies -------------------------------------------------------------------------------------


def test_unknown_strategy_in_compatible_strategies(tmp_path):
    text = kit.replace(V, "  - single_node_tp\n", "  - single_node_tp\n  - single_node_tpp\n")
    diags = check(tmp_path, text)
    diag = one(diags, "compatible_strategies[1]")
    assert diag.message == "unknown strategy 'single_node_tpp'"
    assert diag.hint == "did you mean 'single_node_tp'?"
    assert diag.line == kit.line_of(text, "single_node_tpp")
    assert len(diags) == 1


def test_kv_store_ids_are_known_strategies(tmp_path):
    text = kit.replace(
        V, "  - single_node_tp\n", "  - single_node_tp\n  - kv_store_test\n  - pd_cluster\n"
    )
    assert check(tmp_path, text) == []


@pytest.mark.parametrize(
    "old, new, key_path",
    [
        (
            "strategy_overrides: {}\n",
            "strategy_overrides:\n  multi_node_tpx: {}\n",
            "strategy_overrides.multi_node_tpx",
        ),
        (
            "strategy_overrides: {}\n",
            "strategy_overrides: {}\ndefault_strategy: single_node\n",
            "default_strategy",
        ),
        (
            "strategy_overrides: {}\n",
            "strategy_overrides: {}\nstrategy_hardware:\n  multi_node: {h200: unsupported}\n",
            "strategy_hardware.multi_node",
        ),
        (
            '      - "--enable-auto-tool-choice"\n',
            '      - "--enable-auto-tool-choice"\n    strategies: [single_node_tq]\n',
            "features.tool_calling.strategies[0]",
        ),
    ],
)
def test_unknown_strategy_elsewhere(tmp_path, old, new, key_path):
    text = kit.replace(V, old, new)
    diag = one(check(tmp_path, text), key_path)
    assert diag.message.startswith("unknown strategy")
    assert diag.hint.startswith("did you mean")


def test_strategy_min_gpus_keys(tmp_path):
    good = V + "strategy_min_gpus: {single_node_tp: 8, multi_node_tp: 16, h100: 32}\n"
    assert check(tmp_path / "a", good) == []
    bad = V + "strategy_min_gpus: {single_nod_tp: 8}\n"
    diag = one(check(tmp_path / "b", bad), "strategy_min_gpus.single_nod_tp")
    assert diag.hint == "did you mean 'single_node_tp'?"


# ---- hardware keys ------------------------------------------------------------------------------------


def test_unknown_hardware_override_key_with_near_miss(tmp_path):
    text = kit.replace(
        V, "hardware_overrides: {}\n", 'hardware_overrides:\n  hoper:\n    extra_args: ["--x"]\n'
    )
    diags = check(tmp_path, text)
    diag = one(diags, "hardware_overrides.hoper")
    assert diag.message == "unknown hardware key 'hoper'"
    assert diag.hint == "did you mean 'hopper'?"
    assert (diag.line, diag.col) == (kit.line_of(text, "  hoper:"), 3)


def test_known_hardware_key_that_a_map_never_reads_is_a_warning(tmp_path):
    text = kit.replace(
        V,
        "hardware_overrides: {}\n",
        'hardware_overrides:\n  h200: {extra_args: ["--x"]}\n'
        '  amd: {extra_env: {A: "1"}}\n  nvidia: {}\n',
    )
    diags = check(tmp_path, text)
    diag = one(diags, "hardware_overrides.h200", Level.WARNING)
    assert diag.message == "hardware key 'h200' is ignored here"
    assert "generations and 'nvidia'" in diag.hint
    assert errors(diags) == []


def test_variant_hardware_keys(tmp_path):
    text = add_variant_keys(
        V,
        '    hardware_overrides:\n      h200: {extra_args: ["--a"]}\n'
        '      blackwell: {docker_image: "img"}\n      nvidia: {}\n'
        "      mi300: {extra_args: []}\n"
        "    tp: {h200: 2, amd: 4, default: 1, xeon: 2}\n",
    )
    diags = check(tmp_path, text)
    assert {d.key_path for d in errors(diags)} == {
        "variants.default.hardware_overrides.mi300",
        "variants.default.tp.xeon",
    }
    assert one(diags, "variants.default.hardware_overrides.mi300").hint == "did you mean 'mi300x'?"
    assert one(diags, "variants.default.tp.xeon").hint == "did you mean 'xeon6'?"


def test_strategy_and_role_hardware_keys(tmp_path):
    text = kit.replace(
        V,
        "strategy_overrides: {}\n",
        "strategy_overrides:\n  single_node_tp:\n    tp: {xeon6: 4}\n"
        "    hardware_overrides: {hopper: {extra_args: []}, blackwel: {}}\n"
        "  pd_cluster:\n    prefill:\n      hardware_overrides: {h300: {}}\n"
        "strategy_hardware:\n  multi_node_tp: {hopper: unsupported, b200: supported}\n",
    )
    diags = check(tmp_path, text)
    assert {d.key_path for d in errors(diags)} == {
        "strategy_overrides.single_node_tp.hardware_overrides.blackwel",
        "strategy_overrides.pd_cluster.prefill.hardware_overrides.h300",
    }


def test_exact_profile_ids(tmp_path):
    text = add_variant_keys(V, "    supported_hardware: [h200, h2000]\n")
    text += "hardware_opt_in_features:\n  b20: [tool_calling]\n"
    diags = check(tmp_path, text)
    diag = one(diags, "variants.default.supported_hardware[1]")
    assert diag.message == "supported hardware 'h2000' is not a hardware profile of the taxonomy"
    assert diag.hint == "did you mean 'h200'?"
    assert one(diags, "hardware_opt_in_features.b20").hint == "did you mean 'b200'?"


def test_precision_hardware_brand_is_checked_exactly(tmp_path):
    good = add_variant_keys(V, "    precision_hardware: {brand: NVIDIA, generation: hopper}\n")
    assert check(tmp_path / "a", good) == []
    bad = add_variant_keys(V, "    precision_hardware: {brand: Nvidia, generation: hoper}\n")
    diags = check(tmp_path / "b", bad)
    assert one(diags, "variants.default.precision_hardware.brand").hint == "did you mean 'NVIDIA'?"
    assert (
        one(diags, "variants.default.precision_hardware.generation").hint
        == "did you mean 'hopper'?"
    )


# ---- feature modes (REFERENCE-BEHAVIOUR §8.1, same wording) -----------------------------------------------

MODAL = """features:
  spec_decoding:
    description: "Speculative decoding."
    default_mode: mtp
    modes:
      mtp:
        label: "MTP"
        args: ["--speculative-config", '{"method":"mtp"}']
        variants: [default, fp8]
      eagle:
        label: "EAGLE"
        args: ["--speculative-config", '{"method":"eagle"}']
  tool_calling:
    description: "Tool calling."
    args:
      - "--enable-auto-tool-choice"
"""

TWO_VARIANTS = """variants:
  default:
    precision: bf16
    vram_minimum_gb: 16
  fp8:
    precision: fp8
    vram_minimum_gb: 8
"""


def modal_recipe(features: str = MODAL, variants: str = TWO_VARIANTS) -> str:
    head, rest = V.split("features:\n", 1)
    _, tail = rest.split("opt_in_features: []\n", 1)
    body, after = tail.split("compatible_strategies:\n", 1)
    return (
        head
        + features
        + "\nopt_in_features: []\n\n"
        + variants
        + "\ncompatible_strategies:\n"
        + after
    )


def test_valid_modal_feature(tmp_path):
    assert check(tmp_path, modal_recipe()) == []


def mode_errors(tmp_path, features=MODAL, variants=TWO_VARIANTS):
    text = modal_recipe(features, variants)
    return text, errors(check(tmp_path, text))


def test_rule1_modes_must_be_a_non_empty_map(tmp_path):
    for i, replacement in enumerate(["    modes: {}\n", "    modes: [mtp]\n", "    modes:\n"]):
        features = 'features:\n  spec_decoding:\n    description: "d"\n' + replacement
        text, errs = mode_errors(tmp_path / str(i), features)
        assert [d.message for d in errs] == ["features.spec_decoding.modes must be a non-empty map"]
        assert errs[0].key_path == "features.spec_decoding.modes"
        assert errs[0].line == kit.line_of(text, "    modes:")


def test_rule2_args_and_modes(tmp_path):
    features = kit.replace(
        MODAL, "    default_mode: mtp\n", '    default_mode: mtp\n    args: ["--x"]\n'
    )
    text, errs = mode_errors(tmp_path, features)
    assert [d.message for d in errs] == [
        "features.spec_decoding cannot declare both args and modes"
    ]
    assert errs[0].line == kit.line_of(text, '    args: ["--x"]')


def test_rule3_unknown_default_mode(tmp_path):
    features = kit.replace(MODAL, "    default_mode: mtp\n", "    default_mode: mpt\n")
    text, errs = mode_errors(tmp_path, features)
    assert [d.message for d in errs] == [
        "features.spec_decoding.default_mode references unknown mode mpt"
    ]
    assert errs[0].hint == "did you mean 'mtp'?"
    assert errs[0].key_path == "features.spec_decoding.default_mode"
    assert errs[0].line == kit.line_of(text, "default_mode: mpt")


def test_rule4_mode_args_must_be_an_array(tmp_path):
    features = kit.replace(
        MODAL,
        '        args: ["--speculative-config", \'{"method":"eagle"}\']\n',
        '        args: "--speculative-config"\n',
    )
    text, errs = mode_errors(tmp_path, features)
    assert [d.message for d in errs] == ["features.spec_decoding.modes.eagle.args must be an array"]
    assert errs[0].key_path == "features.spec_decoding.modes.eagle.args"
    assert errs[0].line == kit.line_of(text, 'args: "--speculative-config"')


def test_rule5_mode_variants(tmp_path):
    features = kit.replace(
        MODAL, "        variants: [default, fp8]\n", "        variants: [default, fp9]\n"
    )
    text, errs = mode_errors(tmp_path / "a", features)
    assert [d.message for d in errs] == [
        "features.spec_decoding.modes.mtp.variants references unknown variant fp9"
    ]
    assert errs[0].key_path == "features.spec_decoding.modes.mtp.variants[1]"
    assert errs[0].hint == "did you mean 'fp8'?"
    features = kit.replace(
        MODAL, "        variants: [default, fp8]\n", "        variants: default\n"
    )
    text, errs = mode_errors(tmp_path / "b", features)
    assert [d.message for d in errs] == [
        "features.spec_decoding.modes.mtp.variants must be an array"
    ]


def test_rule6_no_mode_for_a_variant(tmp_path):
    features = kit.replace(
        MODAL,
        '        args: ["--speculative-config", \'{"method":"eagle"}\']\n',
        '        args: ["--speculative-config", \'{"method":"eagle"}\']\n        variants: [default]\n',
    )
    text, errs = mode_errors(tmp_path, features)
    assert [d.message for d in errs] == []  # fp8 still has mtp
    features = kit.replace(
        features, "        variants: [default, fp8]\n", "        variants: [default]\n"
    )
    text, errs = mode_errors(tmp_path / "b", features)
    assert [d.message for d in errs] == [
        "features.spec_decoding has no mode available for variant fp8"
    ]
    assert errs[0].key_path == "features.spec_decoding.modes"


def test_rule7_variant_default_modes(tmp_path):
    variants = TWO_VARIANTS + (
        "    default_modes:\n      spec_decodin: mtp\n      tool_calling: x\n"
    )
    text, errs = mode_errors(tmp_path / "a", variants=variants)
    assert [d.message for d in errs] == [
        "variants.fp8.default_modes references unknown feature spec_decodin",
        "variants.fp8.default_modes references non-modal feature tool_calling",
    ]
    assert errs[0].hint == "did you mean 'spec_decoding'?"
    assert errs[0].key_path == "variants.fp8.default_modes.spec_decodin"
    variants = TWO_VARIANTS + "    default_modes:\n      spec_decoding: mpt\n"
    text, errs = mode_errors(tmp_path / "b", variants=variants)
    assert [d.message for d in errs] == [
        "variants.fp8.default_modes.spec_decoding references unknown mode mpt"
    ]
    features = kit.replace(
        MODAL, "        variants: [default, fp8]\n", "        variants: [default]\n"
    )
    variants = TWO_VARIANTS + "    default_modes:\n      spec_decoding: mtp\n"
    text, errs = mode_errors(tmp_path / "c", features, variants)
    assert [d.message for d in errs] == [
        "variants.fp8.default_modes.spec_decoding selects mode mtp, which is unavailable for that variant"
    ]
    assert errs[0].line == kit.line_of(text, "spec_decoding: mtp")


def test_flat_feature_hardware_gate_is_a_warning(tmp_path):
    text = kit.replace(
        V,
        '      - "--enable-auto-tool-choice"\n',
        '      - "--enable-auto-tool-choice"\n    hardware: {rtx_5090: unsupported}\n',
    )
    diags = check(tmp_path, text)
    diag = one(diags, "features.tool_calling.hardware", Level.WARNING)
    assert "ignored" in diag.message
    assert errors(diags) == []


# ---- model id vs path -----------------------------------------------------------------------------------


def test_model_id_differing_from_path_is_an_error(tmp_path):
    text = kit.replace(V, '  model_id: "acme/Widget-7B"\n', '  model_id: "acme/Gadget-7B"\n')
    diags = check(tmp_path, text)
    diag = one(diags, "model.model_id")
    assert diag.message == "model_id 'acme/Gadget-7B' does not match the file path 'acme/Widget-7B'"
    assert diag.line == kit.line_of(text, "model_id")


def test_model_id_differing_only_in_case_is_a_warning(tmp_path):
    text = kit.replace(V, '  model_id: "acme/Widget-7B"\n', '  model_id: "ACME/widget-7b"\n')
    diags = check(tmp_path, text)
    assert "only in letter case" in one(diags, "model.model_id", Level.WARNING).message
    assert errors(diags) == []


def test_default_checkpoint_may_differ_when_a_variant_serves_the_path(tmp_path):
    text = kit.replace(V, '  model_id: "acme/Widget-7B"\n', '  model_id: "acme/Widget-7B-FP8"\n')
    text = kit.replace(
        text,
        "compatible_strategies:\n",
        '  bf16:\n    model_id: "acme/Widget-7B"\n    precision: bf16\n    vram_minimum_gb: 16\n\n'
        "compatible_strategies:\n",
    )
    assert check(tmp_path, text) == []


# ---- warnings -------------------------------------------------------------------------------------------


def test_related_recipes_are_matched_case_insensitively(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(
        root,
        REL,
        kit.replace(
            V, "  related_recipes: []\n", "  related_recipes: [ACME/gizmo-1b, acme/Nothing]\n"
        ),
    )
    kit.write_recipe(
        root,
        "acme/Gizmo-1B.yaml",
        kit.replace(V, '  model_id: "acme/Widget-7B"\n', '  model_id: "acme/Gizmo-1B"\n'),
    )
    diags = load_catalog(root)[1]
    assert [d.key_path for d in diags] == ["meta.related_recipes[1]"]
    assert diags[0].level is Level.WARNING
    assert diags[0].message == "related recipe 'acme/Nothing' is not in this catalogue"


@pytest.mark.parametrize(
    "old, new, key_path, message, hint",
    [
        (
            "    h200: verified\n",
            "    h200: verified\n    a100: verified\n",
            "meta.hardware.a100",
            "meta.hardware entry 'a100' is not a hardware profile of the taxonomy",
            "did you mean 'h100'?",
        ),
        (
            "  difficulty: beginner\n",
            "  difficulty: hard\n",
            "meta.difficulty",
            "difficulty 'hard' is a legacy value",
            "use 'advanced'",
        ),
        (
            "opt_in_features: []\n",
            "opt_in_features: [tool_caling]\n",
            "opt_in_features[0]",
            "opt-in feature 'tool_caling' is not defined in features",
            "did you mean 'tool_calling'?",
        ),
        (
            "opt_in_features: []\n",
            "opt_in_features: []\nhardware_opt_in_features:\n  b200: [spec]\n",
            "hardware_opt_in_features.b200[0]",
            "opt-in feature 'spec' is not defined in features",
            "",
        ),
        (
            "  hardware:\n",
            "  default_hardware: h300\n  hardware:\n",
            "meta.default_hardware",
            "default hardware 'h300' is not a hardware profile of the taxonomy",
            "did you mean 'h200'?",
        ),
        (
            "  hardware:\n",
            "  platforms: [modall]\n  hardware:\n",
            "meta.platforms[0]",
            "platform 'modall' is not in platforms.yaml",
            "did you mean 'modal'?",
        ),
        (
            "strategy_overrides: {}\n",
            "strategy_overrides: {}\nkv_offload_support: {offloading_cpu: verified, lmcache: verified}\n",
            "kv_offload_support.lmcache",
            "unknown kv_offload option 'lmcache'",
            "",
        ),
        (
            "    vram_minimum_gb: 16\n",
            "    vram_minimum_gb: 40\n",
            "variants.default.vram_minimum_gb",
            "declares 40 GB but 7B parameters at bf16 need about 17 GB (ceil(params x bytes x 1.2)), 135% apart",
            "set vram_minimum_gb: 17, or correct model.parameter_count or the precision",
        ),
    ],
)
def test_warnings(tmp_path, old, new, key_path, message, hint):
    text = kit.replace(V, old, new)
    diags = check(tmp_path, text)
    assert errors(diags) == [], [d.format() for d in diags]
    diag = one(diags, key_path, Level.WARNING)
    assert diag.message == message
    assert diag.hint == hint


def test_declared_vram_within_15_percent_is_accepted(tmp_path):
    diags = check(
        tmp_path, kit.replace(V, "    vram_minimum_gb: 16\n", "    vram_minimum_gb: 19\n")
    )
    assert diags == [], [d.format() for d in diags]


def test_two_variants_serving_one_checkpoint_warn_at_the_later_one(tmp_path):
    text = add_variant_keys(
        V,
        '  fp8:\n    model_id: "acme/Widget-7B-FP8"\n    precision: fp8\n'
        '    vram_minimum_gb: 9\n    description: "FP8."\n'
        '  fp8_dynamic:\n    model_id: "acme/Widget-7B-FP8"\n    precision: fp8\n'
        '    vram_minimum_gb: 9\n    description: "FP8 again."\n',
    )
    diags = check(tmp_path, text)
    diag = one(diags, "variants.fp8_dynamic.model_id", Level.WARNING)
    assert diag.line == kit.line_of(
        text, 'model_id: "acme/Widget-7B-FP8"', kit.line_of(text, "fp8_dynamic:")
    )
    assert "both serve acme/Widget-7B-FP8" in diag.message


# ---- hook and shared files -------------------------------------------------------------------------------


def test_recipe_checks_hook(tmp_path, monkeypatch):
    seen = []

    def vram_warning(doc, catalog):
        seen.append(doc.hf_id)
        return [
            Diagnostic(
                doc.display_path,
                *doc.position(("variants", "default", "vram_minimum_gb")),
                Level.WARNING,
                "variants.default.vram_minimum_gb",
                "looks small",
            )
        ]

    monkeypatch.setattr(checks, "RECIPE_CHECKS", checks.RECIPE_CHECKS + [vram_warning])
    diags = check(tmp_path, V)
    assert seen == ["acme/Widget-7B"]
    assert [(d.message, d.line) for d in diags] == [
        ("looks small", kit.line_of(V, "vram_minimum_gb"))
    ]


def test_strategy_file_errors_name_their_own_file(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, REL, V)
    (root / "strategies" / "single_node_tp.yaml").write_text(
        "name: single_node_tp\ndeploy_type: single_nod\nvllm_arg: []\n", encoding="utf-8"
    )
    diags = load_catalog(root)[1]
    assert [(Path(d.path).name, d.line, d.key_path) for d in diags] == [
        ("single_node_tp.yaml", 2, "deploy_type"),
        ("single_node_tp.yaml", 3, "vllm_arg"),
    ]
    assert diags[0].hint == "did you mean 'single_node'?"
    assert diags[1].hint == "did you mean 'vllm_args'?"


def test_strategy_without_name(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, REL, V)
    (root / "strategies" / "single_node_tp.yaml").write_text(
        "deploy_type: single_node\n", encoding="utf-8"
    )
    catalog, diags = load_catalog(root)
    assert "single_node_tp" not in catalog.strategies
    assert {(Path(d.path).name, d.message) for d in errors(diags)} >= {
        ("single_node_tp.yaml", "missing required key 'name'")
    }
    # the recipe now names an unknown strategy
    assert any(d.key_path == "compatible_strategies[0]" for d in errors(diags))


def test_taxonomy_errors_name_the_taxonomy(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, REL, V)
    tax = root / "taxonomy.yaml"
    tax.write_text(
        kit.replace(
            tax.read_text(),
            "    gpu_count: 8\n    vram_gb: 640\n",
            '    gpu_count: "8"\n    vram_gb: 640\n',
        ),
        encoding="utf-8",
    )
    diags = load_catalog(root)[1]
    assert [(Path(d.path).name, d.key_path) for d in diags] == [
        ("taxonomy.yaml", "hardware_profiles.h100.gpu_count")
    ]


def test_a_crashing_check_becomes_an_error(tmp_path, monkeypatch):
    def broken(doc, catalog):
        raise KeyError("boom")

    monkeypatch.setattr(checks, "RECIPE_CHECKS", [broken])
    diags = check(tmp_path, V)
    assert [d.message for d in diags] == ["internal error in check broken: KeyError: 'boom'"]


def test_hardware_vocabulary_is_kept_per_catalog(tmp_path):
    """The profile ids, generations and brands are built once per catalog (catalog.index) for
    every recipe's hardware checks: a catalog with another taxonomy gets its own."""
    text = kit.replace(V, "  hardware:\n", "  default_hardware: h300\n  hardware:\n")
    diags = check(tmp_path / "first", text)
    assert one(diags, "meta.default_hardware", Level.WARNING).hint == "did you mean 'h200'?"
    root = kit.make_root(tmp_path / "second")
    taxonomy = root / "taxonomy.yaml"
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace("  h200:\n", "  h300:\n", 1), encoding="utf-8"
    )
    kit.write_recipe(root, REL, text.replace("    h200: verified\n", "    h300: verified\n"))
    catalog, diags = load_catalog(root)
    assert [d for d in diags if d.key_path == "meta.default_hardware"] == []
    assert "h300" in catalog.index.hardware_vocabulary.profiles
    assert catalog.index.hardware_vocabulary is catalog.index.hardware_vocabulary
