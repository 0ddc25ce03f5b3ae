// Work: completion, errors and waiting.
#include "ember/distributed/Work.h"

#include "ember/base/Error.h"
#include "ember/distributed/Store.h"

namespace ember::distributed {

Work::Work(std::string opName, std::vector<Tensor> outputs)
    : opName_(std::move(opName)), outputs_(std::move(outputs)) {}
Work::~Work() = default;

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::isSuccess() {
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(completed_, "Work::isSuccess: the {} has not completed yet", opName_);
  return !exception_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return exception_;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == kNoTimeout) {
    cv_.wait(lock, [&] { return completed_; });
  } else if (!cv_.wait_for(lock, timeout, [&] { return completed_; })) {
    EMBER_FAIL("Work::wait: the {} did not complete within {}", opName_, detail::format_duration(timeout));
  }
  if (exception_) std::rethrow_exception(exception_);
  return true;
}

int Work::sourceRank() const {
  EMBER_FAIL("Work::sourceRank: only a recv from any source has a source rank (this is a {})", opName_);
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = true;
    exception_ = std::move(error);
  }
  cv_.notify_all();
}

}  // namespace ember::distributed
