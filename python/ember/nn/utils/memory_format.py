"""convert_conv2d_weight_memory_format (PyTorch's torch.nn.utils.memory_format)."""
__all__ = ["convert_conv2d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module, memory_format):
    """Stores the weight of every Conv2d (and ConvTranspose2d) in module in memory_format (e.g.
    ember.channels_last), keeping the Parameter objects. Returns module."""
    from .. import modules

    convs = tuple(getattr(modules, n) for n in ("Conv2d", "ConvTranspose2d") if hasattr(modules, n))
    if isinstance(module, convs):
        module.weight.data = module.weight.detach().clone().contiguous(memory_format=memory_format)
    for child in module.children():
        convert_conv2d_weight_memory_format(child, memory_format)
    return module
