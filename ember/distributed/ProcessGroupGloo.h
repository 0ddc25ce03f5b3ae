#pragma once
// A process group over Gloo's TCP transport (LibTorch's c10d::ProcessGroupGloo). See Note [process group
// threads] and Note [collectives over gloo] in ProcessGroupGloo.cpp. Gloo's headers stay in the .cpp files.
#include <chrono>
#include <memory>
#include <string>

#include "ember/distributed/ProcessGroup.h"
#include "ember/distributed/Store.h"

namespace ember::distributed {

/// The collectives of ProcessGroup on the CPU through Gloo (Debian's libgloo), for every dtype of Ember: the
/// reductions are Ember's own (float16 and bfloat16 in float; bool's SUM/MAX are OR, PRODUCT/MIN AND), so
/// int16, bool, bfloat16 and complex work, which PyTorch 1.13's Gloo group refuses, and so do AVG,
/// reduce_scatter and _allgather_base. Non-contiguous tensors are read and written through contiguous
/// copies, except by send and recv, which require contiguous tensors as PyTorch's do.
///
/// The constructor rendezvouses through store: it returns once every rank has connected to every other, and
/// throws ember::Error when that does not happen within options->timeout, when rank is outside [0, size), or
/// when ranks were given different sizes (naming both).
class ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options {
    /// The timeout of the rendezvous and of each operation (PyTorch's default: 30 minutes).
    std::chrono::milliseconds timeout = std::chrono::minutes(30);
    /// The address Gloo listens on: an interface name (GLOO_SOCKET_IFNAME's role) or a hostname; both empty
    /// means the environment's GLOO_SOCKET_IFNAME, else this machine's hostname when it resolves to an
    /// address of this machine, else the loopback interface (PyTorch's choice).
    std::string interface;
    std::string hostname;
    /// Worker threads running the collectives (PyTorch's default: 2).
    int threads = 2;
    /// Whether the ranks compare what they were asked to do before each collective, so that mismatched sizes,
    /// dtypes or operations raise an ember::Error instead of aborting inside Gloo (Note [collective checks] in
    /// ProcessGroupGloo.cpp). The environment variable EMBER_DISTRIBUTED_CHECKS=0 turns it off as well.
    bool checkCollectives = true;

    static std::shared_ptr<Options> create(std::chrono::milliseconds timeout = std::chrono::minutes(30)) {
      auto o = std::make_shared<Options>();
      o->timeout = timeout;
      return o;
    }
  };

  ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                   std::shared_ptr<Options> options = Options::create());
  /// Lets queued operations finish (each is bounded by its timeout), then closes the connections.
  ~ProcessGroupGloo() override;

  /// Lets queued operations finish and stops the worker threads; later operations raise ember::Error. Idempotent;
  /// the destructor calls it. A caller holding a lock the operations' tensors may need when they are freed (Python's
  /// GIL, for a tensor with Python hooks) calls it first without that lock.
  void shutdown();

  const std::string getBackendName() const override { return "gloo"; }
  const Options& getOptions() const { return *options_; }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts = {}) override;
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts = {}) override;
  std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts = {}) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                                  const AllgatherOptions& opts = {}) override;
  std::shared_ptr<Work> _allgather_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                        const AllgatherOptions& opts = {}) override;
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                       std::vector<std::vector<Tensor>>& inputTensors,
                                       const ReduceScatterOptions& opts = {}) override;
  std::shared_ptr<Work> _reduce_scatter_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                             const ReduceScatterOptions& opts = {}) override;
  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                               const GatherOptions& opts = {}) override;
  std::shared_ptr<Work> scatter(std::vector<Tensor>& outputTensors, std::vector<std::vector<Tensor>>& inputTensors,
                                const ScatterOptions& opts = {}) override;
  std::shared_ptr<Work> barrier(const BarrierOptions& opts = {}) override;
  std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) override;
  std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) override;
  std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) override;

  struct Impl;  // Gloo's context, the queue and the worker threads (ProcessGroupGloo.cpp)

 private:
  std::shared_ptr<Options> options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
