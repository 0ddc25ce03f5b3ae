#pragma once

namespace ember {
/// Registers Ember's built-in ops and kernels (idempotent; runs automatically when libember loads).
void init();
}  // namespace ember
