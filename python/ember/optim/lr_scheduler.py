"""Learning-rate schedules (PyTorch 1.13's torch.optim.lr_scheduler): LambdaLR, MultiplicativeLR, StepLR,
MultiStepLR, ConstantLR, LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts,
CyclicLR, OneCycleLR, SequentialLR, ChainedScheduler and ReduceLROnPlateau.

Note [chainable and closed-form schedules]
A scheduler's ``step()`` computes each group's new lr from the lr the group has now (the "chainable" form:
StepLR multiplies it by gamma at each step_size boundary), so schedules compose with other changes of the lr.
``step(epoch)`` (deprecated in PyTorch) jumps to an epoch and uses the closed form of the schedule from the
base lrs where the scheduler has one. Both are PyTorch 1.13's formulas, term for term, so the sequences of
lrs agree to the last bit.
"""
import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "_LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
           "LinearLR", "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please "
    "use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. Please open an issue if you are "
    "unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))


def _per_group(name, optimizer, value):
    """value as one entry per parameter group: a list/tuple must have one per group, a number is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError("expected {} values for {}, got {}".format(len(optimizer.param_groups), name,
                                                                       len(value)))
        return list(value)
    return [value] * len(optimizer.param_groups)


def _count_optimizer_steps(optimizer):
    # The optimizer's step() is wrapped (once) to count its calls, so the first scheduler step can warn when it
    # comes before any optimizer step (the schedule's first value would be skipped). The wrapper holds the
    # optimizer weakly: no reference cycle through the instance attribute.
    method = optimizer.step
    if getattr(method, "_with_counter", False):
        return
    optimizer_ref = weakref.ref(method.__self__)
    func = method.__func__

    @functools.wraps(func)
    def step(*args, **kwargs):
        instance = optimizer_ref()
        instance._step_count += 1
        return func(instance, *args, **kwargs)

    step._with_counter = True
    optimizer.step = step


class LRScheduler:
    r"""Base class of the epoch-based schedulers (``_LRScheduler`` in PyTorch 1.13).

    Construction records each group's ``initial_lr`` (its lr at that time, unless resuming) in ``base_lrs``
    and takes the first step, which sets the lrs of epoch 0. Each ``step()`` then advances ``last_epoch`` and
    sets every group's lr to the value of :meth:`get_lr`.

    Args:
        optimizer (Optimizer): the optimizer whose lrs are scheduled.
        last_epoch (int): the index of the last epoch when resuming; -1 starts the schedule. Default: -1.
        verbose (bool): print each lr update. Default: False.

    Raises:
        TypeError: optimizer is not an Optimizer.
        KeyError: resuming (last_epoch != -1) with a group that has no ``initial_lr``.
    """

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in param_groups[{}] when resuming an "
                                   "optimizer".format(i))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _count_optimizer_steps(self.optimizer)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """The scheduler's state: every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores a state made by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs of the groups as the last step() set them."""
        return self._last_lr

    def get_lr(self):
        """The new lr of each group for epoch ``last_epoch`` (chainable form); subclasses define it."""
        raise NotImplementedError

    def _warn_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning)

    def print_lr(self, is_verbose, group, lr, epoch=None):
        """Prints the new lr of a group when is_verbose."""
        if is_verbose:
            if epoch is None:
                print("Adjusting learning rate of group {} to {:.4e}.".format(group, lr))
            else:
                epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                print("Epoch {}: adjusting learning rate of group {} to {:.4e}.".format(epoch_str, group, lr))

    def step(self, epoch=None):
        """Advances the schedule by one epoch (or, deprecated, to ``epoch``) and sets the groups' lrs."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_with_counter"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              "`lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning)
            elif self.optimizer._step_count < 1:
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                              "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
                              "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch "
                              "skipping the first value of the learning rate schedule. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _group_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


_LRScheduler = LRScheduler


class _LambdaScheduler(LRScheduler):
    """The lr_lambda handling LambdaLR and MultiplicativeLR share: one function per group, and state dicts that
    keep the attributes of callable objects (not of functions or lambdas, which cannot be saved)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError("Expected {} lr_lambdas, but got {}".format(len(optimizer.param_groups),
                                                                              len(lr_lambda)))
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        """The scheduler's state; an lr_lambda is saved (its ``__dict__``) only when it is a callable object,
        not a function or lambda (those become None)."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restores a state made by :meth:`state_dict` (callable objects' attributes included); state_dict is
        left unchanged."""
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    r"""lr = initial_lr * lr_lambda(epoch) for each group.

    Args:
        optimizer (Optimizer): the optimizer.
        lr_lambda (callable or list): a function of the epoch giving the factor, or one per group.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: a list of lr_lambdas whose length is not the number of groups.
    """

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    r"""Multiplies each group's lr by lr_lambda(epoch) at every step after the first (chainable):
    lr_t = lr_{t-1} * lr_lambda(t) for t > 0.

    Args:
        optimizer (Optimizer): the optimizer.
        lr_lambda (callable or list): a function of the epoch giving the factor, or one per group.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: a list of lr_lambdas whose length is not the number of groups.
    """

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch > 0:
            return [group["lr"] * lmbda(self.last_epoch)
                    for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return self._group_lrs()


class StepLR(LRScheduler):
    r"""Multiplies the lr by gamma every step_size epochs.

    Args:
        optimizer (Optimizer): the optimizer.
        step_size (int): the period of the decay, in epochs.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    r"""Multiplies the lr by gamma at each milestone epoch (by gamma^k for a milestone listed k times).

    Args:
        optimizer (Optimizer): the optimizer.
        milestones (list of int): epoch indices, increasing.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    r"""Multiplies the lr by factor until epoch total_iters, then restores it:
    lr_t = initial_lr * factor for t < total_iters, initial_lr from then on (chainable: at epoch 0 the lr is
    multiplied by factor, at epoch total_iters divided by it).

    Args:
        optimizer (Optimizer): the optimizer.
        factor (float): the factor, in [0, 1]. Default: 1/3.
        total_iters (int): the number of epochs with the reduced lr. Default: 5.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: factor outside [0, 1].
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._group_lrs()]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [lr * (1.0 / self.factor) for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    r"""Scales the lr by a factor that moves linearly from start_factor to end_factor over total_iters epochs:
    lr_t = initial_lr * (start_factor + (end_factor - start_factor) * min(t, total_iters) / total_iters)
    (the closed form; ``step()`` multiplies the current lr by the ratio of consecutive factors, as PyTorch).

    Args:
        optimizer (Optimizer): the optimizer.
        start_factor (float): the factor at epoch 0, in [0, 1]. Default: 1/3.
        end_factor (float): the factor from epoch total_iters on, in [0, 1]. Default: 1.
        total_iters (int): the number of epochs of the change. Default: 5.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: start_factor or end_factor outside [0, 1].
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor < 0:
            raise ValueError("Starting multiplicative factor expected to be between 0 and 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._group_lrs()]
        if self.last_epoch > self.total_iters:
            return self._group_lrs()
        change = self.end_factor - self.start_factor
        return [lr * (1. + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change))
                for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    r"""Multiplies the lr by gamma every epoch: lr_t = initial_lr * gamma^t.

    Args:
        optimizer (Optimizer): the optimizer.
        gamma (float): the factor.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.
    """

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    r"""Decays the lr polynomially to zero over total_iters epochs:
    lr_t = initial_lr * (1 - min(t, total_iters) / total_iters)^power (the closed form; ``step()`` multiplies
    the current lr by the ratio of consecutive factors, as PyTorch).

    Args:
        optimizer (Optimizer): the optimizer.
        total_iters (int): the number of epochs of the decay. Default: 5.
        power (float): the power of the polynomial. Default: 1.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return self._group_lrs()
        decay_factor = ((1.0 - self.last_epoch / self.total_iters)
                        / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [lr * decay_factor for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


def _nested_state_dict(scheduler):
    # SequentialLR's and ChainedScheduler's state: their own attributes and each wrapped scheduler's state.
    state = {key: value for key, value in scheduler.__dict__.items() if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_nested_state_dict(scheduler, state_dict):
    state = dict(state_dict)
    schedulers = state.pop("_schedulers")
    scheduler.__dict__.update(state)
    for s, saved in zip(scheduler._schedulers, schedulers):
        s.load_state_dict(saved)


class SequentialLR(LRScheduler):
    r"""Runs schedulers one after another: schedulers[i] drives the lr from epoch milestones[i - 1] on
    (restarted there with ``step(0)``, its closed form at epoch 0).

    Args:
        optimizer (Optimizer): the optimizer all schedulers belong to.
        schedulers (list): the schedulers, in order.
        milestones (list of int): the epochs at which the next scheduler takes over (one fewer than
            schedulers).
        last_epoch (int): the index of the last epoch. Default: -1.
        verbose (bool): does nothing (as in PyTorch).

    Raises:
        ValueError: a scheduler of another optimizer; not one milestone fewer than schedulers.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer != optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 f"but got schedulers at index {i} to be different than the optimizer passed in.")
            if scheduler.optimizer != schedulers[0].optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 f"but got schedulers at index {0} and {i} to be different.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                "milestone points, but got number of schedulers {} and the number of milestones to be equal to "
                "{}".format(len(schedulers), len(milestones)))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Back to the initial lrs, the construction step of every scheduler undone, and the first one's
        # initial step taken again.
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        """Advances the active scheduler (restarting the next one at its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        """The scheduler's state with each wrapped scheduler's state under ``_schedulers``."""
        return _nested_state_dict(self)

    def load_state_dict(self, state_dict):
        """Restores a state made by :meth:`state_dict` (the wrapped schedulers' too); state_dict is left
        unchanged."""
        _load_nested_state_dict(self, state_dict)


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the initial lr down to eta_min over T_max epochs (and back up over the next
    T_max, periodically; no restarts):

        lr_t = eta_min + (initial_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2

    computed recursively from the current lr by ``step()`` as PyTorch 1.13 does (so it composes with outside
    changes of the lr), from the formula above by ``step(epoch)``.

    Args:
        optimizer (Optimizer): the optimizer.
        T_max (int): half the period, in epochs.
        eta_min (float): the minimum lr. Default: 0.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.
    """

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        t, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if t == 0:
            return self._group_lrs()
        if self._step_count == 1 and t > 0:  # the first step when resuming: the closed form
            return [eta_min + (base_lr - eta_min) * (1 + math.cos(t * math.pi / t_max)) / 2
                    for base_lr in self.base_lrs]
        if (t - 1 - t_max) % (2 * t_max) == 0:  # leaving the minimum: the recursion's ratio would be 0/0
            return [lr + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                    for base_lr, lr in zip(self.base_lrs, self._group_lrs())]
        return [(1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
                * (lr - eta_min) + eta_min for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / 2 for base_lr in self.base_lrs]


class ChainedScheduler(LRScheduler):
    r"""Steps several chainable schedulers of one optimizer together: each ``step()`` calls every scheduler's
    ``step()`` in order, so their changes of the lr compose.

    Args:
        schedulers (list): the schedulers.

    Raises:
        ValueError: schedulers of different optimizers.
    """

    def __init__(self, schedulers):
        for i in range(1, len(schedulers)):
            if schedulers[i].optimizer != schedulers[0].optimizer:
                raise ValueError("ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
                                 "schedulers at index {} and {} to be different".format(0, i))
        self._schedulers = list(schedulers)
        self.optimizer = schedulers[0].optimizer
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self):
        """Steps every scheduler once."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self):
        """The scheduler's state with each wrapped scheduler's state under ``_schedulers``."""
        return _nested_state_dict(self)

    def load_state_dict(self, state_dict):
        """Restores a state made by :meth:`state_dict` (the wrapped schedulers' too); state_dict is left
        unchanged."""
        _load_nested_state_dict(self, state_dict)


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR: Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with
    Warm Restarts", ICLR 2017): lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2, where
    T_cur counts the epochs since the last restart and T_i, the length of the current cycle, starts at T_0 and
    is multiplied by T_mult at each restart.

    ``step(epoch)`` may be given a fractional epoch (stepping within an epoch, after every batch) and is not
    deprecated here; it computes T_cur and T_i for that epoch.

    Args:
        optimizer (Optimizer): the optimizer.
        T_0 (int): the length of the first cycle, in epochs.
        T_mult (int): the factor of the cycle length after a restart. Default: 1.
        eta_min (float): the minimum lr. Default: 0.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: T_0 not a positive int; T_mult not an int >= 1; a negative epoch given to step().
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got {}".format(T_0))
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got {}".format(T_mult))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advances by one epoch, or goes to ``epoch`` (a float is allowed: a position within the epoch)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError("Expected non-negative epoch, but got {}".format(epoch))
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # The restart n before epoch: T_0 (T_mult^n - 1) / (T_mult - 1) <= epoch.
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, self.get_lr())):
                group["lr"] = lr
                self.print_lr(self.verbose, i, lr, epoch)
        finally:
            self._get_lr_called_within_step = False
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


class CyclicLR(LRScheduler):
    r"""The cyclical learning-rate policy (Smith, "Cyclical Learning Rates for Training Neural Networks", WACV
    2017): the lr goes from base_lr up to max_lr over step_size_up steps and back over step_size_down, scaled
    per cycle or per step by the policy; momentum (when cycled) moves inversely between max_momentum and
    base_momentum. It is stepped after every batch and is not chainable.

    With c = floor(1 + t / total) the cycle, x = 1 + t / total - c its position in [0, 1) and r the fraction
    of the cycle spent rising:

        s = x / r (rising) or (x - 1) / (r - 1) (falling)
        lr = base_lr + (max_lr - base_lr) * s * scale
        momentum = max_momentum - (max_momentum - base_momentum) * s * scale

    with scale = 1 ('triangular'), 1 / 2^(c - 1) ('triangular2'), gamma^t ('exp_range') or scale_fn of the
    cycle or of t (scale_mode).

    Args:
        optimizer (Optimizer): the optimizer.
        base_lr (float or list): the lower lr, or one per group (the groups' lrs are set to it).
        max_lr (float or list): the upper lr, or one per group.
        step_size_up (int): steps of the rising half. Default: 2000.
        step_size_down (int): steps of the falling half. Default: step_size_up.
        mode (str): 'triangular', 'triangular2' or 'exp_range' (ignored with scale_fn). Default: 'triangular'.
        gamma (float): the base of 'exp_range'. Default: 1.
        scale_fn (callable): a custom scale of one argument, in [0, 1]. Default: None.
        scale_mode (str): 'cycle' or 'iterations': what scale_fn takes. Default: 'cycle'.
        cycle_momentum (bool): cycle the momentum too. Default: True.
        base_momentum (float or list): the lower momentum. Default: 0.8.
        max_momentum (float or list): the upper momentum. Default: 0.9.
        last_epoch (int): the index of the last batch when resuming. Default: -1.
        verbose (bool): print each lr update. Default: False.

    Raises:
        TypeError: optimizer is not an Optimizer.
        ValueError: an unknown mode without scale_fn; a list with a length other than the number of groups;
            cycle_momentum with an optimizer without momentum.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1., scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        # Note: the built-in policies are kept by name (PyTorch 1.13 keeps a weak reference to a bound method,
        # which a state dict saved by ember.save could not hold); a custom scale_fn is kept as it is.
        self._scale_fn_custom = scale_fn
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, optimizer.param_groups):
                    group["momentum"] = momentum
            self.base_momentums = [group["momentum"] for group in optimizer.param_groups]
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        """The policy's scale at x (the cycle or the step, per scale_mode)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.
        if self.mode == "triangular2":
            return 1 / (2. ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        """The lrs of step ``last_epoch`` (and, with cycle_momentum, the groups' momentums set as a side
        effect)."""
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1. + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base_momentum, max_momentum in zip(self.optimizer.param_groups, self.base_momentums,
                                                          self.max_momentums):
                group["momentum"] = max_momentum - (max_momentum - base_momentum) * scale_factor * scale
        return lrs


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy: the lr rises from max_lr / div_factor to max_lr over the first pct_start of the
    steps, then falls to initial_lr / final_div_factor; momentum (or Adam's beta1) moves inversely between
    max_momentum and base_momentum. It is stepped after every batch and is not chainable.

    With three_phase the lr falls back to the initial lr symmetrically, and a third phase anneals it to the
    minimum (the original paper's schedule); otherwise (fastai's) the second phase goes straight to the minimum.

    Args:
        optimizer (Optimizer): the optimizer.
        max_lr (float or list): the peak lr, or one per group.
        total_steps (int): the number of steps of the cycle; else epochs * steps_per_epoch.
        epochs (int), steps_per_epoch (int): give total_steps when it is None.
        pct_start (float): the fraction of the steps spent raising the lr. Default: 0.3.
        anneal_strategy (str): 'cos' or 'linear'. Default: 'cos'.
        cycle_momentum (bool): cycle the momentum (the first beta for optimizers with betas). Default: True.
        base_momentum (float or list): the momentum at the lr's peak. Default: 0.85.
        max_momentum (float or list): the momentum at the start and end. Default: 0.95.
        div_factor (float): initial_lr = max_lr / div_factor. Default: 25.
        final_div_factor (float): min_lr = initial_lr / final_div_factor. Default: 1e4.
        three_phase (bool): use three phases (see above). Default: False.
        last_epoch (int): the index of the last batch when resuming. Default: -1.
        verbose (bool): print each lr update. Default: False.

    Raises:
        ValueError: no total_steps nor epochs and steps_per_epoch, or one of them not a positive int;
            pct_start not a float in [0, 1]; an unknown anneal_strategy; a list with a length other than the
            number of groups; cycle_momentum with an optimizer without momentum or betas; stepping past
            total_steps.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError("Expected positive integer total_steps, but got {}".format(total_steps))
            self.total_steps = total_steps
        else:
            if epochs <= 0 or not isinstance(epochs, int):
                raise ValueError("Expected positive integer epochs, but got {}".format(epochs))
            if steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError("Expected positive integer steps_per_epoch, but got {}".format(steps_per_epoch))
            self.total_steps = epochs * steps_per_epoch
        # Each phase anneals from start to end over the steps after the previous phase's end_step up to its
        # own (end_step of a phase as PyTorch computes it: a float from pct_start).
        rise_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            self._schedule_phases = [
                self._phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                            "max_momentum"),
                self._phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                self._phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got {}".format(pct_start))
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got {}".format(
                anneal_strategy))
        # Note: the strategy is kept by name (PyTorch 1.13 keeps the bound method, which a state dict saved by
        # ember.save could not hold).
        self._anneal_strategy = anneal_strategy
        max_lrs = _per_group("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(self.optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if "momentum" not in self.optimizer.defaults and "betas" not in self.optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, m_momentum, b_momentum in zip(optimizer.param_groups, max_momentums, base_momentums):
                    self._set_momentum(group, m_momentum)
                    group["max_momentum"] = m_momentum
                    group["base_momentum"] = b_momentum
        super().__init__(optimizer, last_epoch, verbose)

    @staticmethod
    def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
        return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr, "start_momentum": start_momentum,
                "end_momentum": end_momentum}

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Cosine annealing from start (pct 0) to end (pct 1)."""
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start, end, pct):
        """Linear annealing from start (pct 0) to end (pct 1)."""
        return (end - start) * pct + start

    @property
    def anneal_func(self):
        """The annealing function of the chosen strategy."""
        return self._annealing_cos if self._anneal_strategy == "cos" else self._annealing_linear

    def get_lr(self):
        self._warn_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError("Tried to step {} times. The specified number of total steps is {}".format(
                step_num + 1, self.total_steps))
        anneal = self.anneal_func
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    break
                start_step = end_step
            lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                self._set_momentum(group, anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
        return lrs


class ReduceLROnPlateau:
    r"""Reduces the lr when a metric has stopped improving: after more than ``patience`` epochs without an
    improvement, each group's lr becomes max(lr * factor, min_lr), then ``cooldown`` epochs pass before bad
    epochs count again.

    An improvement is a value below best * (1 - threshold) ('min', 'rel'), below best - threshold ('min',
    'abs'), above best * (1 + threshold) ('max', 'rel') or above best + threshold ('max', 'abs'). A reduction
    smaller than eps is not applied.

    Args:
        optimizer (Optimizer): the optimizer.
        mode (str): 'min' or 'max'. Default: 'min'.
        factor (float): the factor of a reduction (< 1). Default: 0.1.
        patience (int): bad epochs tolerated before a reduction. Default: 10.
        threshold (float): the margin of an improvement. Default: 1e-4.
        threshold_mode (str): 'rel' or 'abs'. Default: 'rel'.
        cooldown (int): epochs after a reduction during which bad epochs are not counted. Default: 0.
        min_lr (float or list): the lower bound of the lr, or one per group. Default: 0.
        eps (float): the smallest reduction applied. Default: 1e-8.
        verbose (bool): print each reduction. Default: False.

    Raises:
        ValueError: factor >= 1; an unknown mode or threshold_mode; a list of min_lr of the wrong length.
        TypeError: optimizer is not an Optimizer.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError("expected {} min_lrs, got {}".format(len(optimizer.param_groups), len(min_lr)))
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.best = None
        self.num_bad_epochs = None
        self.mode_worse = None  # the worst value in the chosen mode: the best before any step
        self.eps = eps
        self.last_epoch = 0
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Takes the epoch's metric (a number or a 0-dim tensor) and reduces the lrs when it is time."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self, epoch):
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr
                if self.verbose:
                    epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                    print("Epoch {}: reducing learning rate of group {} to {:.4e}.".format(epoch_str, i, new_lr))

    @property
    def in_cooldown(self):
        """True while the cooldown after a reduction lasts."""
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        """Whether the metric a improves on best by the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def state_dict(self):
        """The scheduler's state: every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores a state made by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)
