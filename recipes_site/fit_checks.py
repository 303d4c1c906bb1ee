"""What `recipes-site fit` refuses to plan: requests vLLM itself would refuse to start with.

Why refuse rather than print figures: a memory plan for `--max-model-len` beyond the model's
context, or for a TP wider than the GPUs the deployment has, describes a server that never comes
up. vLLM stops on both, so the plan stops too, and says which limit was hit.
"""

from __future__ import annotations

from recipes_site.fit import context_length


def fit_request_problems(
    recipe: dict,
    profile: dict,
    hw_id: str,
    nodes: int,
    *,
    tp: int,
    pp: int = 1,
    max_model_len: int | None = None,
) -> list[str]:
    """Every reason the asked-for fit cannot run (empty when it can).

    - `max_model_len` above the recipe's context (`model.context_length`, else
      `hf_config.max_position_embeddings`): vLLM raises "User-specified max_model_len ... is greater
      than the derived max_model_len" unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
      (vllm/config/model.py:2657-2684, vLLM 0.33.0).
    - TP x PP (vLLM's world size, vllm/config/parallel.py:964) above the GPUs of the deployment's
      nodes: vLLM raises "World size (N) is larger than the number of available GPUs"
      (vllm/config/parallel.py:1066-1076).
    """
    problems = []
    context = context_length(recipe)
    if max_model_len is not None and context is not None and max_model_len > context:
        problems.append(
            f"--max-model-len {max_model_len:,} is beyond the model's context of {context:,} tokens; "
            f"vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which breaks positions past "
            f"{context:,}): ask for {context:,} or less"
        )
    per_node = profile.get("gpu_count")
    if isinstance(per_node, int) and not isinstance(per_node, bool) and per_node > 0:
        present = per_node * nodes
        if tp * pp > present:
            layout = f"TP {tp}" + (f" x PP {pp}" if pp > 1 else "")
            where = f"{nodes} node{'s' if nodes > 1 else ''} of {hw_id}"
            problems.append(
                f"{layout} needs {tp * pp} GPUs, but {where} {'have' if nodes > 1 else 'has'} "
                f"{present}; vLLM refuses a world size larger than the GPUs present "
                f"(at most --tp {max(1, present // pp)} there)"
            )
    return problems
