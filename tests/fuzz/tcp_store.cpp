// Fuzz target: the TCP store's server, ember::distributed::detail::serve_requests (TCPStoreProtocol.h), the loop
// each connection's thread runs, fed from memory instead of a socket: the frames (Note [tcp store protocol]) and
// every command on a store state. The input is one connection's stream of requests; it is served twice, under the
// default limits and under tight ones (16 keys, 256 bytes held, arguments of 64 bytes, 8 arguments) so that the
// refusals are reached too (Note [store limits]). Every reply must be a frame the client's reader accepts, and the
// state's accounting must match what it holds. Seeds: request streams of a rendezvous (make_seeds.py).
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "ember/base/Error.h"
#include "ember/distributed/TCPStoreProtocol.h"

namespace {

using namespace ember::distributed;

void serve(const uint8_t* data, size_t size, const StoreLimits& limits) {
  detail::StoreState state(limits);
  std::mutex mutex;
  detail::MemoryReader in(data, size);
  detail::serve_requests(in, state, mutex, [&](const std::vector<uint8_t>& reply) {
    detail::MemoryReader r(reply.data(), reply.size());
    detail::TCPStoreFrame frame;
    uint8_t extra;
    // The reply reads back whole (under the client's limits) with nothing left over.
    if (detail::read_frame(r, StoreLimits{}, frame, nullptr) != detail::FrameRead::kFrame || r.read(&extra, 1)) {
      std::abort();
    }
    return true;
  });
  if (state.num_keys() > limits.max_keys || state.total_bytes() > limits.max_total_bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    serve(data, size, StoreLimits{});
    StoreLimits tight;
    tight.max_arg_bytes = 64;
    tight.max_args = 8;
    tight.max_request_bytes = 128;
    tight.max_total_bytes = 256;
    tight.max_keys = 16;
    serve(data, size, tight);
  } catch (const ember::Error&) {
  }
  return 0;
}
