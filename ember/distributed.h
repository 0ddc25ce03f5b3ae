#pragma once
// ember::distributed (LibTorch's c10d): the rendezvous stores (TCPStore, FileStore, PrefixStore), Work and the
// process groups (ProcessGroupGloo). Not part of <ember/ember.h>, as c10d is not part of <torch/torch.h>.
#include "ember/api/ember.h"
#include "ember/distributed/FileStore.h"
#include "ember/distributed/ProcessGroupGloo.h"
#include "ember/distributed/TCPStore.h"
