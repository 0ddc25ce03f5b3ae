"""ember.multiprocessing (PyTorch's torch.multiprocessing): Python's ``multiprocessing``, whose every name it
re-exports (Process, Queue, SimpleQueue, Pool, Manager, get_context, set_start_method, Event, Lock, Value,
Array, ...), with tensors that travel to other processes by shared memory instead of by value.

Importing it registers the tensor reducers with multiprocessing's pickler (``reductions.init_reductions``): a
tensor or Parameter sent as a Process argument under 'spawn' or 'forkserver', or through a Queue or Pipe of any
context, arrives as a view of the sender's memory, moved to shared memory first when it is private (see
``ember.multiprocessing.reductions``). Under 'fork' children inherit the parent's memory mappings: a tensor
moved to shared memory before the fork (``Tensor.share_memory_``, ``Module.share_memory``) is written in place
by parent and children alike, which is how Hogwild training shares one model.

The one sharing strategy is 'file_descriptor' (each shared tensor keeps the descriptor of its unlinked /dev/shm
file open, and that descriptor travels); ``spawn``/``start_processes`` run fn(i, *args) in new processes.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (everything of Python's multiprocessing, as torch's)

from .reductions import init_reductions
from .spawn import (  # noqa: F401
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "init_reductions",
           "spawn", "start_processes", "ProcessContext", "SpawnContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException"] + multiprocessing.__all__

_all_sharing_strategies = {"file_descriptor"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Sets how tensors are shared between processes; Ember has one strategy, 'file_descriptor'.

    Raises:
        AssertionError: any other name (as PyTorch for a strategy it lacks; PyTorch's 'file_system', which
            keeps named files until a daemon removes them, is not implemented).
    """
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"set_sharing_strategy: unknown or unsupported strategy {new_strategy!r}; Ember "
                             f"supports {sorted(_all_sharing_strategies)}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current sharing strategy: 'file_descriptor'."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this platform supports: {'file_descriptor'}."""
    return set(_all_sharing_strategies)


init_reductions()
