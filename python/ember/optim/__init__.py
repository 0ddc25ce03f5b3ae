"""ember.optim: optimizers and learning-rate schedules (PyTorch 1.13's torch.optim).

The optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS) follow
PyTorch 1.13's single-tensor (foreach=False) updates operation by operation, with the same state entries and
state dicts; ``ember.optim.lr_scheduler`` holds the schedulers and ``ember.optim.swa_utils`` stochastic weight
averaging.
"""
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from . import lr_scheduler
from . import swa_utils

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD", "lr_scheduler", "swa_utils"]
