"""Stochastic weight averaging (PyTorch 1.13's torch.optim.swa_utils): AveragedModel, SWALR and update_bn.

SWA (Izmailov et al., "Averaging Weights Leads to Wider Optima and Better Generalization", UAI 2018) trains
with a constant or cyclical lr (SWALR anneals to it), averages the weights visited (AveragedModel), and
recomputes the batch-norm statistics of the averaged weights at the end (update_bn).
"""
import itertools
import math
from copy import deepcopy

from .. import _C
from ..autograd import set_grad_enabled
from ..nn import Module
from ..nn.modules.batchnorm import _BatchNorm
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR"]


def _equal_average(averaged_param, model_param, num_averaged):
    # The running mean: a + (x - a) / (n + 1).
    return averaged_param + (model_param - averaged_param) / (num_averaged + 1)


class AveragedModel(Module):
    r"""A copy of a model whose parameters (and with use_buffers, buffers) are a running average of the
    model's: ``update_parameters(model)`` folds the model's current values in with avg_fn (default: the equal
    average, a + (x - a) / (n + 1)); the first call copies them. ``forward`` runs the copy.

    Args:
        model (Module): the model to average (deep-copied).
        device (str or ember.device): where the copy lives. Default: the model's.
        avg_fn (callable): avg_fn(averaged, current, n_averaged) -> new averaged value (e.g. an exponential
            moving average). Default: the equal average.
        use_buffers (bool): average the buffers too (and the parameters of the copy's module, as PyTorch
            does), instead of the parameters only. Default: False.

    Attributes:
        module: the averaged copy.
        n_averaged: the number of models averaged so far (an int64 0-dim buffer).
    """

    def __init__(self, model, device=None, avg_fn=None, use_buffers=False):
        super().__init__()
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = _equal_average if avg_fn is None else avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Folds model's current parameters (and buffers, with use_buffers) into the average."""
        if self.use_buffers:
            own = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        for p_swa, p_model in zip(own, theirs):
            device = p_swa.device
            p_model_ = p_model.detach().to(device)
            if self.n_averaged == 0:
                p_swa.detach().copy_(p_model_)
            else:
                p_swa.detach().copy_(self.avg_fn(p_swa.detach(), p_model_, self.n_averaged.to(device)))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    r"""Recomputes the running statistics of every batch-norm layer of model with one pass over loader (their
    cumulative average: momentum None), e.g. for the weights of an AveragedModel. The model's training mode and
    the layers' momentums are restored afterwards; a model without batch norm is left alone.

    Args:
        loader (iterable): batches; a list or tuple batch contributes its first element.
        model (Module): the model.
        device (str or ember.device): where each batch is moved first. Default: left where it is.
    """
    with set_grad_enabled(False):
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.running_mean = _C._functions["zeros_like"](module.running_mean)
                module.running_var = _C._functions["ones_like"](module.running_var)
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
            module.num_batches_tracked *= 0
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


def _format_swa_lrs(optimizer, swa_lrs):
    if isinstance(swa_lrs, (list, tuple)):
        if len(swa_lrs) != len(optimizer.param_groups):
            raise ValueError("swa_lr must have the same length as optimizer.param_groups: swa_lr has "
                             f"{len(swa_lrs)}, optimizer.param_groups has {len(optimizer.param_groups)}")
        return swa_lrs
    return [swa_lrs] * len(optimizer.param_groups)


class SWALR(LRScheduler):
    r"""Anneals each group's lr to its swa_lr over anneal_epochs epochs and keeps it there (PyTorch 1.13's
    SWALR): with alpha_t = anneal(min(1, t / anneal_epochs)), where anneal is (1 - cos(pi t)) / 2 ('cos') or
    t ('linear'), lr_t = swa_lr * alpha_t + lr_0 * (1 - alpha_t), computed each step from the current lr (the
    lr_0 it implies with the previous alpha), as PyTorch does.

    Args:
        optimizer (Optimizer): the optimizer.
        swa_lr (float or list): the target lr, or one per group (stored in the groups as ``swa_lr``).
        anneal_epochs (int): epochs of the annealing. Default: 10.
        anneal_strategy (str): 'cos' or 'linear'. Default: 'cos'.
        last_epoch (int): as :class:`LRScheduler`. Default: -1.

    Raises:
        ValueError: a list of swa_lr not one per group; an unknown anneal_strategy; anneal_epochs not an int
            >= 0.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_swa_lrs(optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        # Kept by name (PyTorch keeps the function itself, which a state dict saved by ember.save could not
        # hold).
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @property
    def anneal_func(self):
        """The annealing function of the chosen strategy."""
        return self._cosine_anneal if self._anneal_strategy == "cos" else self._linear_anneal

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
