"""The default random generator: seeding and state, as ``torch.random`` (also exported as ``ember.manual_seed``,
``ember.seed``, ``ember.initial_seed``, ``ember.get_rng_state``, ``ember.set_rng_state``).

Ember's CPU generator is PyTorch's: the same seed gives the same numbers from every random op, and states from
``get_rng_state`` move between the two (uint8 tensors of 5056 bytes).
"""
import contextlib

from ._C import Generator, default_generator  # noqa: F401  (re-exported)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


def manual_seed(seed):
    """Seeds the default generator and returns it.

    Args:
        seed (int): the seed, in ``[-2**63, 2**64)``; negative seeds are taken modulo ``2**64`` (their two's
            complement). Anything ``int()`` accepts is converted first, so ``1.5`` seeds with 1.

    Returns:
        Generator: ``ember.default_generator``.

    Raises:
        RuntimeError: a seed outside that range. ValueError/TypeError: from ``int(seed)``.
    """
    return default_generator.manual_seed(int(seed))


def seed():
    """Reseeds the default generator with a non-deterministic 64-bit seed (from /dev/urandom) and returns it."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with, as a Python int."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor of 5056 bytes (PyTorch's layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator's state from ``get_rng_state()`` (or PyTorch's ``torch.get_rng_state()``).

    Raises:
        TypeError: new_state is not a uint8 tensor. RuntimeError: it has the wrong size or an invalid state.
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """A context in which the default generator may be used freely: its state is restored on exit. ``devices``
    is accepted for PyTorch compatibility (there are only CPUs)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
