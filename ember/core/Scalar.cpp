#include "ember/core/Scalar.h"

namespace ember {

std::string Scalar::str() const {
  switch (tag_) {
    case Tag::Bool:
      return v_.i ? "True" : "False";
    case Tag::Int:
      return std::to_string(v_.i);
    case Tag::Double:
      return fmt::format("{}", v_.d);
  }
  return "";
}

}  // namespace ember
