"""ember.distributed, as PyTorch 1.13's ``torch.distributed``: process groups over Gloo and their collectives.

- distributed_c10d.py  init_process_group, new_group, the collectives, object collectives, ranks and groups
- rendezvous.py        init_method URLs (env://, tcp://, file://) to stores

The C++ side is ember/distributed (ProcessGroupGloo, TCPStore, FileStore, PrefixStore, Work), bound as
``ember._C._distributed_c10d``.
"""
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import (  # noqa: F401
    _all_gather_base, _reduce_scatter_base, get_global_rank, get_process_group_ranks)
from .rendezvous import register_rendezvous_handler, rendezvous  # noqa: F401
