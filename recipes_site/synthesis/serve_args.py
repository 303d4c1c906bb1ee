"""The `vllm serve` argument list and environment of one process, in the reference order.

Every flag of a generated command enters through `serve_parts` (args around the parallel block,
feature args, env); the parallel block itself is decided by the caller (single-node, multi-node,
prefill/decode), so the ranks of one layout share one `ServeParts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from recipes_site.jsish import mapping, str_list, truthy_items

from . import docker
from .features import feature_args
from .hardware import Hardware
from .memo import remembered
from .shell import (
    Unit,
    continuation,
    trusted_args,
    trusted_env,
    unit_lines,
    units_of,
)

PD_ONLY_ON_NVL = (
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
)
NVL_TRAYS = ("gb200", "gb300")
NO_ENV: Mapping = MappingProxyType({})


class ProcessSpec(NamedTuple):
    """Everything that decides one `vllm serve` process except its parallel block."""

    recipe: dict
    variant_key: str
    on_hw: OnHardware  # variant_on_hardware(recipe, variant_key, hw)
    strategy_id: str
    strategy: dict  # the context's spec of strategy_id
    hw: Hardware
    role: str | None = None  # "prefill" / "decode" for PD pools
    kv: KvSide | None = None  # what a kv-store brings when composing with one
    pinning_env: Mapping = NO_ENV  # PD GPU pinning
    features: dict | None = None  # explicit feature selection; None = the recipe's defaults
    multi_node: bool = False  # the process's parallel group spans nodes (host network)

    @property
    def variant(self) -> dict:
        return self.on_hw.variant


def variant_of(recipe: dict, variant_key: str) -> dict:
    """The variant a key renders: a missing or empty one falls back to `default`."""
    variants = mapping(recipe.get("variants"))
    return mapping(variants.get(variant_key) or variants.get("default"))


def model_id(recipe: dict, variant: dict) -> str:
    return variant.get("model_id") or mapping(recipe.get("model")).get("model_id") or "unknown"


class ServeParts(NamedTuple):
    """A process's arguments and env, the parallel block left out: the tokens before and after
    where it goes, then the feature block (the part a user can toggle), then the kv-store args.
    Token sequences are tuples here and below, as arg_lines (and its memo key) takes them."""

    before: tuple
    after_parallel: tuple
    features: tuple
    after: tuple
    env: dict

    def segments(self, parallel: list) -> tuple[tuple, tuple, tuple]:
        """The argument tokens split around the feature block, for one parallel block."""
        return (*self.before, *parallel, *self.after_parallel), self.features, self.after


def serve_parts(spec: ProcessSpec) -> ServeParts:
    side = _strategy_side(spec)
    blocks = _hardware_blocks(spec, side)
    features = tuple(
        feature_args(
            spec.recipe,
            spec.hw,
            spec.variant_key,
            spec.variant,
            spec.strategy_id,
            skip_companions=spec.kv is not None,
            selection=spec.features,
        )
    )
    return ServeParts(
        before=spec.on_hw.args + side.args,
        after_parallel=side.override_args + blocks.args,
        features=features,
        after=spec.kv.args if spec.kv is not None else (),
        env=serve_env(spec, side, blocks),
    )


class KvSide(NamedTuple):
    """What a kv-store brings to every process serving through it (trusted vocabulary)."""

    args: tuple  # its vllm_args, after the feature block
    env: dict  # its env, after the strategy's


def kv_side(kv: dict) -> KvSide:
    """The `KvSide` of a kv-store spec (kv_store/*.yaml)."""
    vllm = mapping(kv.get("vllm"))
    return KvSide(
        tuple(trusted_args(str_list(vllm.get("vllm_args")))), trusted_env(mapping(vllm.get("env")))
    )


class HardwareBlocks(NamedTuple):
    """The `extra_args` and `extra_env` of hardware override blocks, in block order."""

    args: tuple
    env: dict


def hardware_blocks(blocks) -> HardwareBlocks:
    """What `blocks` (override blocks, None for a missing one) add, in order."""
    args: list = []
    env: dict = {}
    for block in map(mapping, blocks):
        args += str_list(block.get("extra_args"))
        env.update(mapping(block.get("extra_env")))
    return HardwareBlocks(tuple(args), env)


class OnHardware(NamedTuple):
    """What a variant brings to every process on one hardware, whatever the strategy."""

    variant: dict  # the variant the key renders (variant_of)
    model: str  # the checkpoint it serves (model_id)
    image: str | None  # its container image there (docker.docker_image)
    pass_env: tuple  # host variables its docker command passes through (HF_TOKEN when gated)
    args: tuple  # the recipe's base args, then the variant's, then the variant's on this hardware
    env: dict  # likewise: base env, variant env, variant env on this hardware
    override_blocks: tuple  # the recipe's and the variant's generation/brand override blocks
    blocks: HardwareBlocks  # what those two blocks add


def variant_on_hardware(recipe: dict, variant_key: str, hw: Hardware) -> OnHardware:
    # kept per recipe: the same for every strategy rendered on this hardware
    return remembered(
        recipe,
        ("variant_on_hardware", hw.label, variant_key),
        _variant_on_hardware_of,
        recipe,
        variant_key,
        hw,
    )


def _variant_on_hardware_of(recipe: dict, variant_key: str, hw: Hardware) -> OnHardware:
    variant = variant_of(recipe, variant_key)
    model = mapping(recipe.get("model"))
    on_hw = mapping(hw.entry(mapping(variant.get("hardware_overrides"))))
    override_blocks = (
        hw.override_block(recipe.get("hardware_overrides")),
        hw.override_block(variant.get("hardware_overrides")),
    )
    return OnHardware(
        variant=variant,
        model=model_id(recipe, variant),
        image=docker.docker_image(recipe, variant, hw),
        # a deliberate deviation from the reference (docs/compat-deviations.json): a gated
        # checkpoint gets the host's HF_TOKEN passed through
        pass_env=("HF_TOKEN",) if docker.is_gated(recipe, variant) else (),
        args=(
            *str_list(model.get("base_args")),
            *str_list(variant.get("extra_args")),
            *str_list(on_hw.get("extra_args")),
        ),
        env={
            **mapping(model.get("base_env")),
            **mapping(variant.get("extra_env")),
            **mapping(on_hw.get("extra_env")),
        },
        override_blocks=override_blocks,
        blocks=hardware_blocks(override_blocks),
    )


class StrategySide(NamedTuple):
    """What a strategy (or one PD role of it) brings to every process, whatever the hardware."""

    args: tuple  # its vllm_args (trusted vocabulary)
    override_args: tuple  # the recipe's strategy_overrides (or the role's): extra_args, vllm_args
    env: dict  # its env (trusted vocabulary)
    override_env: dict  # the recipe's strategy_overrides env, then extra_env (or the role's env)
    hardware_overrides: dict  # the recipe's strategy_overrides hardware_overrides
    role_hardware_overrides: dict  # the role's hardware_overrides ({} without a role)


def _strategy_side(spec: ProcessSpec) -> StrategySide:
    # kept per recipe: the same on every hardware (spec.strategy is the context's spec of strategy_id)
    return remembered(
        spec.recipe, ("strategy_side", spec.strategy_id, spec.role), _strategy_side_of, spec
    )


def _strategy_side_of(spec: ProcessSpec) -> StrategySide:
    overrides = mapping(mapping(spec.recipe.get("strategy_overrides")).get(spec.strategy_id))
    role_overrides = mapping(overrides.get(spec.role)) if spec.role else {}
    own = mapping(spec.strategy.get(spec.role)) if spec.role else spec.strategy
    source = role_overrides if spec.role else overrides
    return StrategySide(
        args=tuple(trusted_args(str_list(own.get("vllm_args")))),
        override_args=(*str_list(source.get("extra_args")), *str_list(source.get("vllm_args"))),
        env=trusted_env(mapping(own.get("env"))),
        override_env={
            **mapping(overrides.get("env")),
            **mapping(source.get("env") if spec.role else source.get("extra_env")),
        },
        hardware_overrides=mapping(overrides.get("hardware_overrides")),
        role_hardware_overrides=mapping(role_overrides.get("hardware_overrides")),
    )


def _hardware_blocks(spec: ProcessSpec, side: StrategySide) -> HardwareBlocks:
    """The hardware override blocks of a process: generation/brand blocks (a strategy-level block
    replaces the recipe's and the variant's), then the strategy's block for this hardware id,
    then the role's."""
    if not side.hardware_overrides and not side.role_hardware_overrides:
        return spec.on_hw.blocks  # the strategy has no blocks of its own: only the variant's apply
    hw = spec.hw
    strategy_block = hw.override_block(side.hardware_overrides)
    blocks = [strategy_block] if strategy_block is not None else list(spec.on_hw.override_blocks)
    blocks.append(hw.entry(side.hardware_overrides))
    if spec.role:
        blocks.append(hw.entry(side.role_hardware_overrides))
    return hardware_blocks(blocks)


def serve_env(spec: ProcessSpec, side: StrategySide, blocks: HardwareBlocks) -> dict:
    env = dict(spec.on_hw.env)
    env.update(side.env)
    if spec.kv is not None:
        env.update(spec.kv.env)
    env.update(spec.pinning_env)
    env.update(side.override_env)
    env.update(blocks.env)
    if spec.role and not spec.hw.named_in(NVL_TRAYS):
        for key in PD_ONLY_ON_NVL:
            env.pop(key, None)
    return env


def dedupe(tokens: list) -> list[Unit]:
    """Drop empty tokens, then keep only the last occurrence of each flag, at its last position."""
    return dedupe_units(units_of(truthy_items(tokens)))


def dedupe_units(units: list[Unit]) -> list[Unit]:
    seen: set = set()
    kept: list[Unit] = []
    for unit in reversed(units):
        flag = unit[0]
        if flag.startswith("-"):  # a flag (as shell.units_of tells one)
            if flag in seen:
                continue
            seen.add(flag)
        kept.append(unit)
    kept.reverse()
    return kept


def flatten(units: list[Unit]) -> list[str]:
    return [tok for unit in units for tok in unit]


# a positional unit: survives de-duplication, marks the feature block
FEATURE_MARK = ("\x00features",)


class ArgLines(NamedTuple):
    """A process's arguments after de-duplication, as argv tokens and as command lines, and the
    lines before and after its feature block (for pages that let a user toggle features: exact
    whenever the feature flags appear nowhere else, choices.toggles_are_exact checks)."""

    args: tuple
    lines: tuple
    lines_before: tuple
    lines_after: tuple
    text: str  # the lines as the continuation of a command (shell.continuation): the same
    # after `vllm serve <model>` and after the docker head


def arg_lines(before: tuple, features: tuple, after: tuple) -> ArgLines:
    """`ArgLines` of the argument tokens split around the feature block."""
    before, features, after = tuple(before), tuple(features), tuple(after)
    # the types are part of the key: a Placeholder prints bare where an equal recipe string is quoted
    return _arg_lines(before, features, after, tuple(map(type, before + features + after)))


# Memo: processes share their argument lists (the same strategy on many hardware profiles), each
# grouped, de-duplicated and quoted once.
@lru_cache(maxsize=4096)
def _arg_lines(before: tuple, features: tuple, after: tuple, _types: tuple) -> ArgLines:
    """The whole list grouped and de-duplicated; the head (the lines before and after the feature
    block) groups `before` and `after` on their own, the feature block marked between them."""
    kept_before, kept_after = truthy_items(list(before)), truthy_items(list(after))
    units = dedupe_units(units_of(truthy_items([*before, *features, *after])))
    head = dedupe_units(units_of(kept_before) + [FEATURE_MARK] + units_of(kept_after))
    cut = [u is FEATURE_MARK for u in head].index(True)  # by identity: a recipe may spell it
    lines = unit_lines(units)
    return ArgLines(
        args=tuple(tok for unit in units for tok in unit),
        lines=lines,
        lines_before=unit_lines(head[:cut]),
        lines_after=unit_lines(head[cut + 1 :]),
        text=continuation(lines),
    )
