#pragma once
// The interface of a process group (LibTorch's c10d::ProcessGroup): a fixed set of ranks that run collectives
// together. ProcessGroupGloo.h implements it over Gloo; later backends (and the C++ DistributedDataParallel)
// are written against this interface.
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/Types.h"
#include "ember/distributed/Work.h"

namespace ember::distributed {

/// A group of `size` processes, this one being `rank`. Every collective must be called by every rank of the
/// group in the same order with tensors of the same dtype and shape; each returns at once with a Work whose
/// wait() ends when the operation has (tensors are written in place). Argument errors (a wrong rank, list
/// length, dtype or size on this rank) throw ember::Error at the call, naming the collective; failures of the
/// exchange itself (a peer that died, a timeout) are rethrown by wait().
class ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  virtual const std::string getBackendName() const = 0;

  /// Reduces tensors[0] across ranks in place: every rank ends with the reduction of all ranks' values.
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts = {}) = 0;
  /// Copies tensors[0] of rootRank into tensors[0] of every rank.
  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts = {}) = 0;
  /// Reduces tensors[0] across ranks into rootRank's tensors[0]; the others' tensors stay as they were.
  virtual std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts = {}) = 0;
  /// outputTensors[0][r] receives rank r's inputTensors[0]; outputTensors[0] holds size tensors of the input's
  /// dtype and number of elements.
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                          std::vector<Tensor>& inputTensors, const AllgatherOptions& opts = {}) = 0;
  /// Gathers every rank's input into one output of size * input.numel() elements (rank r's at r * numel),
  /// PyTorch's all_gather_into_tensor. output must be contiguous.
  virtual std::shared_ptr<Work> _allgather_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                                const AllgatherOptions& opts = {}) = 0;
  /// outputTensors[0] on rank r receives the reduction over ranks of inputTensors[0][r].
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                               std::vector<std::vector<Tensor>>& inputTensors,
                                               const ReduceScatterOptions& opts = {}) = 0;
  /// Rank r's output receives elements [r * n, (r + 1) * n) of the reduced input (n = output.numel(),
  /// input.numel() = size * n), PyTorch's reduce_scatter_tensor.
  virtual std::shared_ptr<Work> _reduce_scatter_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                                     const ReduceScatterOptions& opts = {}) = 0;
  /// rootRank's outputTensors[0][r] receives rank r's inputTensors[0]; outputTensors is empty on the others.
  virtual std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputTensors,
                                       std::vector<Tensor>& inputTensors, const GatherOptions& opts = {}) = 0;
  /// Rank r's outputTensors[0] receives rootRank's inputTensors[0][r]; inputTensors is empty on the others.
  virtual std::shared_ptr<Work> scatter(std::vector<Tensor>& outputTensors,
                                        std::vector<std::vector<Tensor>>& inputTensors,
                                        const ScatterOptions& opts = {}) = 0;
  /// Ends when every rank has called it and this rank's earlier operations have ended.
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& opts = {}) = 0;
  /// Sends tensors[0] (contiguous) to dstRank, matched by the recv with the same tag there.
  virtual std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) = 0;
  /// Receives into tensors[0] (contiguous) what srcRank sent with tag.
  virtual std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) = 0;
  /// Receives from whichever rank sends with tag first; the Work's sourceRank() tells which.
  virtual std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) = 0;

 protected:
  const int rank_;
  const int size_;
};

}  // namespace ember::distributed
