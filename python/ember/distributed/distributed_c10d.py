"""PyTorch 1.13's ``torch.distributed`` API (``distributed_c10d.py``) over Ember's C++ process groups
(``ember._C._distributed_c10d``, ember/distributed/ProcessGroupGloo.h).

The default group is made by ``init_process_group``; ``new_group`` makes subgroups from the same store (each under
a prefix of its own). Ranks given to the collectives (``src``, ``dst``) are global ranks, as in PyTorch; a process
outside a subgroup gets ``GroupMember.NON_GROUP_MEMBER`` from ``new_group`` and the collectives on that group warn
and return None there.

Object collectives (``broadcast_object_list``, ``all_gather_object``, ``gather_object``, ``scatter_object_list``)
send objects as Ember's own archive (``ember.save``'s format: tensors, None, bool, int, float, str, dtypes,
``ember.Size``, and lists, tuples, namedtuples and dicts of them), read back with the C++ reader that never runs
code: no pickle crosses ranks. An object that format cannot hold raises TypeError on the sending rank.
"""
import io
import warnings
from datetime import timedelta

from .. import _C
from .._C import _distributed_c10d as _c10d
from .rendezvous import rendezvous

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Store", "TCPStore", "FileStore", "PrefixStore", "Work",
    "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "barrier", "broadcast",
    "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_rank", "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched",
    "isend", "new_group", "recv", "reduce", "reduce_op", "reduce_scatter", "reduce_scatter_tensor", "scatter",
    "scatter_object_list", "send", "supports_complex", "P2POp", "batch_isend_irecv", "get_group_rank",
]

ReduceOp = _c10d.ReduceOp
reduce_op = ReduceOp  # PyTorch's deprecated alias
Store, TCPStore, FileStore, PrefixStore = _c10d.Store, _c10d.TCPStore, _c10d.FileStore, _c10d.PrefixStore
Work, ProcessGroup, ProcessGroupGloo = _c10d.Work, _c10d.ProcessGroup, _c10d.ProcessGroupGloo

default_pg_timeout = timedelta(minutes=30)


class Backend(str):
    """The name of a backend (``Backend.GLOO == "gloo"``); Ember has Gloo only. ``Backend("GLOO")`` is
    ``"gloo"``; an unknown name raises ValueError."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            raise ValueError(f"Invalid backend: '{name}'")
        return value


class group:
    """``group.WORLD``: the default process group once initialized (None before)."""
    WORLD = None


class GroupMember:
    """``GroupMember.WORLD`` (as ``group.WORLD``) and ``NON_GROUP_MEMBER``, what ``new_group`` returns to a
    process outside the new group."""
    WORLD = None
    NON_GROUP_MEMBER = object()


class _State:
    """The module's state: the default group, its store, and every group's backend and rank mapping."""
    default_store = None
    group_count = 0
    pg_backend = {}      # group -> backend name
    pg_ranks = {}        # group -> {global rank: group rank}


def _set_world(pg):
    group.WORLD = pg
    GroupMember.WORLD = pg


def is_available():
    """True: Ember's distributed package is built (with Gloo)."""
    return True


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_torchelastic_launched():
    """Whether this process was started by a launcher that sets ``TORCHELASTIC_RUN_ID`` (as torchrun does)."""
    import os
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_initialized():
    """Whether ``init_process_group`` has made the default process group."""
    return GroupMember.WORLD is not None


def supports_complex(reduceOp):
    """Whether ``reduceOp`` applies to complex tensors (SUM and AVG do)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND, ReduceOp.BOR,
                            ReduceOp.BXOR)


def _get_default_group():
    if not is_initialized():
        raise RuntimeError("Default process group has not been initialized, "
                           "please make sure to call init_process_group.")
    return GroupMember.WORLD


def _rank_not_in_group(group_):
    return group_ is GroupMember.NON_GROUP_MEMBER


def _warn_not_in_group(op_name):
    global_rank = -1 if GroupMember.WORLD is None else GroupMember.WORLD.rank()
    warnings.warn(f"Running {op_name} on global rank {global_rank} which does not belong to the given group.")


def _resolve(group_):
    """The process group a call works on: the default one for None."""
    if group_ is None or group_ is GroupMember.WORLD:
        return _get_default_group()
    if group_ not in _State.pg_ranks:
        raise RuntimeError("Invalid process group specified")
    return group_


def _group_rank(pg, global_rank):
    """The rank in pg of a global rank. Raises RuntimeError when it is not in pg."""
    if pg is GroupMember.WORLD:
        return global_rank
    try:
        return _State.pg_ranks[pg][global_rank]
    except KeyError:
        raise RuntimeError(f"The global rank {global_rank} is not part of the group {pg}") from None


def _global_rank(pg, group_rank):
    if pg is GroupMember.WORLD:
        return group_rank
    for g, r in _State.pg_ranks[pg].items():
        if r == group_rank:
            return g
    raise RuntimeError(f"The group rank {group_rank} is not part of the group {pg}")


def _check_timeout(timeout):
    if not isinstance(timeout, timedelta):
        raise RuntimeError("Expected timeout argument to be of type datetime.timedelta")


def _check_backend(backend):
    backend = Backend(backend)
    if backend == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if backend == Backend.MPI:
        raise RuntimeError("Distributed package doesn't have MPI built in. MPI is only included if you build "
                           "PyTorch from source on a host that has MPI installed.")
    return backend


def _new_gloo_group(store, rank, size, timeout):
    """A ProcessGroupGloo over a prefix of store of its own (the n-th group made by this process)."""
    prefix = PrefixStore(f"{_State.group_count}", store)
    _State.group_count += 1
    return ProcessGroupGloo(prefix, rank, size, timeout)


def init_process_group(backend, init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    """Makes the default process group (PyTorch's ``init_process_group``); returns once every rank has joined.

    Args:
        backend (str or Backend): ``"gloo"`` (the only backend Ember has).
        init_method (str, optional): how the ranks meet: ``"env://"`` (the default; ``MASTER_ADDR``,
            ``MASTER_PORT``, and ``RANK``/``WORLD_SIZE`` unless given), ``"tcp://host:port"`` (rank 0 serves the
            store on that port) or ``"file:///path"`` (a file every rank sees; give each run a new one).
            Exclusive with ``store``.
        timeout (timedelta): how long the rendezvous and each collective may take (30 minutes).
        world_size (int), rank (int): required with ``tcp://``, ``file://`` and ``store``.
        store (Store, optional): a store every rank reaches, instead of ``init_method``.

    Raises:
        RuntimeError: called twice; NCCL or MPI asked for; the rendezvous or the connection fails or times out
            (a port in use, a wrong world size: the message names them); a scheme without a handler.
        ValueError: an unknown backend; a parameter the ``init_method`` needs is missing.
    """
    if GroupMember.WORLD is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    _check_timeout(timeout)
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    backend = _check_backend(backend)
    if store is not None:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    else:
        if init_method is None:
            init_method = "env://"
        store, rank, world_size = next(rendezvous(init_method, rank, world_size, timeout=timeout))
        store.set_timeout(timeout)
    pg = _new_gloo_group(store, rank, world_size, timeout)
    _State.default_store = store
    _State.pg_backend[pg] = str(backend)
    _State.pg_ranks[pg] = {r: r for r in range(world_size)}
    _set_world(pg)


def new_group(ranks=None, timeout=default_pg_timeout, backend=None, pg_options=None):
    """A process group of the given global ranks (all when None), in their sorted order (PyTorch's
    ``new_group``). Every process of the default group must call it, members or not, in the same order.

    Returns the group, or ``GroupMember.NON_GROUP_MEMBER`` in a process that is not in ``ranks``.
    Raises RuntimeError before ``init_process_group`` and for a rank outside the world.
    """
    default_pg = _get_default_group()
    _check_timeout(timeout)
    if backend is not None:
        _check_backend(backend)
    world_size, global_rank = default_pg.size(), default_pg.rank()
    if ranks is None or len(ranks) == 0:
        ranks = list(range(world_size))
    ranks = sorted(ranks)
    for r in ranks:
        if r < 0 or r >= world_size:
            raise RuntimeError("The new group's rank should be within the world_size set by init_process_group")
    if global_rank not in ranks:
        _State.group_count += 1  # the members' prefix of this group
        return GroupMember.NON_GROUP_MEMBER
    pg = _new_gloo_group(_State.default_store, ranks.index(global_rank), len(ranks), timeout)
    _State.pg_backend[pg] = "gloo"
    _State.pg_ranks[pg] = {g: i for i, g in enumerate(ranks)}
    return pg


def destroy_process_group(group=None):
    """Destroys ``group``, or every group and the default one when None (PyTorch's). Queued operations finish
    first. Raises RuntimeError when there is no default group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group is None or group is GroupMember.WORLD:
        _get_default_group()
        for pg in _State.pg_ranks:
            pg._shutdown()
        _State.pg_backend.clear()
        _State.pg_ranks.clear()
        _State.default_store = None
        _State.group_count = 0
        _set_world(None)
    else:
        if group not in _State.pg_ranks:
            raise RuntimeError("Invalid process group specified")
        group._shutdown()
        del _State.pg_backend[group]
        del _State.pg_ranks[group]


def get_rank(group=None):
    """This process's rank in ``group`` (the default group when None), -1 outside it. Raises RuntimeError before
    ``init_process_group``."""
    if _rank_not_in_group(group):
        return -1
    return _resolve(group).rank()


def get_world_size(group=None):
    """The number of processes in ``group`` (the default group when None), -1 outside it. Raises RuntimeError
    before ``init_process_group``."""
    if _rank_not_in_group(group):
        return -1
    return _resolve(group).size()


def get_backend(group=None):
    """``"gloo"`` for a group of this process. Raises RuntimeError outside it or before ``init_process_group``."""
    if _rank_not_in_group(group):
        raise RuntimeError("Invalid process group specified")
    return _State.pg_backend[_resolve(group)]


def get_group_rank(group, global_rank):
    """The rank in ``group`` of ``global_rank``. Raises RuntimeError when it is not in the group."""
    return _group_rank(_resolve(group), global_rank)


def get_global_rank(group, group_rank):
    """The global rank of ``group_rank`` of ``group``."""
    return _global_rank(_resolve(group), group_rank)


def get_process_group_ranks(group):
    """The global ranks of ``group``, in group-rank order."""
    pg = _resolve(group)
    return [g for g, _ in sorted(_State.pg_ranks[pg].items(), key=lambda kv: kv[1])]


# ---- argument checks (PyTorch's messages)

def _is_tensor(x):
    return isinstance(x, _C._TensorBase)


def _check_single_tensor(param, param_name):
    if not _is_tensor(param):
        raise RuntimeError(f"Invalid function argument. Expected parameter `{param_name}` to be of type "
                           f"torch.Tensor.")


def _check_tensor_list(param, param_name):
    if not isinstance(param, list) or not all(_is_tensor(p) for p in param):
        raise RuntimeError(f"Invalid function argument. Expected parameter `{param_name}` to be of type "
                           f"List[torch.Tensor].")


def _check_op(op):
    if op not in ReduceOp.__members__.values():
        raise RuntimeError(f"Invalid function argument: op must be a ReduceOp, got {op!r}")


def _finish(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


# ---- collectives

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` across the group in place: every rank ends with the same result.

    Args: ``tensor`` (any dtype; complex with SUM/AVG only), ``op`` (ReduceOp: SUM, AVG, PRODUCT, MIN, MAX, BAND,
    BOR, BXOR), ``group``, ``async_op`` (return a Work instead of waiting).
    Returns: a Work with ``async_op``, else None (also outside the group).
    Raises: RuntimeError before ``init_process_group`` or when the exchange fails (a rank gone, a timeout,
    mismatched sizes); ValueError for a complex tensor with another op.
    """
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_reduce")
        return None
    _check_op(op)
    if tensor.is_complex() and not supports_complex(op):
        raise ValueError(f"all_reduce does not support {op} on complex tensors")
    return _finish(_resolve(group).allreduce(tensor, op), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies ``tensor`` of global rank ``src`` into ``tensor`` of every rank of the group (same shape and dtype
    everywhere). Returns a Work with ``async_op``, else None."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast")
        return None
    pg = _resolve(group)
    return _finish(pg.broadcast(tensor, _group_rank(pg, src)), async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` across the group into global rank ``dst``'s ``tensor``; the others' tensors are left as
    they were. Returns a Work with ``async_op``, else None."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce")
        return None
    _check_op(op)
    pg = _resolve(group)
    return _finish(pg.reduce(tensor, _group_rank(pg, dst), op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[r]`` receives rank r's ``tensor``; ``tensor_list`` holds the group's size of tensors of
    ``tensor``'s shape and dtype. Raises RuntimeError for a list of another length, shape or dtype."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather")
        return None
    return _finish(_resolve(group).allgather(tensor_list, tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's ``input_tensor`` into ``output_tensor`` (contiguous, world_size times as many
    elements; rank r's at ``r * input_tensor.numel()``, so an output of shape (world_size * n, ...) stacks
    them). Raises RuntimeError for a size or dtype that does not fit."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_into_tensor")
        return None
    return _finish(_resolve(group)._allgather_base(output_tensor, input_tensor), async_op)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    """PyTorch's deprecated name of ``all_gather_into_tensor``."""
    warnings.warn("torch.distributed._all_gather_base is a private function and will be deprecated. Please use "
                  "torch.distributed.all_gather_into_tensor instead.")
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank r's ``output`` receives the reduction over ranks of ``input_list[r]`` (the list holds the group's
    size of tensors of ``output``'s shape and dtype)."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter")
        return None
    _check_op(op)
    return _finish(_resolve(group).reduce_scatter(output, input_list, op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank r's ``output`` receives slice r of the reduction of ``input`` (world_size times ``output``'s number
    of elements)."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter_tensor")
        return None
    _check_op(op)
    return _finish(_resolve(group)._reduce_scatter_base(output, input, op), async_op)


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """PyTorch's deprecated name of ``reduce_scatter_tensor``."""
    warnings.warn("torch.distributed._reduce_scatter_base is a private function and will be deprecated. Please "
                  "use torch.distributed.reduce_scatter_tensor instead.")
    return reduce_scatter_tensor(output, input, op, group, async_op)


def _validate_list_for_rank(my_rank, root, lst, name, root_word):
    if root == my_rank:
        if not lst:
            raise ValueError(f"Argument ``{name}`` must be specified on {root_word} rank.")
    elif lst:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{root_word} ranks.")


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Global rank ``dst``'s ``gather_list[r]`` receives rank r's ``tensor``; the other ranks pass no list.
    Raises ValueError for a list missing on ``dst`` or given elsewhere."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    if _rank_not_in_group(group):
        _warn_not_in_group("gather")
        return None
    pg = _resolve(group)
    root = _group_rank(pg, dst)
    _validate_list_for_rank(pg.rank(), root, gather_list, "gather_list", "destination")
    return _finish(pg.gather(gather_list if pg.rank() == root else None, tensor, root), async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank r's ``tensor`` receives global rank ``src``'s ``scatter_list[r]``; the other ranks pass no list.
    Raises ValueError for a list missing on ``src`` or given elsewhere."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter")
        return None
    pg = _resolve(group)
    root = _group_rank(pg, src)
    _validate_list_for_rank(pg.rank(), root, scatter_list, "scatter_list", "source")
    return _finish(pg.scatter(tensor, scatter_list if pg.rank() == root else None, root), async_op)


def barrier(group=GroupMember.WORLD, async_op=False, device_ids=None):
    """Returns once every rank of the group has called it (and this rank's earlier operations have ended)."""
    if _rank_not_in_group(group):
        _warn_not_in_group("barrier")
        return None
    return _finish(_resolve(group).barrier(), async_op)


def isend(tensor, dst, group=None, tag=0):
    """Starts sending ``tensor`` (contiguous) to global rank ``dst``; returns a Work whose ``wait()`` ends when
    it has gone. Matched by the ``recv``/``irecv`` with the same ``tag`` there."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("isend")
        return None
    pg = _resolve(group)
    return pg.send(tensor, _group_rank(pg, dst), tag)


def irecv(tensor, src=None, group=None, tag=0):
    """Starts receiving into ``tensor`` (contiguous) from global rank ``src`` (any rank when None); returns a
    Work whose ``wait()`` ends when it has arrived."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("irecv")
        return None
    pg = _resolve(group)
    if src is None:
        return pg.recv_anysource(tensor, tag)
    return pg.recv(tensor, _group_rank(pg, src), tag)


def send(tensor, dst, group=None, tag=0):
    """Sends ``tensor`` (contiguous) to global rank ``dst`` and waits until it has gone.
    Raises RuntimeError for a non-contiguous tensor, a bad rank, or a failed exchange."""
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into ``tensor`` (contiguous) from global rank ``src`` (any when None); returns the sender's global
    rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    pg = _resolve(group)
    return _global_rank(pg, work.source_rank()) if src is None else src


class P2POp:
    """A point-to-point operation for ``batch_isend_irecv``: ``op`` is ``isend`` or ``irecv``, ``peer`` a global
    rank. Raises RuntimeError for another ``op``."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise RuntimeError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                               "``torch.distributed.irecv``.")
        _check_single_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Starts every operation of ``p2p_op_list`` (P2POp) and returns their Works, in order. Raises RuntimeError
    for an empty list or one whose items are not P2POp."""
    if not isinstance(p2p_op_list, list) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise RuntimeError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                           "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# ---- object collectives (Ember's archive, no pickle)

def _object_to_tensor(obj, fn):
    from .. import serialization, uint8, frombuffer, tensor as _tensor, int64
    f = io.BytesIO()
    try:
        _C._save_to(obj, f, serialization._classes())
    except TypeError as e:
        raise TypeError(f"{fn}: cannot send an object of type {type(obj).__name__}: objects cross ranks as "
                        f"Ember's archive (tensors, None, numbers, strings, dtypes, ember.Size, and lists, tuples "
                        f"and dicts of them), never pickled ({e})") from None
    data = bytearray(f.getvalue())
    return frombuffer(data, dtype=uint8), _tensor([len(data)], dtype=int64)


def _tensor_to_object(t, size):
    from .. import load
    return load(io.BytesIO(t[:size].numpy().tobytes()), weights_only=True)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Replaces ``object_list``'s items on every rank by those of global rank ``src`` (lists of equal length
    everywhere). Objects travel as Ember's archive (module docstring); TypeError for one it cannot hold."""
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast_object_list")
        return
    from .. import zeros, int64, uint8, empty
    pg = _resolve(group)
    is_src = pg.rank() == _group_rank(pg, src)
    if is_src:
        pairs = [_object_to_tensor(o, "broadcast_object_list") for o in object_list]
        sizes = zeros(len(object_list), dtype=int64)
        for i, (_, s) in enumerate(pairs):
            sizes[i] = s[0]
    else:
        sizes = zeros(len(object_list), dtype=int64)
    broadcast(sizes, src, group)
    total = int(sizes.sum().item())
    if is_src:
        from .. import cat
        data = cat([t for t, _ in pairs]) if pairs else empty(0, dtype=uint8)
    else:
        data = empty(total, dtype=uint8)
    broadcast(data, src, group)
    if not is_src:
        offset = 0
        for i in range(len(object_list)):
            n = int(sizes[i].item())
            object_list[i] = _tensor_to_object(data[offset:offset + n], n)
            offset += n


def all_gather_object(object_list, obj, group=None):
    """``object_list[r]`` becomes rank r's ``obj`` on every rank (``object_list`` has the group's size).
    Objects travel as Ember's archive (module docstring); TypeError for one it cannot hold."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_object")
        return
    from .. import zeros, int64, uint8
    pg = _resolve(group)
    data, size = _object_to_tensor(obj, "all_gather_object")
    sizes = [zeros(1, dtype=int64) for _ in range(pg.size())]
    all_gather(sizes, size, group)
    max_size = max(int(s.item()) for s in sizes)
    padded = zeros(max_size, dtype=uint8)
    padded[:data.numel()] = data
    outs = [zeros(max_size, dtype=uint8) for _ in range(pg.size())]
    all_gather(outs, padded, group)
    for i, t in enumerate(outs):
        object_list[i] = _tensor_to_object(t, int(sizes[i].item()))


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Global rank ``dst``'s ``object_gather_list[r]`` becomes rank r's ``obj``; the others pass None."""
    if _rank_not_in_group(group):
        _warn_not_in_group("gather_object")
        return
    pg = _resolve(group)
    root = _group_rank(pg, dst)
    _validate_list_for_rank(pg.rank(), root, object_gather_list, "object_gather_list", "destination")
    gathered = [None] * pg.size()
    all_gather_object(gathered, obj, group)
    if pg.rank() == root:
        object_gather_list[:] = gathered[:len(object_gather_list)]
        for i in range(len(object_gather_list), pg.size()):
            object_gather_list.append(gathered[i])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """``scatter_object_output_list[0]`` of rank r becomes global rank ``src``'s
    ``scatter_object_input_list[r]``."""
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter_object_list")
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise RuntimeError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = _resolve(group)
    objects = list(scatter_object_input_list) if pg.rank() == _group_rank(pg, src) else [None] * pg.size()
    broadcast_object_list(objects, src, group)
    scatter_object_output_list[0] = objects[pg.rank()]
