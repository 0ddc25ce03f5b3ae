#include "ember/jit/ir/Attributes.h"

namespace ember::jit {

const char* attribute_kind_name(AttributeKind k) {
  static const char* names[] = {"i", "f", "s", "is", "fs", "ss", "t"};
  return names[static_cast<int>(k)];
}

}  // namespace ember::jit
