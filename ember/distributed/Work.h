#pragma once
// The handle of a collective or point-to-point operation in flight (LibTorch's c10d Work).
// See Note [process group threads] in ProcessGroupGloo.cpp for who completes it.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::distributed {

/// An operation started by a process group. Its output tensors may be read once wait() has returned (or
/// isCompleted() is true); until then they belong to the process group's threads.
class Work {
 public:
  /// opName names the operation in errors ("allreduce").
  Work(std::string opName, std::vector<Tensor> outputs = {});
  virtual ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  /// Whether the operation has ended (successfully or not). A send ends only in wait(), as in PyTorch.
  virtual bool isCompleted();
  /// Whether it ended without an error. Errors: it has not ended.
  bool isSuccess();
  /// The error it ended with (null when none or not yet ended).
  std::exception_ptr exception();
  /// Waits until the operation ends and rethrows its error, if any (an ember::Error naming the operation and
  /// rank). timeout (kNoTimeout: none) bounds the wait itself; when it expires, throws an ember::Error and the
  /// operation goes on (it has its own timeout, the process group's). Returns true.
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  /// The output tensors (c10d's result()).
  std::vector<Tensor> result() const { return outputs_; }
  /// The rank a recv from any source received from. Errors: not such a recv, or not yet completed.
  virtual int sourceRank() const;
  const std::string& opName() const { return opName_; }

  /// For the process group: marks the operation ended, with error (or null), and wakes the waiters.
  void finish(std::exception_ptr error = nullptr);

  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

 protected:
  std::string opName_;
  std::vector<Tensor> outputs_;
  std::mutex mutex_;  // guards completed_ and exception_
  std::condition_variable cv_;
  bool completed_ = false;
  std::exception_ptr exception_;
};

}  // namespace ember::distributed
