"""ember.cuda: Ember runs on the CPU only, so PyTorch programs that ask for a GPU take their CPU path
(``device = "cuda" if torch.cuda.is_available() else "cpu"``). Making a tensor on a CUDA device still raises."""


def is_available():
    """False: Ember has no CUDA backend."""
    return False


def device_count():
    """0: Ember has no CUDA backend."""
    return 0
