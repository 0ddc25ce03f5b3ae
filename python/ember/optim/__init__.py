"""ember.optim: optimizers and learning-rate schedules (PyTorch 1.13's torch.optim).

The optimizers (SGD, Adam, AdamW, RMSprop) follow PyTorch 1.13's single-tensor (foreach=False) updates
operation by operation, with the same state entries and state dicts; ``ember.optim.lr_scheduler`` holds the
schedulers.
"""
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from . import lr_scheduler

__all__ = ["Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
