"""Cross-file rules: references between a recipe and the taxonomy, strategies, other recipes,
and the feature-mode rules of the reference build.

Every rule reads the *plain data* defensively (a recipe with schema errors is still checked as far
as it can be), and reports at the key the problem is about.

``RECIPE_CHECKS`` is the list of per-recipe rules run by the loader; append a function
``(doc: RecipeDoc, catalog: Catalog) -> list[Diagnostic]`` to add one (e.g. a VRAM sizing warning).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from recipes_site import kv_cache, sizing
from recipes_site.catalog.diagnostics import Diagnostic, Level, Report
from recipes_site.catalog.documents import Catalog, RecipeDoc
from recipes_site.catalog.ids import id_problem
from recipes_site.catalog.index import (
    ALL_KINDS,
    BRAND,
    DEFAULT,
    EXACT,
    GEN,
    NVIDIA,
    HardwareVocabulary,
)
from recipes_site.catalog.schema_errors import did_you_mean
from recipes_site.catalog.shell_policy import check_recipe_shell
from recipes_site.catalog.shell_rules import check_shell_words
from recipes_site.catalog.text_rules import check_hidden_text
from recipes_site.catalog.types import HfConfig

RecipeCheck = Callable[[RecipeDoc, Catalog], "list[Diagnostic]"]


# ---- small helpers -------------------------------------------------------------------------------


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


_KIND_WORDS = {
    EXACT: "profile ids",
    GEN: "generations",
    NVIDIA: "'nvidia'",
    BRAND: "lowercase brands",
    DEFAULT: "'default'",
}


def _kinds_text(kinds) -> str:
    order = [EXACT, GEN, BRAND, NVIDIA, DEFAULT]
    words = [_KIND_WORDS[k] for k in order if k in kinds and not (k == NVIDIA and BRAND in kinds)]
    return ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1]


def check_hw_keys(
    report: Report, vocab: HardwareVocabulary, mapping: Any, path: tuple, kinds, where: str
) -> None:
    """Keys of a hardware-keyed map: unknown -> error; known but never looked up there -> warning."""
    if not vocab.known:
        return
    for key in _map(mapping):
        key_kinds = vocab.kinds_of(key)
        if not key_kinds:
            hint = did_you_mean(key, vocab.keys_for(kinds)) or did_you_mean(
                key, vocab.keys_for(ALL_KINDS)
            )
            report.error(
                path + (key,),
                f"unknown hardware key '{key}'",
                hint or f"{where} are keyed by {_kinds_text(kinds)}",
                at_key=True,
            )
        elif not (key_kinds & set(kinds)):
            report.warning(
                path + (key,),
                f"hardware key '{key}' is ignored here",
                f"{where} are looked up by {_kinds_text(kinds)}",
                at_key=True,
            )


def check_profile_id(
    report: Report,
    vocab: HardwareVocabulary,
    value: Any,
    path: tuple,
    level: Level,
    what: str,
    *,
    at_key: bool = False,
) -> None:
    if not vocab.known or not isinstance(value, str) or value in vocab.profiles:
        return
    report.add(
        level,
        path,
        f"{what} '{value}' is not a hardware profile of the taxonomy",
        did_you_mean(value, vocab.profiles),
        at_key=at_key,
    )


# ---- strategies ------------------------------------------------------------------------------------


def known_strategies(catalog: Catalog) -> list:
    return list(catalog.strategies) + [k for k in catalog.kv_stores if k not in catalog.strategies]


def _check_strategy_ref(
    report: Report, known: list, value: Any, path: tuple, *, at_key: bool = False
) -> None:
    if not known or not isinstance(value, str) or value in known:
        return
    report.error(
        path,
        f"unknown strategy '{value}'",
        did_you_mean(value, known) or "known strategies: " + ", ".join(known),
        at_key=at_key,
    )


def check_strategy_references(doc: RecipeDoc, catalog: Catalog) -> list:
    report = doc.report()
    known = known_strategies(catalog)
    data = doc.data
    if not known:
        return report.items
    for i, sid in enumerate(_list(data.get("compatible_strategies"))):
        _check_strategy_ref(report, known, sid, ("compatible_strategies", i))
    _check_strategy_ref(report, known, data.get("default_strategy"), ("default_strategy",))
    for sid in _map(data.get("strategy_overrides")):
        _check_strategy_ref(report, known, sid, ("strategy_overrides", sid), at_key=True)
    for sid in _map(data.get("strategy_hardware")):
        _check_strategy_ref(report, known, sid, ("strategy_hardware", sid), at_key=True)
    for fname, feature in _map(data.get("features")).items():
        for i, sid in enumerate(_list(_map(feature).get("strategies"))):
            _check_strategy_ref(report, known, sid, ("features", fname, "strategies", i))
    kv_ids = list(catalog.kv_stores)
    for kid in _map(data.get("kv_cache_strategy_hardware")):
        if kv_ids and isinstance(kid, str) and kid not in kv_ids:
            report.error(
                ("kv_cache_strategy_hardware", kid),
                f"unknown kv-store strategy '{kid}'",
                did_you_mean(kid, kv_ids) or "known kv-store strategies: " + ", ".join(kv_ids),
                at_key=True,
            )
    # strategy_min_gpus: strategy ids (or their shape suffix) and exact profile ids
    min_gpus = data.get("strategy_min_gpus")
    if isinstance(min_gpus, dict):
        vocab = catalog.index.hardware_vocabulary
        suffixes = {s.split("_node_", 1)[1] for s in known if "_node_" in s}
        strategy_keys = set(known) | suffixes
        for key, value in min_gpus.items():
            path = ("strategy_min_gpus", key)
            if key in strategy_keys:
                if isinstance(value, dict):
                    report.error(path, "expected an integer for a strategy key, got a mapping")
                continue
            if vocab.known and key in vocab.profiles:
                for skey in _map(value):
                    if skey not in strategy_keys:
                        report.error(
                            path + (skey,),
                            f"unknown strategy '{skey}'",
                            did_you_mean(skey, sorted(strategy_keys)),
                            at_key=True,
                        )
                continue
            if vocab.known or key not in strategy_keys:
                report.error(
                    path,
                    f"unknown key '{key}': expected a strategy id or a hardware profile id",
                    did_you_mean(key, list(strategy_keys) + list(vocab.profiles)),
                    at_key=True,
                )
    return report.items


# ---- hardware references ---------------------------------------------------------------------------


def check_hardware_references(doc: RecipeDoc, catalog: Catalog) -> list:
    vocab = catalog.index.hardware_vocabulary
    report = doc.report()
    if not vocab.known:
        return report.items
    data = doc.data
    meta = _map(data.get("meta"))

    for hw in _map(meta.get("hardware")):
        check_profile_id(
            report,
            vocab,
            hw,
            ("meta", "hardware", hw),
            Level.WARNING,
            "meta.hardware entry",
            at_key=True,
        )
    check_profile_id(
        report,
        vocab,
        meta.get("default_hardware"),
        ("meta", "default_hardware"),
        Level.WARNING,
        "default hardware",
    )

    check_hw_keys(
        report,
        vocab,
        data.get("hardware_overrides"),
        ("hardware_overrides",),
        {GEN, NVIDIA},
        "recipe hardware_overrides",
    )
    for vkey, variant in _map(data.get("variants")).items():
        variant = _map(variant)
        base = ("variants", vkey)
        check_hw_keys(
            report,
            vocab,
            variant.get("hardware_overrides"),
            base + ("hardware_overrides",),
            {EXACT, GEN, NVIDIA},
            "variant hardware_overrides",
        )
        if isinstance(variant.get("tp"), dict):
            check_hw_keys(
                report,
                vocab,
                variant["tp"],
                base + ("tp",),
                {EXACT, GEN, BRAND, DEFAULT},
                "tp maps",
            )
        for i, hw in enumerate(_list(variant.get("supported_hardware"))):
            check_profile_id(
                report,
                vocab,
                hw,
                base + ("supported_hardware", i),
                Level.ERROR,
                "supported hardware",
            )
        ph = _map(variant.get("precision_hardware"))
        brand = ph.get("brand")
        if isinstance(brand, str) and vocab.brands and brand not in vocab.brands:
            report.error(
                base + ("precision_hardware", "brand"),
                f"unknown brand '{brand}'",
                did_you_mean(brand, sorted(vocab.brands))
                or "brands: " + ", ".join(sorted(vocab.brands)),
            )
        gen = ph.get("generation")
        if isinstance(gen, str) and gen not in vocab.generations:
            report.error(
                base + ("precision_hardware", "generation"),
                f"unknown generation '{gen}'",
                did_you_mean(gen, sorted(vocab.generations)),
            )

    for fname, feature in _map(data.get("features")).items():
        feature = _map(feature)
        base = ("features", fname)
        check_hw_keys(
            report,
            vocab,
            feature.get("hardware_overrides"),
            base + ("hardware_overrides",),
            {GEN, NVIDIA},
            "feature hardware_overrides",
        )
        if "hardware" in feature and "modes" not in feature:
            report.warning(
                base + ("hardware",),
                "a hardware gate on a feature without modes is ignored",
                "the feature is still enabled there; gate modes instead, or use opt_in_features",
                at_key=True,
            )
        elif isinstance(feature.get("hardware"), dict):
            check_hw_keys(
                report,
                vocab,
                feature["hardware"],
                base + ("hardware",),
                {EXACT, GEN},
                "feature hardware gates",
            )
        for mname, mode in _map(feature.get("modes")).items():
            mode = _map(mode)
            mbase = base + ("modes", mname)
            check_hw_keys(
                report,
                vocab,
                mode.get("hardware"),
                mbase + ("hardware",),
                {EXACT, GEN},
                "mode hardware gates",
            )
            check_hw_keys(
                report,
                vocab,
                mode.get("hardware_overrides"),
                mbase + ("hardware_overrides",),
                {EXACT, GEN, BRAND, DEFAULT},
                "mode hardware_overrides",
            )

    for sid, block in _map(data.get("strategy_overrides")).items():
        block = _map(block)
        base = ("strategy_overrides", sid)
        check_hw_keys(
            report,
            vocab,
            block.get("hardware_overrides"),
            base + ("hardware_overrides",),
            {EXACT, GEN, NVIDIA},
            "strategy hardware_overrides",
        )
        if isinstance(block.get("tp"), dict):
            check_hw_keys(
                report, vocab, block["tp"], base + ("tp",), {EXACT, GEN, BRAND, DEFAULT}, "tp maps"
            )
        for role in ("prefill", "decode"):
            rblock = _map(block.get(role))
            check_hw_keys(
                report,
                vocab,
                rblock.get("hardware_overrides"),
                base + (role, "hardware_overrides"),
                {EXACT},
                "role hardware_overrides",
            )
            if isinstance(rblock.get("nodes"), dict):
                check_hw_keys(
                    report, vocab, rblock["nodes"], base + (role, "nodes"), ALL_KINDS, "nodes maps"
                )

    for sid, gates in _map(data.get("strategy_hardware")).items():
        check_hw_keys(
            report,
            vocab,
            gates,
            ("strategy_hardware", sid),
            {EXACT, GEN, BRAND, DEFAULT},
            "strategy_hardware entries",
        )
    for kid, gates in _map(data.get("kv_cache_strategy_hardware")).items():
        for hw in _map(gates):
            check_profile_id(
                report,
                vocab,
                hw,
                ("kv_cache_strategy_hardware", kid, hw),
                Level.ERROR,
                "hardware",
                at_key=True,
            )
    for hw in _map(data.get("hardware_opt_in_features")):
        check_profile_id(
            report,
            vocab,
            hw,
            ("hardware_opt_in_features", hw),
            Level.ERROR,
            "hardware",
            at_key=True,
        )
    for hw in _map(data.get("hardware_notes")):
        check_profile_id(
            report, vocab, hw, ("hardware_notes", hw), Level.WARNING, "hardware", at_key=True
        )
    for i, task in enumerate(_list(_map(data.get("omni")).get("tasks"))):
        for hw in _map(_map(task).get("hardware_overrides")):
            check_profile_id(
                report,
                vocab,
                hw,
                ("omni", "tasks", i, "hardware_overrides", hw),
                Level.WARNING,
                "hardware",
                at_key=True,
            )
    for i, dep in enumerate(_list(data.get("dependencies"))):
        brand = _map(dep).get("brand")
        if isinstance(brand, str) and vocab.brands and brand not in vocab.brands:
            report.warning(
                ("dependencies", i, "brand"),
                f"unknown brand '{brand}'",
                did_you_mean(brand, sorted(vocab.brands)),
            )
    return report.items


# ---- feature modes (the reference build's own checks, same wording) ------------------------------------


def _mode_variants(mode: Any) -> list | None:
    """The variant allowlist of a mode: None = every variant."""
    variants = _map(mode).get("variants")
    return variants if isinstance(variants, list) and variants else None


def feature_mode_problems(data: dict) -> list[tuple[tuple, str, str, bool]]:
    """(key path, message, hint, at_key) for every feature-mode problem of a recipe."""
    problems: list[tuple[tuple, str, str, bool]] = []
    features = _map(data.get("features"))
    variants = _map(data.get("variants"))
    modal: dict[str, dict] = {}

    for fname, feature in features.items():
        if not isinstance(feature, dict):
            continue
        base = ("features", fname)
        modes = feature.get("modes")
        if "modes" in feature:
            if not isinstance(modes, dict) or not modes:
                problems.append(
                    (
                        base + ("modes",),
                        f"features.{fname}.modes must be a non-empty map",
                        "give at least one mode: modes: {<name>: {args: [...]}}",
                        True,
                    )
                )
            else:
                modal[fname] = modes
            if feature.get("args") is not None:
                problems.append(
                    (
                        base + ("args",),
                        f"features.{fname} cannot declare both args and modes",
                        "move the args into a mode, or drop modes",
                        True,
                    )
                )
        default_mode = feature.get("default_mode")
        if (
            default_mode is not None
            and ("modes" in feature)
            and fname in modal
            and default_mode not in modal[fname]
        ):
            problems.append(
                (
                    base + ("default_mode",),
                    f"features.{fname}.default_mode references unknown mode {default_mode}",
                    did_you_mean(default_mode, list(modal[fname])),
                    False,
                )
            )
        elif default_mode is not None and "modes" not in feature:
            problems.append(
                (
                    base + ("default_mode",),
                    f"features.{fname}.default_mode references unknown mode {default_mode}",
                    "the feature has no modes",
                    False,
                )
            )
        for mname, mode in (modal.get(fname) or {}).items():
            if not isinstance(mode, dict):
                continue
            mbase = base + ("modes", mname)
            if "args" in mode and not isinstance(mode["args"], list):
                problems.append(
                    (
                        mbase + ("args",),
                        f"features.{fname}.modes.{mname}.args must be an array",
                        "write it as a YAML list",
                        False,
                    )
                )
            if "variants" in mode:
                mvars = mode["variants"]
                if not isinstance(mvars, list):
                    problems.append(
                        (
                            mbase + ("variants",),
                            f"features.{fname}.modes.{mname}.variants must be an array",
                            "write it as a YAML list of variant keys",
                            False,
                        )
                    )
                else:
                    for i, vkey in enumerate(mvars):
                        if vkey not in variants:
                            problems.append(
                                (
                                    mbase + ("variants", i),
                                    f"features.{fname}.modes.{mname}.variants references unknown variant {vkey}",
                                    did_you_mean(vkey, list(variants)),
                                    False,
                                )
                            )
        if fname in modal:
            for vkey in variants:
                available = [
                    m
                    for m, mode in modal[fname].items()
                    if (listed := _mode_variants(mode)) is None or vkey in listed
                ]
                if not available:
                    problems.append(
                        (
                            base + ("modes",),
                            f"features.{fname} has no mode available for variant {vkey}",
                            f"add '{vkey}' to the variants list of a mode",
                            True,
                        )
                    )

    for vkey, variant in variants.items():
        default_modes = _map(variant).get("default_modes") if isinstance(variant, dict) else None
        for fname, mname in _map(default_modes).items():
            path = ("variants", vkey, "default_modes", fname)
            if fname not in features:
                problems.append(
                    (
                        path,
                        f"variants.{vkey}.default_modes references unknown feature {fname}",
                        did_you_mean(fname, list(features)),
                        True,
                    )
                )
            elif fname not in modal:
                problems.append(
                    (
                        path,
                        f"variants.{vkey}.default_modes references non-modal feature {fname}",
                        "only features with modes can have a default mode",
                        True,
                    )
                )
            elif mname not in modal[fname]:
                problems.append(
                    (
                        path,
                        f"variants.{vkey}.default_modes.{fname} references unknown mode {mname}",
                        did_you_mean(mname, list(modal[fname])),
                        False,
                    )
                )
            else:
                allowed = _mode_variants(modal[fname][mname])
                if allowed is not None and vkey not in allowed:
                    problems.append(
                        (
                            path,
                            f"variants.{vkey}.default_modes.{fname} selects mode {mname}, "
                            "which is unavailable for that variant",
                            f"add '{vkey}' to features.{fname}.modes.{mname}.variants",
                            False,
                        )
                    )
    return problems


def feature_mode_suppressions(data: dict) -> set:
    """Key paths where the feature-mode rules already explain a type problem."""
    return {path for path, *_ in feature_mode_problems(data)}


def check_feature_modes(doc: RecipeDoc, catalog: Catalog) -> list:
    report = doc.report()
    for path, message, hint, at_key in feature_mode_problems(doc.data):
        report.error(path, message, hint, at_key=at_key)
    return report.items


# ---- references inside the recipe and to other recipes -------------------------------------------------


def check_recipe_references(doc: RecipeDoc, catalog: Catalog) -> list:
    report = doc.report()
    data = doc.data
    meta = _map(data.get("meta"))
    features = _map(data.get("features"))

    if meta.get("difficulty") == "hard":
        report.warning(
            ("meta", "difficulty"), "difficulty 'hard' is a legacy value", "use 'advanced'"
        )

    index = (
        catalog.index
    )  # built once per catalog: no per-recipe scan of every id (catalog/index.py)
    for i, rid in enumerate(_list(meta.get("related_recipes"))):
        if (
            isinstance(rid, str) and rid.lower() not in index.ids_lower and not id_problem(rid)
        ):  # else: a schema error
            close = index.names.close(rid, cutoff=0.92)
            report.warning(
                ("meta", "related_recipes", i),
                f"related recipe '{rid}' is not in this catalogue",
                f"did you mean '{close[0]}'?" if close else "",
            )

    platforms = _list(_map(catalog.platforms).get("platforms")) if catalog.platforms else []
    platform_ids = [p.get("id") for p in platforms if isinstance(p, dict)]
    if catalog.platforms is not None:
        for i, entry in enumerate(_list(meta.get("platforms"))):
            pid = entry if isinstance(entry, str) else _map(entry).get("id")
            if isinstance(pid, str) and pid not in platform_ids:
                report.warning(
                    ("meta", "platforms", i),
                    f"platform '{pid}' is not in platforms.yaml",
                    did_you_mean(pid, platform_ids),
                )

    for i, fname in enumerate(_list(data.get("opt_in_features"))):
        if isinstance(fname, str) and fname not in features:
            report.warning(
                ("opt_in_features", i),
                f"opt-in feature '{fname}' is not defined in features",
                did_you_mean(fname, list(features)),
            )
    for hw, names in _map(data.get("hardware_opt_in_features")).items():
        for i, fname in enumerate(_list(names)):
            if isinstance(fname, str) and fname not in features:
                report.warning(
                    ("hardware_opt_in_features", hw, i),
                    f"opt-in feature '{fname}' is not defined in features",
                    did_you_mean(fname, list(features)),
                )

    kv_options = _map(_map(catalog.taxonomy).get("kv_offload"))
    if kv_options:
        for option in _map(data.get("kv_offload_support")):
            if option not in kv_options:
                report.warning(
                    ("kv_offload_support", option),
                    f"unknown kv_offload option '{option}'",
                    did_you_mean(option, list(kv_options)),
                    at_key=True,
                )

    for vkey, variant in _map(data.get("variants")).items():
        mid = _map(variant).get("model_id")
        if isinstance(mid, str) and "/" not in mid and not id_problem(mid):
            report.warning(
                ("variants", vkey, "model_id"),
                f"variant model_id '{mid}' has no '<org>/' part",
                "it will not get a page of its own; write the full Hugging Face id",
            )
    return report.items


# ---- model id vs path ------------------------------------------------------------------------------------


def check_model_id(doc: RecipeDoc, catalog: Catalog) -> list:
    """The file path names the checkpoint; model.model_id must serve it (a default variant may serve
    another checkpoint of the family as long as some variant serves the path's one)."""
    report = doc.report()
    if doc.hf_id.count("/") != 1 or not _is_standard_location(doc.rel_path):
        return report.items
    model_id = _map(doc.data.get("model")).get("model_id")
    if not isinstance(model_id, str) or model_id == doc.hf_id or id_problem(model_id):
        return report.items  # (an id outside the grammar is a schema error already)
    path_id = doc.hf_id
    if model_id.lower() == path_id.lower():
        report.warning(
            ("model", "model_id"),
            f"model_id '{model_id}' differs from the file path '{path_id}' only in letter case",
            f"rename the file or write '{path_id}'",
        )
        return report.items
    variant_ids = [_map(v).get("model_id") for v in _map(doc.data.get("variants")).values()]
    if path_id in variant_ids:
        return report.items
    if any(isinstance(v, str) and v.lower() == path_id.lower() for v in variant_ids):
        report.warning(
            ("model", "model_id"),
            f"the variant serving '{path_id}' spells it with other letter case",
            f"write '{path_id}'",
        )
        return report.items
    report.error(
        ("model", "model_id"),
        f"model_id '{model_id}' does not match the file path '{path_id}'",
        f"move the file to models/{model_id}.yaml, or fix model_id",
    )
    return report.items


def _is_standard_location(rel_path: str) -> bool:
    parts = rel_path.split("/")
    return len(parts) == 3 and parts[0] == "models" and parts[2].endswith((".yaml", ".yml"))


# ---- required structure the schema cannot express ---------------------------------------------------------


def check_structure(doc: RecipeDoc, catalog: Catalog) -> list:
    report = doc.report()
    variants = doc.data.get("variants")
    if isinstance(variants, dict) and "default" not in variants:
        report.error(
            ("variants",),
            "missing required variant 'default'",
            did_you_mean("default", list(variants)) or "every recipe needs variants.default",
            at_key=True,
        )
    return report.items


def check_declared_vram(doc: RecipeDoc, catalog: Catalog) -> list:
    """`vram_minimum_gb` more than 15% away from ceil(params x bytes x 1.2) is probably a typo
    (or a variant serving a checkpoint whose size `model.parameter_count` does not describe)."""
    report = doc.report()
    for key, variant in _map(doc.data.get("variants")).items():
        computed, declared = sizing.variant_weights_gb(doc.data, _map(variant))
        gap = sizing.declared_mismatch(declared, computed)
        if gap is not None and gap > sizing.MISMATCH_TOLERANCE:
            params = _map(doc.data.get("model")).get("parameter_count")
            report.warning(
                ("variants", key, "vram_minimum_gb"),
                f"declares {declared} GB but {params} parameters at {_map(variant).get('precision')} "
                f"need about {computed} GB (ceil(params x bytes x 1.2)), {gap:.0%} apart",
                f"set vram_minimum_gb: {computed}, or correct model.parameter_count or the precision",
            )
    return report.items


def check_shared_checkpoints(doc: RecipeDoc, catalog: Catalog) -> list:
    """Two variants serving the same checkpoint: the site publishes it once, with the last one's commands."""
    report = doc.report()
    seen: dict = {}
    for key, variant in _map(doc.data.get("variants")).items():
        mid = _map(variant).get("model_id")
        if isinstance(mid, str) and "/" in mid:
            if mid in seen:
                report.warning(
                    ("variants", key, "model_id"),
                    f"variants '{seen[mid]}' and '{key}' both serve {mid}; its page and API "
                    f"entry show only the commands of '{key}'",
                    "give each variant its own checkpoint, or merge the two variants",
                )
            else:
                seen[mid] = key
    return report.items


# ---- model.hf_config (KV-cache sizing facts) -------------------------------------------------------------


def _pos_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _declared_tps(data: dict):
    """(key path, TP size) of every TP size a recipe pins."""

    def values(path, tp):
        if isinstance(tp, dict):
            for key, value in tp.items():
                yield path + (key,), value
        elif tp is not None:
            yield path, tp

    for vkey, variant in _map(data.get("variants")).items():
        yield from values(("variants", vkey, "tp"), _map(variant).get("tp"))
    for sid, block in _map(data.get("strategy_overrides")).items():
        yield from values(("strategy_overrides", sid, "tp"), _map(block).get("tp"))
        for role in ("prefill", "decode"):
            yield from values(
                ("strategy_overrides", sid, role, "tp"), _map(_map(block).get(role)).get("tp")
            )


def _whole_node_tp_hardware(data: dict, catalog: Catalog) -> dict:
    """(TP size, multi-node?) -> profiles where a command would use every GPU as its TP size: one
    node when the weights exceed one GPU (the auto-fit rule) or TEP is offered, two nodes (the
    default node count) when a multi-node TP/TEP strategy is offered."""
    meta_hw = _map(_map(data.get("meta")).get("hardware"))
    strategies = _list(data.get("compatible_strategies"))
    needs: dict = {}
    for hw_id, profile in catalog.hardware_profiles().items():
        profile = _map(profile)
        if meta_hw.get(hw_id) == "unsupported" or (
            profile.get("restricted") and hw_id not in meta_hw
        ):
            continue
        gpus = _pos_int(profile.get("gpu_count"))
        if gpus is None:
            continue
        per_gpu = (profile.get("vram_gb") or 0) / gpus
        oversized = any(
            isinstance(_map(v).get("vram_minimum_gb"), (int, float))
            and _map(v)["vram_minimum_gb"] > per_gpu
            for v in _map(data.get("variants")).values()
        )
        if gpus > 1 and (oversized or "single_node_tep" in strategies):
            needs.setdefault((gpus, False), []).append(hw_id)
        if profile.get("scalable") is not False and {"multi_node_tp", "multi_node_tep"} & set(
            strategies
        ):
            needs.setdefault((2 * gpus, True), []).append(hw_id)
    return needs


def check_hf_config(doc: RecipeDoc, catalog: Catalog) -> list:
    """`model.hf_config`: unknown keys, values contradicting the recipe, facts KV sizing lacks, and
    tensor-parallel sizes the model's attention heads do not allow."""
    report = doc.report()
    data = doc.data
    model = _map(data.get("model"))
    cfg = model.get("hf_config")
    if not isinstance(cfg, dict):
        return report.items
    base = ("model", "hf_config")
    known = list(HfConfig.model_fields)
    for key in cfg:
        if key not in known:
            report.warning(
                base + (key,),
                f"hf_config key '{key}' is not read by recipes-site",
                did_you_mean(key, known) or "known keys: " + ", ".join(known),
                at_key=True,
            )

    mpe, ctx = _pos_int(cfg.get("max_position_embeddings")), _pos_int(model.get("context_length"))
    if mpe and ctx and mpe != ctx:
        report.warning(
            ("model", "context_length"),
            f"context_length {ctx} contradicts hf_config.max_position_embeddings {mpe}",
            f"use the config's {mpe}, or correct hf_config",
        )
    experts = kv_cache.num_experts(cfg)
    arch = model.get("architecture")
    if arch == "dense" and experts is not None and experts > 1:
        report.warning(
            ("model", "architecture"),
            f"architecture is dense but hf_config has {experts} routed experts",
            "use architecture: moe",
        )
    elif arch == "moe" and experts is not None and experts <= 1:
        report.warning(
            ("model", "architecture"),
            f"architecture is moe but hf_config has {experts} routed experts",
            "use architecture: dense, or correct the expert count",
        )
    heads, kv_heads = (
        _pos_int(cfg.get("num_attention_heads")),
        _pos_int(cfg.get("num_key_value_heads")),
    )
    if heads and kv_heads and heads % kv_heads:
        report.warning(
            base + ("num_key_value_heads",),
            f"{kv_heads} KV heads do not divide the {heads} attention heads",
            "check the config",
        )
    types = cfg.get("layer_types")
    if isinstance(types, list):
        for i, kind in enumerate(types):
            if isinstance(kind, str) and kind not in kv_cache.KNOWN_LAYER_TYPES:
                report.warning(
                    base + ("layer_types", i),
                    f"unknown layer type '{kind}' (counted as full attention)",
                    did_you_mean(kind, sorted(kv_cache.KNOWN_LAYER_TYPES)),
                )
        for kind, key in (
            (kv_cache.SLIDING, "sliding_window"),
            (kv_cache.CHUNKED, "attention_chunk_size"),
        ):
            if kind in types and not _pos_int(cfg.get(key)):
                report.warning(
                    base + ("layer_types",),
                    f"{kind} layers but no {key}",
                    f"add hf_config.{key}; until then they count as full attention",
                    at_key=True,
                )
    missing = kv_cache.missing_facts(cfg)
    if missing:
        report.warning(
            base,
            "hf_config lacks " + "; ".join(missing),
            "KV-cache sizing falls back to weights only",
            at_key=True,
        )

    for path, tp in _declared_tps(data):
        problem = kv_cache.tp_problem(cfg, tp) if isinstance(tp, int) else None
        if problem:
            report.warning(
                path,
                f"{problem}; vLLM refuses this TP size",
                f"use TP {kv_cache.largest_valid_tp(cfg, tp)}",
            )
    for (tp, multi), hw_ids in sorted(_whole_node_tp_hardware(data, catalog).items()):
        problem = kv_cache.tp_problem(cfg, tp)
        if not problem:
            continue
        if multi:
            report.warning(
                base + ("num_attention_heads",) if heads else base,
                f"multi-node TP on 2 nodes of {', '.join(hw_ids)} would need TP {tp}: {problem}",
                "vLLM refuses it; offer multi_node_tp_pp or multi_node_dep instead",
            )
        else:
            report.warning(
                base + ("num_attention_heads",) if heads else base,
                f"on {', '.join(hw_ids)} the command would need TP {tp}: {problem}",
                f"the engine renders TP {kv_cache.largest_valid_tp(cfg, tp)} there instead; "
                "pin a valid size with strategy_overrides.single_node_tp.tp",
            )
    return report.items


RECIPE_CHECKS: list[RecipeCheck] = [
    check_structure,
    check_model_id,
    check_feature_modes,
    check_strategy_references,
    check_hardware_references,
    check_recipe_references,
    check_declared_vram,
    check_shared_checkpoints,
    check_hf_config,
    check_shell_words,
    check_recipe_shell,
    check_hidden_text,
]


def run_recipe_checks(doc: RecipeDoc, catalog: Catalog) -> list:
    """Every rule of RECIPE_CHECKS on one recipe (a rule that crashes becomes an error, so that
    loading never raises)."""
    diags: list = []
    for check in RECIPE_CHECKS:
        try:
            diags.extend(check(doc, catalog))
        except Exception as exc:  # noqa: BLE001 - report, never raise out of the catalog
            name = getattr(check, "__name__", repr(check))
            diags.append(
                Diagnostic(
                    doc.display_path,
                    0,
                    0,
                    Level.ERROR,
                    "",
                    f"internal error in check {name}: {type(exc).__name__}: {exc}",
                    "this is a bug in recipes-site; please report it",
                )
            )
    return diags


# ---- the shared files ----------------------------------------------------------------------------------


def check_taxonomy(data: dict, catalog: Catalog, report: Report) -> None:
    data = _map(data)
    known = known_strategies(catalog)
    if known:
        for i, sid in enumerate(_list(data.get("strategies"))):
            if isinstance(sid, str) and sid not in known:
                report.warning(
                    ("strategies", i),
                    f"strategy '{sid}' has no strategies/*.yaml file",
                    did_you_mean(sid, known),
                )
    groups = _map(data.get("kv_offload_groups"))
    brands = {_map(p).get("brand") for p in _map(data.get("hardware_profiles")).values()}
    for oid, option in _map(data.get("kv_offload")).items():
        option = _map(option)
        group = option.get("group")
        if isinstance(group, str) and group not in groups:
            report.error(
                ("kv_offload", oid, "group"),
                f"unknown kv_offload group '{group}'",
                did_you_mean(group, list(groups)),
            )
        for i, sid in enumerate(_list(option.get("strategies"))):
            if known and isinstance(sid, str) and sid not in known:
                report.error(
                    ("kv_offload", oid, "strategies", i),
                    f"unknown strategy '{sid}'",
                    did_you_mean(sid, known),
                )
        for i, brand in enumerate(_list(option.get("brands"))):
            if isinstance(brand, str) and brand not in brands:
                report.error(
                    ("kv_offload", oid, "brands", i),
                    f"unknown brand '{brand}'",
                    did_you_mean(brand, sorted(b for b in brands if isinstance(b, str))),
                )
