"""A prefill/decode deployment with a Mooncake shared KV store (kv_store/*.yaml `pd:`).

Mooncake does not replace the PD deployment: each pool keeps NIXL for the prefill -> decode
transfer and gains the shared store through vLLM's MultiConnector, which the vocabulary's
`pd.<role>.args` configure. vLLM 0.33 reads that JSON as a `KVTransferConfig` whose
`kv_connector_extra_config.connectors` lists the child configs (vllm/config/kv_transfer.py:71-78),
builds one `KVTransferConfig(**child)` per entry and instantiates each connector class
(vllm/distributed/kv_transfer/kv_connector/v1/multi_connector.py:235-250, 182-187): loads come
from the first child that has the tokens, saves go to all (multi_connector.py:136-139). Both
names are registered connectors (kv_connector/factory.py:178, 196, 231). MooncakeStoreConnector
reads `load_async` / `lookup_async` from its own extra config
(kv_connector/v1/mooncake/store/scheduler.py:146-147) and the store's address and mode from the
file `MOONCAKE_CONFIG_PATH` names (vllm/distributed/mooncake_store.py:71-77); PYTHONHASHSEED pins
the seed of the block hashes (vllm/v1/core/kv_cache_utils.py:101-108) so every engine names a
block alike. Both pools register with the one master of that file and share its memory; a block
one pool writes is found by the other when their tensor-parallel layouts agree, since a store
key carries the writer's tp_rank (kv_connector/v1/mooncake/store/data.py:145-160).

The pieces are the page's (more.js applies them to any pool topology pd.js lays out): per role
the `--kv-transfer-config` line that replaces the pool's own, placed after the feature block
(the vocabulary's args come after the role's, so vLLM's last-wins reading and our de-duplication
keep that one); the store's env as `export` lines after the pool's and as `docker -v`/`-e` lines
before the image; the install line per GPU brand; the companion steps (config, master, store).
`with_store` joins them into a rendering by that rule, so the CLI prints what the page shows.
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import NamedTuple

from recipes_site.jsish import mapping, str_list

from .serve_args import kv_side
from .shell import (
    SEP,
    env_word,
    export_lines,
    heredoc,
    mount_word,
    trusted_args,
    unit_lines,
    units_of,
)
from .types import PdPool, Process, Rendering

FLAG = "--kv-transfer-config"
ROLES = ("prefill", "decode")
PD_NOTE = (
    "Both pools keep NIXL for the prefill-to-decode transfer and share one Mooncake store "
    "through a MultiConnector: its --kv-transfer-config replaces each pool's. A block one pool "
    "stores is found by the other when both use the same tensor-parallel size."
)


class PdStore(NamedTuple):
    """What a Mooncake kv-store adds to each pool of a PD deployment (trusted vocabulary)."""

    kv_id: str
    lines: dict  # role -> the command lines replacing the pool's --kv-transfer-config line
    env: dict  # the store's env, after the pool's
    exports: str  # `export` lines of `env`
    docker_lines: tuple  # `-v` of every *_CONFIG_PATH, then `-e` of each env item
    install: dict  # GPU brand -> the install line
    master: dict | None
    store: dict | None  # the centralized topology's store service
    config: dict | None  # the vLLM side's Mooncake config (every pool node)
    config_note: str | None


def pd_store(kv_id: str, kv: dict) -> PdStore | None:
    """The `PdStore` of a kv-store spec, or None when the vocabulary gives no `pd:` block."""
    pd = mapping(kv.get("pd"))
    lines = {
        role: unit_lines(units_of(trusted_args(str_list(mapping(pd.get(role)).get("args")))))
        for role in ROLES
    }
    if not all(lines.values()):
        return None
    env = kv_side(kv).env
    mounts = [v for k, v in env.items() if k.endswith("_CONFIG_PATH")]
    vllm = mapping(kv.get("vllm"))
    config = mapping(kv.get("mooncake_vllm_config"))
    return PdStore(
        kv_id=kv_id,
        lines=lines,
        env=env,
        exports=export_lines(env),
        docker_lines=tuple(
            [f"-v {mount_word(v)}" for v in mounts]
            + [f"-e {env_word(k, v)}" for k, v in env.items()]
        ),
        install=dict(mapping(vllm.get("install"))),
        master=kv.get("mooncake_master"),
        store=kv.get("mooncake_store_config"),
        config=config.get("template"),
        config_note=config.get("note"),
    )


def _words(lines) -> list[str]:
    return [w for line in lines for w in shlex.split(line)]


def _dropped(words) -> list:
    """The argv words without the --kv-transfer-config flag and its value."""
    out, skip = [], False
    for w in words:
        if skip or w == FLAG:
            skip = not skip
            continue
        out.append(w)
    return out


def _with_line(p: Process, role_lines: tuple, store: PdStore) -> Process:
    """One pool node's process with the role's lines in place of its --kv-transfer-config line
    (after the feature block) and the store's env and docker lines."""
    body = p.command.split(SEP)
    keep = lambda lines: [line for line in lines if not line.startswith(FLAG + " ")]  # noqa: E731
    split = len(body) - len(p.lines_after)
    after = keep(body[split:])
    lines = keep(body[1:split]) + list(role_lines) + after
    cut = len(p.argv) - len(_words(p.lines_after))
    argv = _dropped(p.argv[:cut]) + _words(role_lines) + _dropped(p.argv[cut:])
    head = p.docker_command.split(SEP)[: len(p.docker_command.split(SEP)) - (len(body) - 1)]
    head[-1:-1] = store.docker_lines
    docker_words = list(p.docker_argv[: len(p.docker_argv) - (len(p.argv) - 3)])
    image_at = len(docker_words) - 2  # "<image> <model>" end the docker head
    docker_words[image_at:image_at] = _words(store.docker_lines)
    clash = set(store.env) & set(p.env)
    tail = SEP + SEP.join(lines) if lines else ""
    return dataclasses.replace(
        p,
        argv=tuple(argv),
        # a variable the pool sets already: its export follows the pool's, as the page prints it
        command=(store.exports if clash else "") + body[0] + tail,
        env=p.env if clash else {**p.env, **store.env},
        docker_argv=tuple(docker_words + argv[3:]),
        docker_command=SEP.join(head) + tail,
        lines_before=tuple(keep(list(p.lines_before))),
        lines_after=tuple(role_lines) + tuple(after),
        docker_head=SEP.join(head),
    )


def _pool(pool: PdPool, role: str, store: PdStore) -> PdPool:
    change = lambda p: _with_line(p, store.lines[role], store)  # noqa: E731
    return dataclasses.replace(
        pool, process=change(pool.process), workers=tuple(map(change, pool.workers))
    )


def with_store(r: Rendering, store: PdStore) -> Rendering:
    """A PD rendering (any pool topology) with the store joined into every pool node."""
    assert r.prefill is not None and r.decode is not None
    return dataclasses.replace(
        r, prefill=_pool(r.prefill, "prefill", store), decode=_pool(r.decode, "decode", store)
    )


def companion_steps(store: PdStore) -> list[tuple[str, str, str]]:
    """(tab id, label, text) of what runs besides the pools, in the order one starts them: the
    config on every pool node, the master, and the centralized topology's store service; the
    texts of a kv-store rendering's tabs (render/picker.py `_extras`)."""
    out = []
    if store.config:
        text = heredoc("$MOONCAKE_CONFIG_PATH", store.config, store.config_note)
        out.append(("mooncake-config", "Mooncake config", text))
    master = mapping(store.master)
    if master.get("command"):
        out.append(("mooncake-master", "Mooncake master", str(master["command"])))
    service = mapping(store.store)
    if service.get("command"):
        config = service.get("config")
        prefix = (
            heredoc("$MOONCAKE_STORE_CONFIG_PATH", config, service.get("note")) + "\n"
            if isinstance(config, dict)
            else ""
        )
        out.append(("mooncake-store", "Mooncake store", prefix + str(service["command"])))
    return out
