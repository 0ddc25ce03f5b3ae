"""The layers of ember.nn, in files named like PyTorch's torch/nn/modules."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear  # noqa: F401
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .pooling import (  # noqa: F401
    MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
    AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, LPPool1d, LPPool2d,
    FractionalMaxPool2d, FractionalMaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .padding import (  # noqa: F401
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad2d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
    ReplicationPad1d, ReplicationPad2d, ReplicationPad3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle  # noqa: F401
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d  # noqa: F401
from .fold import Fold, Unfold  # noqa: F401
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: F401
from .batchnorm import BatchNorm3d, SyncBatchNorm, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d  # noqa: F401
from .instancenorm import (  # noqa: F401
    InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d)
from .normalization import LayerNorm, GroupNorm  # noqa: F401
from .normalization import LocalResponseNorm, CrossMapLRN2d  # noqa: F401
from .linear import LazyLinear  # noqa: F401
from .conv import (  # noqa: F401
    LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .dropout import Dropout  # noqa: F401
from .dropout import Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .activation import (  # noqa: F401
    Threshold, ReLU, ReLU6, Hardtanh, LeakyReLU, ELU, CELU, SELU, GELU, SiLU, Mish, Sigmoid, Tanh, Softplus,
    Hardsigmoid, Hardswish, LogSigmoid, GLU, Softmax, LogSoftmax, Softmin, Softsign, Tanhshrink)
from .activation import PReLU, RReLU, Hardshrink, Softshrink, Softmax2d, MultiheadAttention  # noqa: F401
from .transformer import (  # noqa: F401
    Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer, TransformerDecoderLayer)
from .loss import (  # noqa: F401
    L1Loss, MSELoss, NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss, HuberLoss)
from .loss import (  # noqa: F401
    NLLLoss2d, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss,
    SoftMarginLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, TripletMarginLoss,
    TripletMarginWithDistanceLoss, CTCLoss)
from .distance import PairwiseDistance, CosineSimilarity  # noqa: F401
from .linear import Bilinear  # noqa: F401
from .sparse import EmbeddingBag  # noqa: F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401

__all__ = [name for name in dir() if name[0].isupper()]
