"""Which recipe features are on for a (hardware, variant, strategy), and the args they add."""
from __future__ import annotations

from .hardware import Hardware
from .jsish import mapping, str_list, truthy


def enabled_features(recipe: dict, hw: Hardware, variant_key: str) -> list[str]:
    """Every declared feature minus the opt-in ones, but a variant's `default_modes` forces its feature on."""
    features = mapping(recipe.get("features"))
    opt_in = set(str_list(recipe.get("opt_in_features")))
    opt_in |= set(str_list(mapping(recipe.get("hardware_opt_in_features")).get(hw.id)))
    variant = mapping(mapping(recipe.get("variants")).get(variant_key))
    forced = set(mapping(variant.get("default_modes")))
    return [name for name in features if name not in opt_in or name in forced]


def allowed_modes(feature: dict, hw: Hardware, variant_key: str) -> list[str]:
    allowed = []
    for name, mode in mapping(feature.get("modes")).items():
        mode = mapping(mode)
        variants = str_list(mode.get("variants"))
        if variants and variant_key not in variants:
            continue
        gate = mapping(mode.get("hardware"))
        if gate.get(hw.generation) == "unsupported" or gate.get(hw.id) == "unsupported":
            continue
        allowed.append(name)
    return allowed


def chosen_mode(name: str, feature: dict, hw: Hardware, variant_key: str, variant: dict) -> str | None:
    allowed = allowed_modes(feature, hw, variant_key)
    for candidate in (mapping(variant.get("default_modes")).get(name), feature.get("default_mode")):
        if candidate in allowed:
            return candidate
    return allowed[0] if allowed else None


def feature_args(recipe: dict, hw: Hardware, variant_key: str, variant: dict, strategy_id: str,
                 skip_companions: bool = False) -> list:
    args: list = []
    features = mapping(recipe.get("features"))
    for name in enabled_features(recipe, hw, variant_key):
        feature = features.get(name)
        if not truthy(feature) or not isinstance(feature, dict):
            continue
        strategies = str_list(feature.get("strategies"))
        if strategies and strategy_id not in strategies:
            continue
        if skip_companions and truthy(mapping(feature.get("companion")).get("command")):
            continue
        if isinstance(feature.get("modes"), dict):
            mode_name = chosen_mode(name, feature, hw, variant_key, variant)
            if mode_name is None:
                continue
            mode = mapping(feature["modes"][mode_name])
            override = mapping(hw.keyed(mode.get("hardware_overrides"))).get("args")
            args += str_list(override if override is not None else mode.get("args"))
        else:
            block = hw.override_block(feature.get("hardware_overrides"))
            override = mapping(block).get("args")
            args += str_list(override if override is not None else feature.get("args"))
    return args
