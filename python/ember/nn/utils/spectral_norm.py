"""spectral_norm / remove_spectral_norm: a weight divided by its largest singular value, estimated by power
iteration (Miyato et al. 2018), as PyTorch 1.13's torch.nn.utils.spectral_norm.

The module keeps ``<name>_orig`` (the parameter) and the buffers ``<name>_u`` and ``<name>_v`` (the current left
and right singular vector estimates); a forward pre-hook sets ``<name> = <name>_orig / sigma`` before each call,
running ``n_power_iterations`` steps first in training mode (updating u and v in place). The state dict records
``spectral_norm: {'<name>.version': 1}`` in the module's metadata, and a load pre-hook turns a version-0 state dict
(which stored the normalized weight instead of v) into the current layout.
"""
from ... import _C
from ...autograd import no_grad
from ..parameter import Parameter

__all__ = ["spectral_norm", "remove_spectral_norm"]


def _normalize(x, eps):
    """x / max(||x||_2, eps) for a vector (F.normalize with dim=0)."""
    return x / x.norm(2).clamp(min=eps)


class SpectralNorm:
    """The forward pre-hook of one spectrally normalized parameter."""

    _version = 1  # of the state-dict layout: 1 stores <name>_orig, <name>_u and <name>_v

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got n_power_iterations={}"
                             .format(n_power_iterations))
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """weight as a matrix with dim's size rows (dim moved first, the rest flattened)."""
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """<name>_orig / sigma with sigma = u . (W v); with do_power_iteration, u and v are first refined in place
        (and then cloned, so that two forwards before one backward do not see each other's update)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(mat.t().mv(u), self.eps))
                    u.copy_(_normalize(mat.mv(v), self.eps))
                u = u.clone()
                v = v.clone()
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, mat, u, target_sigma):
        """A v with u = normalize(W v), scaled so that u . (W v) is target_sigma (for version-0 state dicts)."""
        wtw_pinv = _C._functions["pinverse"](mat.t().mm(mat))
        v = wtw_pinv.mm(mat.t()).mm(u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / u.dot(mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same parameter {}".format(name))
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            # u first, then v: the same draws from the generator as PyTorch
            u = _normalize(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 state dict (``<name>_orig``, ``<name>``, ``<name>_u``) to version 1 before loading."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and key not in state_dict and \
                all(key + s in state_dict for s in ("_orig", "_u", "_v")):
            return  # a current state dict that lost its metadata
        absent = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[key + "_v"] = fn._solve_v_and_rescale(mat, state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Records the layout version in the module's state-dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError("Unexpected key in metadata['spectral_norm']: {}".format(key))
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Replaces module's parameter name by ``W / sigma(W)``, sigma the largest singular value of W (as a matrix
    with dim's size rows) estimated by power iteration, refined by n_power_iterations steps before each forward
    in training mode.

    Args:
        module (Module): the module holding the parameter.
        name (str): the parameter's name. Default: 'weight'.
        n_power_iterations (int): power-iteration steps per forward. Default: 1.
        eps (float): the least norm a vector is divided by. Default: 1e-12.
        dim (int or None): the output dim; None means 0 (1 for ConvTranspose layers).

    Returns:
        The module, with ``<name>_orig``, ``<name>_u`` and ``<name>_v`` in its state dict.

    Raises:
        ValueError: n_power_iterations below 1; the parameter is None. RuntimeError: applied twice to one name.
    """
    if dim is None:
        from .. import modules

        transposed = tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                           if hasattr(modules, n))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes spectral_norm: name becomes one parameter with the current normalized value (no power iteration),
    and the hooks go. Returns the module. Raises ValueError when name is not spectrally normalized in module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError("spectral_norm of '{}' not found in {}".format(name, module))
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for k, hook in list(hooks.items()):
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[k]
                break
    return module
