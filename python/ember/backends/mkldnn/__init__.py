"""``torch.backends.mkldnn`` under PyTorch's name: the same switch as ``ember.backends.onednn`` (oneDNN was
called MKL-DNN), so PyTorch programs that read or set ``torch.backends.mkldnn.enabled`` run unchanged."""
from .. import _install

_install(__name__, "onednn")
