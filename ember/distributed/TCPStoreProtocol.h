#pragma once
// The TCP store's wire format and its server's request loop, apart from sockets and threads so that the fuzz
// target (tests/fuzz/tcp_store.cpp) runs the code the server runs. See Note [tcp store protocol].
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "ember/distributed/StoreState.h"

namespace ember::distributed::detail {

/// The commands of a request.
enum TCPStoreCommand : uint8_t { kStoreSet = 1, kStoreGet, kStoreAdd, kStoreCheck, kStoreDelete, kStoreNumKeys };
/// The status byte of a reply: ok; missing key, false or not an integer; an error (one value: its message).
enum TCPStoreStatus : uint8_t { kStoreOk = 0, kStoreMissing = 1, kStoreError = 2 };

/// A source of bytes: the server's or a client's socket, or memory.
class ByteReader {
 public:
  virtual ~ByteReader() = default;
  /// Reads exactly n bytes into buf; false when the stream ends (or fails) first.
  virtual bool read(void* buf, size_t n) = 0;
};

/// Bytes in memory (the fuzz target's input).
class MemoryReader : public ByteReader {
 public:
  MemoryReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool read(void* buf, size_t n) override;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

/// A request or reply: the command or status byte and the arguments or values.
struct TCPStoreFrame {
  uint8_t head = 0;
  std::vector<std::vector<uint8_t>> values;
};

/// How reading a frame ended.
enum class FrameRead { kFrame, kEnd, kRefused };

/// Reads one frame within limits (max_args, max_arg_bytes, max_request_bytes). kEnd: the stream ended or failed
/// (before or inside the frame); kRefused: the frame breaks a limit, *why names it (the stream is then out of step).
FrameRead read_frame(ByteReader& in, const StoreLimits& limits, TCPStoreFrame& frame, std::string* why);

/// The bytes of a frame. Errors: more than 2^32 - 1 values, or a value of 2^32 bytes or more.
std::vector<uint8_t> encode_frame(uint8_t head, const std::vector<std::vector<uint8_t>>& values);

/// Executes one request on state and puts the reply's bytes in reply; false for a malformed request (an unknown
/// command, a wrong number of arguments), which ends the connection. A limit of the state refuses a request with
/// a kStoreError reply naming it.
bool execute_request(StoreState& state, const TCPStoreFrame& request, std::vector<uint8_t>& reply);

/// The server's loop over one connection: reads requests from in, executes each on state under mutex and hands
/// the reply to write (false: the connection is gone), until the stream ends, a request is malformed or breaks a
/// limit (then a kStoreError reply naming the limit is written last).
void serve_requests(ByteReader& in, StoreState& state, std::mutex& mutex,
                    const std::function<bool(const std::vector<uint8_t>&)>& write);

}  // namespace ember::distributed::detail
