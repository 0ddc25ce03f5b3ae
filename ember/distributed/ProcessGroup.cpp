// The ProcessGroup interface's out-of-line destructor (its vtable's home).
#include "ember/distributed/ProcessGroup.h"

namespace ember::distributed {

ProcessGroup::~ProcessGroup() = default;

}  // namespace ember::distributed
