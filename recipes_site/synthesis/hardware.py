"""Facts about one hardware profile as the synthesis rules need them.

Hardware-keyed maps in recipes are looked up by exact profile id, then generation, then
lowercase brand, then `default`; override blocks (`hardware_overrides`) know only the
generation and the single `nvidia` brand fallback. Both lookups live here so every rule uses
the same one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from recipes_site.jsish import is_number, mapping, str_list, truthy

# A variant's `precision` -> the weight format (a taxonomy profile's `precisions` entry) that
# vLLM must run on the hardware. AWQ / GPTQ / INT4 checkpoints are 4-bit integer weights
# (Marlin and its siblings); `fp4` is the reference corpus's name for NVFP4. A precision not
# listed here (fp32, "int2/4/8") asks nothing of the hardware.
REQUIRED_CAPABILITY = {
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "mxfp8": "mxfp8",
    "int8": "int8",
    "int4": "int4",
    "awq": "int4",
    "gptq": "int4",
    "nvfp4": "nvfp4",
    "fp4": "nvfp4",
    "mxfp4": "mxfp4",
}
CAPABILITY_LABELS = {
    "bf16": "BF16",
    "fp16": "FP16",
    "fp8": "FP8",
    "mxfp8": "MXFP8",
    "int8": "INT8",
    "int4": "4-bit integer (AWQ/GPTQ)",
    "nvfp4": "NVFP4",
    "mxfp4": "MXFP4",
}


@dataclass(frozen=True)
class Hardware:
    id: str
    profile: dict

    @cached_property
    def brand(self) -> str:
        return self.profile.get("brand") or ""

    @cached_property
    def generations(self) -> list[str]:
        gen = self.profile.get("generation", self.profile.get("gpu_generation"))
        if isinstance(gen, list):
            return [g for g in gen if isinstance(g, str)]
        return [gen] if isinstance(gen, str) else []

    @cached_property
    def generation(self) -> str:
        gens = self.generations
        return gens[0] if gens else ""

    @cached_property
    def gpus(self) -> int:
        """GPU count used for parallel sizes (1 when the profile does not say)."""
        n: Any = self.profile.get("gpu_count")
        return n if is_number(n) else 1

    @cached_property
    def gpus_or_8(self) -> int:
        """GPU count used by node arithmetic, where the reference assumes 8 when unknown."""
        n: Any = self.profile.get("gpu_count")
        return n if is_number(n) and n else 8

    @cached_property
    def node_vram_gb(self) -> float:
        v: Any = self.profile.get("vram_gb")
        return v if is_number(v) else 0

    @cached_property
    def scalable(self) -> bool:
        return self.profile.get("scalable") is not False

    @cached_property
    def restricted(self) -> bool:
        return truthy(self.profile.get("restricted"))

    @cached_property
    def is_nvidia(self) -> bool:
        return self.brand == "NVIDIA"

    @cached_property
    def image_brand(self) -> str:
        """Whose container images and kv-store install commands apply (docker.DEFAULT_IMAGES keys).
        A fact of its own, not read off the generation where it is used, so that a recording
        (synthesis/recording.py) notes "nvidia" for both Hopper and Blackwell."""
        if self.generation == "tpu":
            return "tpu"
        if self.brand == "AMD":
            return "amd"
        if self.generation in ("cpu", "xpu") or self.brand == "Intel":
            return "intel"
        return "nvidia"

    @cached_property
    def image_family(self) -> str:
        """Which GPU access flags its docker command takes (docker.GPU_FLAG_LINES keys)."""
        if self.image_brand == "intel":
            return "xpu" if self.generation == "xpu" else "cpu"
        return self.image_brand

    @cached_property
    def runnable_formats(self) -> frozenset | None:
        """Weight formats vLLM runs here (natively or weight-only), from the profile's
        `precisions`; None when the profile does not say (nothing is then ruled out)."""
        declared = self.profile.get("precisions")
        if not isinstance(declared, dict):
            return None
        return frozenset(str_list(declared.get("native")) + str_list(declared.get("weight_only")))

    def precision_problem(self, precision: Any) -> str | None:
        """Why a variant of `precision` cannot run here (for pages and the CLI), or None.

        Only a profile that declares `precisions` rules anything out, so a taxonomy without the
        field (the reference corpus's) offers what it always did."""
        formats = self.runnable_formats
        needed = REQUIRED_CAPABILITY.get(precision) if isinstance(precision, str) else None
        if formats is None or needed is None or needed in formats:
            return None
        name = self.profile.get("display_name") or self.id
        return f"vLLM runs no {CAPABILITY_LABELS[needed]} kernel on {name}, natively or weight-only"

    @property
    def label(self) -> str:
        """The profile id as a name: the `hardware` of renderings and the key of per-recipe memos.
        Never for a decision: a decision reads `id` or asks `entry`/`named_in`, which a
        synthesis/recording.Recording notes down (it does not note `label`)."""
        return self.id

    def entry(self, table: dict) -> Any:
        """`table`'s entry for this profile id: a recipe's per-id map (None when it has none)."""
        return table.get(self.id)

    def named_in(self, names) -> bool:
        """Whether this profile id is one of `names` (a list, or a map's keys)."""
        return self.id in names

    def keyed(self, table: Any) -> Any:
        """Look up a hardware-keyed map: exact id, generation, lowercase brand, `default`."""
        if not isinstance(table, dict):
            return None
        for key in (self.id, self.generation, self.brand.lower(), "default"):
            if key and table.get(key) is not None:
                return table[key]
        return None

    def override_block(self, overrides: Any) -> Any:
        """A `hardware_overrides` block: generation key, else `nvidia` on NVIDIA hardware."""
        overrides = mapping(overrides)
        block = overrides.get(self.generation) if self.generation else None
        if not truthy(block) and self.is_nvidia:
            block = overrides.get("nvidia")
        return block if truthy(block) else None
