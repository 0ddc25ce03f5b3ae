#include "ember/core/Generator.h"

namespace ember {

const Generator& default_generator() {
  static const Generator* g = new Generator(make_intrusive<GeneratorImpl>());
  return *g;
}

}  // namespace ember
