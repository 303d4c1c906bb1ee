"""The typed output of synthesis: one `Rendering` per (hardware, variant, strategy, node count).

These objects are the single source of truth for commands. The JSON API and the HTML pages are
views of them; nothing downstream decides or edits a flag.

`Process`, `Rendering`, `KvStore`, `PdPool` and `HardwareResult` are made for every process and
rendering of a build, and re-labelled copies of renderings for every profile that shares them:
they have a written-out `__init__` that writes every field into the instance's dict (a frozen
dataclass's own sets each field through object.__setattr__), and synthesis makes them through
`process`, `rendering`, `kv_store`, `pd_pool` and `hardware_result`, which skip the class call's
packing of keywords. Together this pays more than 2% of a compat build (measured against plain
frozen slotted dataclasses; the figures are in the commit message). They stay frozen dataclasses
(equality, repr, dataclasses.replace); tests/test_synthesis_types.py holds each `__init__` and
its maker to the declared fields and defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True, init=False)
class Process:
    """One `vllm serve` process, bare and wrapped in `docker run`."""

    argv: tuple
    command: str
    env: dict
    docker_argv: tuple
    docker_command: str
    # The command's argument lines before and after the feature block, for pages that let a
    # user toggle features: exact whenever the feature flags appear nowhere else (picker.py checks).
    lines_before: tuple = ()
    lines_after: tuple = ()
    docker_head: str = ""  # the docker command up to and including "<image> <model>"
    notes: tuple = ()  # why the engine's KV-cache sizing changed the command (fit.engine_sizing)

    def __init__(
        self,
        argv,
        command,
        env,
        docker_argv,
        docker_command,
        lines_before=(),
        lines_after=(),
        docker_head="",
        notes=(),
    ):
        fields = self.__dict__  # written directly: the frozen __setattr__ refuses assignments
        fields["argv"], fields["command"], fields["env"] = argv, command, env
        fields["docker_argv"], fields["docker_command"] = docker_argv, docker_command
        fields["lines_before"], fields["lines_after"] = lines_before, lines_after
        fields["docker_head"], fields["notes"] = docker_head, notes


def process(
    argv,
    command,
    env,
    docker_argv,
    docker_command,
    lines_before=(),
    lines_after=(),
    docker_head="",
    notes=(),
) -> Process:
    """`Process(...)` without the class call (see the module's docstring)."""
    made = _new(Process)
    _init_process(
        made,
        argv,
        command,
        env,
        docker_argv,
        docker_command,
        lines_before,
        lines_after,
        docker_head,
        notes,
    )
    return made


_new = object.__new__
_init_process = Process.__init__


@dataclass(frozen=True, init=False)
class PdPool:
    """One side (prefill or decode) of a disaggregated deployment."""

    process: Process
    nodes: int  # 0 = shares one node with the other pool
    parallelism: str  # as declared (tp, tep, dep)
    tp: int
    dp_local: int
    dp_size: int
    pool_gpus: int
    workers: tuple = ()  # Process per node of the pool after its first (nodes 2..N)

    def __init__(self, process, nodes, parallelism, tp, dp_local, dp_size, pool_gpus, workers=()):
        fields = self.__dict__  # as Process's
        fields["process"], fields["nodes"], fields["parallelism"] = process, nodes, parallelism
        fields["tp"], fields["dp_local"], fields["dp_size"], fields["pool_gpus"] = (
            tp,
            dp_local,
            dp_size,
            pool_gpus,
        )
        fields["workers"] = workers


def pd_pool(process, nodes, parallelism, tp, dp_local, dp_size, pool_gpus, workers=()) -> PdPool:
    """`PdPool(...)` without the class call (as `process`)."""
    made = _new(PdPool)
    _init_pd_pool(made, process, nodes, parallelism, tp, dp_local, dp_size, pool_gpus, workers)
    return made


_init_pd_pool = PdPool.__init__


@dataclass(frozen=True)
class Router:
    command: str
    install: str | None
    port: int | None = None


@dataclass(frozen=True, init=False)
class KvStore:
    """A Mooncake kv-store deployment: N identical serving instances plus its helper processes."""

    serving_strategy: str
    instances: int
    min_vllm_version: str | None
    head: Process
    workers: tuple  # Process per extra node of one instance
    install: str | None
    master: dict | None
    store: dict | None
    router: Router | None
    config: dict | None
    config_note: str | None

    def __init__(
        self,
        serving_strategy,
        instances,
        min_vllm_version,
        head,
        workers,
        install,
        master,
        store,
        router,
        config,
        config_note,
    ):
        fields = self.__dict__  # as Process's
        fields["serving_strategy"], fields["instances"] = serving_strategy, instances
        fields["min_vllm_version"], fields["head"], fields["workers"] = (
            min_vllm_version,
            head,
            workers,
        )
        fields["install"], fields["master"], fields["store"] = install, master, store
        fields["router"], fields["config"], fields["config_note"] = router, config, config_note


def kv_store(
    serving_strategy,
    instances,
    min_vllm_version,
    head,
    workers,
    install,
    master,
    store,
    router,
    config,
    config_note,
) -> KvStore:
    """`KvStore(...)` without the class call (as `process`)."""
    made = _new(KvStore)
    _init_kv_store(
        made,
        serving_strategy,
        instances,
        min_vllm_version,
        head,
        workers,
        install,
        master,
        store,
        router,
        config,
        config_note,
    )
    return made


_init_kv_store = KvStore.__init__


@dataclass(frozen=True, init=False)
class Rendering:
    hardware: str
    strategy: str
    variant: str
    node_count: int
    deploy_type: str  # single_node | multi_node | pd_cluster | kv_store_lb
    env: dict
    docker_image: str | None
    single: Process | None = None  # single_node
    head: Process | None = None  # multi_node
    workers: tuple = ()  # multi_node, ranks 1..n-1
    prefill: PdPool | None = None  # pd_cluster
    decode: PdPool | None = None
    router: Router | None = None
    router_config: dict | None = None
    kv: KvStore | None = None  # kv_store_lb

    def __init__(
        self,
        hardware,
        strategy,
        variant,
        node_count,
        deploy_type,
        env,
        docker_image,
        single=None,
        head=None,
        workers=(),
        prefill=None,
        decode=None,
        router=None,
        router_config=None,
        kv=None,
    ):
        fields = self.__dict__  # as Process's
        fields["hardware"], fields["strategy"], fields["variant"] = hardware, strategy, variant
        fields["node_count"], fields["deploy_type"], fields["env"] = node_count, deploy_type, env
        fields["docker_image"], fields["single"], fields["head"] = docker_image, single, head
        fields["workers"], fields["prefill"], fields["decode"] = workers, prefill, decode
        fields["router"], fields["router_config"], fields["kv"] = router, router_config, kv
        fields["_family"] = (
            object()
        )  # not a field: `family`, carried by `relabelled`'s copy of the dict

    def relabelled(self, hardware: str) -> Rendering:
        """This rendering as made for the profile `hardware` (synthesis/recording.py: nothing else of
        a rendering names its profile); every other field is this one's, shared."""
        fields = self.__dict__.copy()  # the family token included
        fields["hardware"] = hardware
        copy = _new(Rendering)
        object.__setattr__(copy, "__dict__", fields)
        return copy

    @property
    def family(self) -> object:
        """A token (an object compared by identity) that this rendering and its `relabelled`
        copies share, which share every other field, and no other rendering has. For memos of
        what does not depend on the profile (render/picker.py `Shown`): the key is the token
        itself, so it cannot be taken by another object while the memo lives. A rendering made
        again from the same fields (dataclasses.replace, the class call) is a family of its own:
        its entry is made again, the same entry."""
        return self.__dict__["_family"]

    @property
    def key(self) -> tuple:
        return (self.variant, self.strategy, self.node_count)

    @property
    def notes(self) -> tuple:
        """The engine's sizing notes of every process, without repeats."""
        return tuple(dict.fromkeys(n for p in self.processes for n in p.notes))

    @property
    def feature_strategy(self) -> str:
        """The strategy whose features this deployment's commands carry (a feature's `strategies`
        list is matched against it): a kv-store deployment serves through another strategy."""
        return self.kv.serving_strategy if self.kv else self.strategy

    @property
    def processes(self) -> tuple:
        """Every `vllm serve` process of the deployment (head and workers; each pool's first node
        and its other nodes; the instance and its workers)."""
        procs = [
            self.single,
            self.head,
            *self.workers,
            self.prefill and self.prefill.process,
            *(self.prefill.workers if self.prefill else ()),
            self.decode and self.decode.process,
            *(self.decode.workers if self.decode else ()),
            self.kv and self.kv.head,
            *(self.kv.workers if self.kv else ()),
        ]
        return tuple(p for p in procs if p is not None)

    @property
    def main_process(self) -> Process | None:
        """The process a user starts first: the single command, the head node or the kv instance."""
        if self.single:
            return self.single
        if self.head:
            return self.head
        if self.kv:
            return self.kv.head
        return self.prefill.process if self.prefill else None


def rendering(
    hardware,
    strategy,
    variant,
    node_count,
    deploy_type,
    env,
    docker_image,
    single=None,
    head=None,
    workers=(),
    prefill=None,
    decode=None,
    router=None,
    router_config=None,
    kv=None,
) -> Rendering:
    """`Rendering(...)` without the class call (as `process`)."""
    made = _new(Rendering)
    _init_rendering(
        made,
        hardware,
        strategy,
        variant,
        node_count,
        deploy_type,
        env,
        docker_image,
        single,
        head,
        workers,
        prefill,
        decode,
        router,
        router_config,
        kv,
    )
    return made


_init_rendering = Rendering.__init__


def with_processes(r: Rendering, change) -> Rendering:
    """The rendering with `change` applied to each of its `vllm serve` processes."""
    if r.single:
        return replace(r, single=change(r.single))
    if r.head:
        return replace(r, head=change(r.head), workers=tuple(change(w) for w in r.workers))
    if r.prefill and r.decode:  # every node of each pool, as the page joins each tab
        pool = lambda p: replace(  # noqa: E731
            p, process=change(p.process), workers=tuple(map(change, p.workers))
        )
        return replace(r, prefill=pool(r.prefill), decode=pool(r.decode))
    assert r.kv is not None
    kv = replace(r.kv, head=change(r.kv.head), workers=tuple(change(w) for w in r.kv.workers))
    return replace(r, kv=kv)


@dataclass(frozen=True, init=False)
class HardwareResult:
    """Everything rendered for one variant tree on one hardware profile."""

    hardware: str
    recommended: Rendering
    alternatives: tuple  # Rendering, in strategy-set order

    def __init__(self, hardware, recommended, alternatives):
        fields = self.__dict__  # as Process's (one per tree and profile)
        fields["hardware"], fields["recommended"], fields["alternatives"] = (
            hardware,
            recommended,
            alternatives,
        )


def hardware_result(hardware, recommended, alternatives) -> HardwareResult:
    """`HardwareResult(...)` without the class call (as `process`)."""
    made = _new(HardwareResult)
    _init_hardware_result(made, hardware, recommended, alternatives)
    return made


_init_hardware_result = HardwareResult.__init__


@dataclass(frozen=True)
class VariantTree:
    """A variant as a user selects it: its default hardware and per-hardware renderings."""

    variant: str
    model_id: str
    default_hardware: str
    by_hardware: tuple  # HardwareResult, default hardware first


@dataclass(frozen=True)
class RecipeRenderings:
    hf_id: str
    trees: tuple  # VariantTree, `default` first
    skipped_promotions: tuple = field(
        default_factory=tuple
    )  # (variant, model_id) colliding with a standalone recipe
