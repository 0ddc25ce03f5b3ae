#pragma once
// A refcounted pointer to objects deriving from intrusive_target (one atomic count inside the object, so a
// handle is one pointer wide and copying it is one atomic increment).
#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

/// Base of objects owned by intrusive_ptr. Not copyable: identity matters (a TensorImpl, a Storage).
class intrusive_target {
 public:
  intrusive_target() = default;
  intrusive_target(const intrusive_target&) = delete;
  intrusive_target& operator=(const intrusive_target&) = delete;
  virtual ~intrusive_target() = default;
  uint32_t use_count() const noexcept { return refcount_.load(std::memory_order_relaxed); }

 private:
  template <class T>
  friend class intrusive_ptr;
  mutable std::atomic<uint32_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept = default;
  intrusive_ptr(std::nullptr_t) noexcept {}
  /// Takes shared ownership of p (which may be fresh, count 0).
  explicit intrusive_ptr(T* p) noexcept : p_(p) { retain(); }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  intrusive_ptr(intrusive_ptr<U> o) noexcept : p_(o.release()) {}
  ~intrusive_ptr() { reset(); }

  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }

  template <class... Args>
  static intrusive_ptr make(Args&&... args) {
    T* p = new T(std::forward<Args>(args)...);
    p->refcount_.store(1, std::memory_order_relaxed);  // not shared yet: a plain store, no atomic increment
    return reclaim(p);
  }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool operator==(const intrusive_ptr& o) const noexcept { return p_ == o.p_; }
  uint32_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept {
    // A count of 1 seen by an owner means this is the only handle: nothing can race to copy it, so the last
    // release skips the atomic decrement (fresh tensors, their storage and version counter end this way).
    if (p_ && (p_->refcount_.load(std::memory_order_acquire) == 1 ||
               p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1))
      delete p_;
    p_ = nullptr;
  }
  /// Gives up ownership without decrementing; pair with reclaim().
  T* release() noexcept { return std::exchange(p_, nullptr); }
  /// Adopts a pointer previously returned by release().
  static intrusive_ptr reclaim(T* p) noexcept {
    intrusive_ptr r;
    r.p_ = p;
    return r;
  }

 private:
  void retain() noexcept {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::make(std::forward<Args>(args)...);
}

}  // namespace ember
