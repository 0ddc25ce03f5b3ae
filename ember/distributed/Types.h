#pragma once
// The reduction operators and the options of the collectives (LibTorch's c10d/Types.hpp).
#include <chrono>
#include <cstdint>
#include <string_view>

namespace ember::distributed {

/// How a collective combines the ranks' values (c10d::ReduceOp; the same numbering as PyTorch 1.13's
/// torch.distributed.ReduceOp). AVG is SUM divided by the group's size (floating-point and complex tensors
/// only); the bitwise ones take integral and bool tensors; complex tensors take SUM and AVG only.
enum class ReduceOp : uint8_t { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4, BAND = 5, BOR = 6, BXOR = 7 };

/// "SUM", "AVG", ... (PyTorch's names).
std::string_view reduce_op_name(ReduceOp op);

/// As a collective's timeout: use the process group's.
constexpr std::chrono::milliseconds kUnsetTimeout{-1};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct ReduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct GatherOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct ScatterOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

}  // namespace ember::distributed
