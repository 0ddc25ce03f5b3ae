"""ember.nn: neural-network building blocks (PyTorch's torch.nn). ``ember.nn.functional`` holds the stateless
functions (activations, pooling, normalization, embedding, losses) over the ops of the database."""
from . import functional  # noqa: F401
