// The TCP store's frames and its server's request loop (TCPStoreProtocol.h).
//
// Note [tcp store protocol]
// A request is a command byte, a u32 argument count and that many arguments, each a u32 length and its bytes
// (big-endian); a reply is a status byte (0 ok, 1 missing / false, 2 error) and values in the same layout.
// Commands: SET key value; GET key (missing when absent); ADD key delta (decimal text; replies with the sum;
// missing when the key holds something else); CHECK key...; DELETE key; NUMKEYS. An error reply carries one
// value, its message, which the client raises (a store limit, an ADD that overflows int64; Note [store limits]).
// The server never blocks on a key: a client's wait polls CHECK with a growing pause (1 ms up to 20 ms), which
// keeps the server a plain loop and a timed-out client's connection in step (no reply arrives late). Rendezvous
// waits are few and short, so the polling costs nothing that matters. The server closes a connection that sends
// an unknown command or the wrong number of arguments, and one whose request breaks a limit of its framing
// (max_args, max_arg_bytes, max_request_bytes), after an error reply naming the limit.
#include "ember/distributed/TCPStoreProtocol.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "ember/base/Error.h"
#include "ember/distributed/Store.h"

namespace ember::distributed::detail {
namespace {

// An argument grows by at most this much before its bytes have arrived (Note [store limits]).
constexpr size_t kReadChunk = size_t{64} << 10;

std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }
std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

bool read_u32(ByteReader& in, uint32_t& v) {
  if (!in.read(&v, 4)) return false;
  v = ntohl(v);
  return true;
}

std::vector<uint8_t> error_reply(const std::string& message) { return encode_frame(kStoreError, {bytes(message)}); }

}  // namespace

bool MemoryReader::read(void* buf, size_t n) {
  if (size_ - at_ < n) {
    at_ = size_;
    return false;
  }
  if (n > 0) std::memcpy(buf, data_ + at_, n);
  at_ += n;
  return true;
}

FrameRead read_frame(ByteReader& in, const StoreLimits& limits, TCPStoreFrame& frame, std::string* why) {
  auto refuse = [&](std::string message) {
    if (why) *why = std::move(message);
    return FrameRead::kRefused;
  };
  frame.values.clear();
  uint32_t count;
  if (!in.read(&frame.head, 1) || !read_u32(in, count)) return FrameRead::kEnd;
  if (count > limits.max_args) {
    return refuse(fmt::format("TCPStore: a request of {} arguments, more than the limit of {}", count,
                              limits.max_args));
  }
  int64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len;
    if (!read_u32(in, len)) return FrameRead::kEnd;
    if (len > limits.max_arg_bytes) {
      return refuse(fmt::format("TCPStore: an argument of {}, more than the limit of {}", format_bytes(len),
                                format_bytes(limits.max_arg_bytes)));
    }
    total += len;
    if (total > limits.max_request_bytes) {
      return refuse(fmt::format("TCPStore: a request of more than {} of arguments (limit)",
                                format_bytes(limits.max_request_bytes)));
    }
    // The argument grows as its bytes arrive: a length alone allocates at most kReadChunk.
    std::vector<uint8_t>& v = frame.values.emplace_back();
    while (v.size() < len) {
      const size_t at = v.size(), n = std::min<size_t>(len - at, std::max(kReadChunk, at));
      v.resize(at + n);
      if (!in.read(v.data() + at, n)) return FrameRead::kEnd;
    }
  }
  return FrameRead::kFrame;
}

std::vector<uint8_t> encode_frame(uint8_t head, const std::vector<std::vector<uint8_t>>& values) {
  EMBER_CHECK(values.size() <= UINT32_MAX, "TCPStore: {} values do not fit a frame (at most 2^32 - 1)",
              values.size());
  size_t total = 5;
  for (const auto& v : values) {
    EMBER_CHECK(v.size() <= UINT32_MAX, "TCPStore: a value of {} bytes does not fit a frame (less than 4 GiB)",
                v.size());
    total += 4 + v.size();
  }
  std::vector<uint8_t> out(total);
  size_t at = 0;
  auto put32 = [&](uint32_t v) {
    uint32_t n = htonl(v);
    std::memcpy(out.data() + at, &n, 4);
    at += 4;
  };
  out[at++] = head;
  put32(static_cast<uint32_t>(values.size()));
  for (const auto& v : values) {
    put32(static_cast<uint32_t>(v.size()));
    if (!v.empty()) std::memcpy(out.data() + at, v.data(), v.size());
    at += v.size();
  }
  return out;
}

bool execute_request(StoreState& state, const TCPStoreFrame& request, std::vector<uint8_t>& reply) {
  const auto& args = request.values;
  try {
    switch (request.head) {
      case kStoreSet:
        if (args.size() != 2) return false;
        state.set(text(args[0]), args[1]);
        reply = encode_frame(kStoreOk, {});
        return true;
      case kStoreGet: {
        if (args.size() != 1) return false;
        const auto* v = state.find(text(args[0]));
        reply = v ? encode_frame(kStoreOk, {*v}) : encode_frame(kStoreMissing, {});
        return true;
      }
      case kStoreAdd: {
        if (args.size() != 2) return false;
        const std::string key = text(args[0]);
        const auto* old = state.find(key);
        int64_t delta, base, sum;
        try {
          delta = parse_counter(key, args[1]);
          base = old ? parse_counter(key, *old) : 0;
        } catch (const Error&) {
          reply = encode_frame(kStoreMissing, {});
          return true;
        }
        EMBER_CHECK(!__builtin_add_overflow(base, delta, &sum), "TCPStore::add: key '{}' holds {}; adding {} overflows "
                    "a 64-bit integer", key.substr(0, 200), base, delta);
        state.set(key, bytes(std::to_string(sum)));
        reply = encode_frame(kStoreOk, {*state.find(key)});
        return true;
      }
      case kStoreCheck: {
        bool all = true;
        for (const auto& k : args) all = all && state.find(text(k));
        reply = encode_frame(all ? kStoreOk : kStoreMissing, {});
        return true;
      }
      case kStoreDelete:
        if (args.size() != 1) return false;
        reply = encode_frame(state.erase(text(args[0])) ? kStoreOk : kStoreMissing, {});
        return true;
      case kStoreNumKeys:
        reply = encode_frame(kStoreOk, {bytes(std::to_string(state.num_keys()))});
        return true;
      default:
        return false;
    }
  } catch (const Error& e) {  // a limit of the store: the client raises the message
    reply = error_reply(e.what());
    return true;
  }
}

void serve_requests(ByteReader& in, StoreState& state, std::mutex& mutex,
                    const std::function<bool(const std::vector<uint8_t>&)>& write) {
  TCPStoreFrame request;
  std::vector<uint8_t> reply;
  std::string why;
  for (;;) {
    switch (read_frame(in, state.limits(), request, &why)) {
      case FrameRead::kEnd:
        return;
      case FrameRead::kRefused:
        write(error_reply(why));
        return;
      case FrameRead::kFrame:
        break;
    }
    bool ok;
    {
      std::lock_guard<std::mutex> lock(mutex);
      ok = execute_request(state, request, reply);
    }
    if (!ok || !write(reply)) return;
  }
}

}  // namespace ember::distributed::detail
