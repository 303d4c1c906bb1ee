"""Which recipe features are on for a (hardware, variant, strategy), and the args they add.

By default a feature is on unless the recipe lists it as opt-in (globally or for this
hardware); a user may pick another set (`selection`: feature name -> mode, None for a feature
without modes), which is how the site's feature toggles and `recipes-site command --feature`
get their exact commands.
"""

from __future__ import annotations

from recipes_site.jsish import mapping, str_list, truthy

from .hardware import Hardware
from .memo import remembered
from .recording import hardware_query

Selection = dict  # feature name -> mode name (modal feature) or None (flat feature)


def enabled_features(recipe: dict, hw: Hardware, variant_key: str) -> list[str]:
    """Every declared feature minus the opt-in ones, but a variant's `default_modes` forces its feature on."""
    # kept per recipe: the same for every strategy offered on this hardware
    return remembered(
        recipe,
        ("enabled_features", hw.label, variant_key),
        _enabled_features,
        recipe,
        hw,
        variant_key,
    )


def _enabled_features(recipe: dict, hw: Hardware, variant_key: str) -> list[str]:
    features = mapping(recipe.get("features"))
    opt_in = set(str_list(recipe.get("opt_in_features")))
    opt_in |= set(str_list(hw.entry(mapping(recipe.get("hardware_opt_in_features")))))
    variant = mapping(mapping(recipe.get("variants")).get(variant_key))
    forced = set(mapping(variant.get("default_modes")))
    return [name for name in features if name not in opt_in or name in forced]


@hardware_query
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


def chosen_mode(
    name: str, feature: dict, hw: Hardware, variant_key: str, variant: dict
) -> str | None:
    allowed = allowed_modes(feature, hw, variant_key)
    for candidate in (mapping(variant.get("default_modes")).get(name), feature.get("default_mode")):
        if candidate in allowed:
            return candidate
    return allowed[0] if allowed else None


def is_modal(feature: dict) -> bool:
    return isinstance(feature.get("modes"), dict)


def applicable_features(
    recipe: dict, strategy_id: str, skip_companions: bool = False
) -> list[tuple[str, dict]]:
    """Features that can take part in this strategy's command at all, in declaration order."""
    # kept per recipe: the same on every hardware
    return remembered(
        recipe,
        ("applicable_features", strategy_id, skip_companions),
        _applicable_features,
        recipe,
        strategy_id,
        skip_companions,
    )


def _applicable_features(
    recipe: dict, strategy_id: str, skip_companions: bool
) -> list[tuple[str, dict]]:
    out = []
    for name, feature in mapping(recipe.get("features")).items():
        if not truthy(feature) or not isinstance(feature, dict):
            continue
        strategies = str_list(feature.get("strategies"))
        if strategies and strategy_id not in strategies:
            continue
        if skip_companions and truthy(mapping(feature.get("companion")).get("command")):
            continue
        out.append((name, feature))
    return out


def option_args(feature: dict, hw: Hardware, mode: str | None) -> list:
    """The args one feature adds, in the given mode (None for a feature without modes)."""
    if is_modal(feature):
        spec = mapping(mapping(feature.get("modes")).get(mode))
        override = mapping(hw.keyed(spec.get("hardware_overrides"))).get("args")
        return str_list(override if override is not None else spec.get("args"))
    override = mapping(hw.override_block(feature.get("hardware_overrides"))).get("args")
    return str_list(override if override is not None else feature.get("args"))


def default_selection(
    recipe: dict,
    hw: Hardware,
    variant_key: str,
    variant: dict,
    strategy_id: str,
    skip_companions: bool = False,
) -> Selection:
    defaults = default_modes(recipe, hw, variant_key, variant)
    return {
        name: defaults[name]
        for name, _ in applicable_features(recipe, strategy_id, skip_companions)
        if name in defaults
    }


def default_modes(recipe: dict, hw: Hardware, variant_key: str, variant: dict) -> Selection:
    """The default selection among all of the recipe's features, before a strategy narrows it.
    `variant` is the variant `variant_key` renders (serve_args.variant_of)."""
    # kept per recipe: the same for every strategy offered on this hardware
    return remembered(
        recipe,
        ("default_modes", hw.label, variant_key),
        _default_modes,
        recipe,
        hw,
        variant_key,
        variant,
    )


def _default_modes(recipe: dict, hw: Hardware, variant_key: str, variant: dict) -> Selection:
    on = set(enabled_features(recipe, hw, variant_key))
    selection: Selection = {}
    for name, feature in mapping(recipe.get("features")).items():
        if name not in on or not truthy(feature) or not isinstance(feature, dict):
            continue
        if is_modal(feature):
            mode = chosen_mode(name, feature, hw, variant_key, variant)
            if mode is None:
                continue
            selection[name] = mode
        else:
            selection[name] = None
    return selection


def feature_args(
    recipe: dict,
    hw: Hardware,
    variant_key: str,
    variant: dict,
    strategy_id: str,
    skip_companions: bool = False,
    selection: Selection | None = None,
) -> list:
    args: list = []
    if selection is None:
        defaults = default_args(recipe, hw, variant_key, variant)
        for name, _ in applicable_features(recipe, strategy_id, skip_companions):
            args += defaults.get(name, ())
        return args
    for name, feature in applicable_features(recipe, strategy_id, skip_companions):
        if name in selection:
            args += option_args(feature, hw, selection[name])
    return args


def default_args(recipe: dict, hw: Hardware, variant_key: str, variant: dict) -> dict[str, list]:
    """The args of each feature `default_modes` selects, by name."""
    # kept per recipe: the same for every strategy offered on this hardware
    return remembered(
        recipe,
        ("default_args", hw.label, variant_key),
        _default_args,
        recipe,
        hw,
        variant_key,
        variant,
    )


def _default_args(recipe: dict, hw: Hardware, variant_key: str, variant: dict) -> dict[str, list]:
    return {
        name: option_args(mapping(recipe.get("features"))[name], hw, mode)
        for name, mode in default_modes(recipe, hw, variant_key, variant).items()
    }
