// Fuzz target: the safe pickle reader, ember::serialize::read_pickle (ember/serialize/Pickle.h), on raw pickle
// bytes, once refusing globals outside the allow-list and once reading them as placeholders; what it returns is
// walked (for_each_tensor) and converted to an IValue (to_ivalue), as the checkpoint readers do. Any bytes read
// or raise ember::Error; persistent ids get a small float storage, so tensor rebuilds are reached. Seeds:
// pickles of Python's pickle module at protocols 2-5 and torch.save's data.pkl (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/serialize/Pickle.h"
#include "ember/serialize/TorchCheckpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::serialize;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool placeholders : {false, true}) {
    try {
      PickleOptions o;
      o.placeholders = placeholders;
      o.persistent_load = [](const PickleValue&) {
        auto n = std::make_shared<PickleNode>();
        n->storage = ember::make_intrusive<ember::StorageImpl>(16);
        n->storage_dtype = ember::kFloat32;
        n->storage_numel = 4;
        return PickleValue::with_node(PickleValue::Kind::Storage, n);
      };
      PickleValue v = read_pickle(bytes, o);
      size_t n = 0;
      for_each_tensor(v, [&](const std::string&, const ember::Tensor&) { ++n; });
      ember::serialize::Attributes attrs;
      (void)to_ivalue(v, &attrs, "fuzz").repr();
    } catch (const ember::Error&) {
    }
  }
  return 0;
}
