#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ember/base/intrusive_ptr.h"
#include "ember/core/Allocator.h"
#include "ember/core/Device.h"
#include "ember/base/Error.h"

namespace ember {

/// A refcounted byte buffer shared by a tensor and its views. Owns memory from the CPU caching allocator,
/// or adopts external memory (NumPy arrays, from_blob) with a deleter called when the last user goes.
class StorageImpl : public intrusive_target {
 public:
  using Deleter = void (*)(void* ctx, void* data);
  /// Allocates nbytes (64-byte aligned) from the caching allocator.
  explicit StorageImpl(size_t nbytes) : data_(cpu_allocator::allocate(nbytes)), nbytes_(nbytes) {}
  /// Adopts data; deleter(ctx, data) runs on destruction when deleter is non-null.
  StorageImpl(void* data, size_t nbytes, Deleter deleter, void* ctx)
      : data_(data), nbytes_(nbytes), deleter_(deleter), ctx_(ctx), owned_(false) {}
  ~StorageImpl() override {
    if (owned_) cpu_allocator::deallocate(data_, nbytes_);
    else if (deleter_) deleter_(ctx_, data_);
  }
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return kCPU; }
  /// Whether the memory can be written (false for buffers adopted read-only, e.g. from a read-only array).
  bool writable() const { return writable_; }
  void set_writable(bool w) { writable_ = w; }
  /// Whether resize() may change the size (memory from the allocator; adopted memory keeps its size).
  bool resizable() const { return owned_; }
  /// Gives the storage nbytes of new memory holding its first min(old, new) bytes (the rest uninitialized):
  /// every tensor over it sees the new memory (PyTorch's resizable storages, for resize_ and set_).
  /// Errors: adopted memory.
  void resize(size_t nbytes) {
    EMBER_CHECK(owned_, "Trying to resize storage that is not resizable");
    void* fresh = cpu_allocator::allocate(nbytes);
    if (nbytes_ > 0 && nbytes > 0) std::memcpy(fresh, data_, nbytes < nbytes_ ? nbytes : nbytes_);
    cpu_allocator::deallocate(data_, nbytes_);
    data_ = fresh;
    nbytes_ = nbytes;
  }

 private:
  void* data_;
  size_t nbytes_;
  Deleter deleter_ = nullptr;
  void* ctx_ = nullptr;
  bool owned_ = true;
  bool writable_ = true;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace ember
