// Fuzz target: the file store's record parser, ember::distributed::detail::read_file_store_records (FileStore.h),
// over a store file in memory (Note [file store format]; no file is written). Any bytes apply or raise
// ember::Error; the input is parsed under the default limits and under tight ones (16 keys, 256 bytes held, keys
// and values of 64 bytes) so that the refusals are reached too (Note [store limits]), and the state's accounting
// must stay within them. Seeds: files written by ember's FileStore during a rendezvous (make_seeds.py).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ember/base/Error.h"
#include "ember/distributed/FileStore.h"

namespace {

using namespace ember::distributed;

void parse(std::string_view bytes, const StoreLimits& limits) {
  detail::StoreState state(limits);
  try {
    detail::read_file_store_records(bytes, state, "fuzz.store", 0);
  } catch (const ember::Error&) {
  }
  if (state.num_keys() > limits.max_keys || state.total_bytes() > limits.max_total_bytes ||
      state.total_bytes() > static_cast<int64_t>(bytes.size())) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  parse(bytes, StoreLimits{});
  StoreLimits tight;
  tight.max_arg_bytes = 64;
  tight.max_total_bytes = 256;
  tight.max_keys = 16;
  parse(bytes, tight);
  return 0;
}
