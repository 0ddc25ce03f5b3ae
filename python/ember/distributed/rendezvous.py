"""The rendezvous of ``init_process_group``: an ``init_method`` URL (``env://``, ``tcp://host:port``,
``file:///path``) becomes a store, a rank and a world size, as PyTorch 1.13's ``torch.distributed.rendezvous``
does, with PyTorch's error messages."""
import os
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from .._C._distributed_c10d import FileStore, TCPStore

__all__ = ["rendezvous", "register_rendezvous_handler"]

_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """Registers ``handler(url, timeout=...)``, a generator yielding ``(store, rank, world_size)``, for
    ``scheme://`` URLs. Raises RuntimeError when the scheme already has one."""
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _query(url):
    return {k: v[-1] for k, v in parse_qs(url.query).items()}


def _error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")


def _int_param(query, name, scheme, required=True):
    if name in query:
        return int(query[name])
    if required:
        raise _error(scheme, f"{name.replace('_', ' ')} parameter missing")
    return None


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """Yields ``(store, rank, world_size)`` for ``url``; ``rank`` and ``world_size`` (when not -1) join the URL's
    query. Raises RuntimeError for a scheme without a handler, ValueError for a missing parameter."""
    if not isinstance(url, str):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, int) or not isinstance(world_size, int):
        raise RuntimeError(f"`rank` must be an integer. {rank}" if not isinstance(rank, int)
                           else f"`world_size` must be an integer. {world_size}")
    parsed = urlparse(url)
    query = _query(parsed)
    if rank != -1:
        query["rank"] = str(rank)
    if world_size != -1:
        query["world_size"] = str(world_size)
    if parsed.scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {parsed.scheme}://")
    return _handlers[parsed.scheme](parsed, query, **kwargs)


def _timeout(kwargs):
    t = kwargs.get("timeout", timedelta(minutes=30))
    return t


def _tcp_handler(url, query, **kwargs):
    rank = _int_param(query, "rank", "tcp")
    world_size = _int_param(query, "world_size", "tcp")
    if not url.hostname or url.port is None:
        raise _error("tcp", f"port number missing in {url.geturl()!r} (expected tcp://host:port)")
    store = TCPStore(url.hostname, url.port, world_size, rank == 0, _timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using tcp:// method")


def _file_handler(url, query, **kwargs):
    path = url.path
    if not path:
        raise _error("file", "path missing")
    rank = _int_param(query, "rank", "file")
    world_size = _int_param(query, "world_size", "file")
    store = FileStore(path, world_size, _timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def _env_handler(url, query, **kwargs):
    def env(name):
        value = os.environ.get(name)
        if value is None:
            raise _error("env", f"environment variable {name} expected, but not set")
        return value

    rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
    world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
    master_addr = env("MASTER_ADDR")
    master_port = int(env("MASTER_PORT"))
    store = TCPStore(master_addr, master_port, world_size, rank == 0, _timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using env:// method")


register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("file", _file_handler)
