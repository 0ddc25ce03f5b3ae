"""Learning-rate schedules (PyTorch 1.13's torch.optim.lr_scheduler): LambdaLR, StepLR, MultiStepLR,
CosineAnnealingLR, OneCycleLR and ReduceLROnPlateau.

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

__all__ = ["LRScheduler", "_LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "CosineAnnealingLR", "OneCycleLR",
           "ReduceLROnPlateau"]

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


class LambdaLR(LRScheduler):
    r"""lr = initial_lr * lr_lambda(epoch) for each group.

    Args:
        optimizer (Optimizer): the optimizer.
        lr_lambda (callable or list): a function of the epoch giving the factor, or one per group.
        last_epoch (int), verbose (bool): as :class:`LRScheduler`.

    Raises:
        ValueError: a list of lr_lambdas whose length is not the number of groups.
    """

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

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


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
