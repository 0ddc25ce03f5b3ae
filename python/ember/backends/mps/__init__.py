"""Apple's Metal backend (PyTorch's torch.backends.mps). Ember has none, so PyTorch programs that probe for it
(``"mps" if torch.backends.mps.is_available() else "cpu"``) take their CPU path."""

__all__ = ["is_available", "is_built"]


def is_available():
    """False: Ember has no MPS backend."""
    return False


def is_built():
    """False: this build of Ember was not made with MPS support."""
    return False
