// ProcessGroupGloo: rendezvous, the work queue and its threads, and every collective over Gloo.
//
// Note [process group threads]
// Who owns what, so that nothing races:
// - The calling thread (Python's, or a C++ program's) checks the arguments, makes contiguous copies of
//   non-contiguous inputs, takes the operation's Gloo tag (an atomic counter: every rank calls the collectives in
//   the same order, so the same operation gets the same tag everywhere) and queues a closure with its Work. It
//   returns at once; the tensors captured by the closure stay alive with it.
// - Options::threads worker threads pop closures in order and run them: only they call Gloo's collectives, and
//   they write the output tensors (Gloo copies straight into them, or the worker copies a staging buffer back,
//   under NoGradGuard since collectives are not differentiable). Then Work::finish publishes the result under
//   the Work's mutex; wait() takes that mutex, so the caller sees every byte the worker wrote.
// - Gloo's context is shared by the workers: two collectives run at once only with different tags, which is
//   Gloo's contract ("must be unique across operations executing in parallel"). Gloo's TCP device has its own
//   event-loop thread that moves the bytes.
// - send posts Gloo's unbound-buffer sends on the calling thread and completes in Work::wait on the waiting
//   thread; recv completes on a thread of its own (Note [checked send and recv]).
// - The user must not touch a tensor handed to an operation until its wait() returns, as in PyTorch. With two
//   workers, two queued collectives on the same tensor may overlap: wait for one before starting the next.
// - shutdown() (and so the destructor) lets the queue drain (every operation is bounded by its timeout) and joins
//   the workers; the destructor then destroys Gloo's context, which closes the connections. A worker may drop the
//   last reference to a tensor, so Python calls shutdown() without the GIL (a tensor's Python hooks take it).
//
// Note [collectives over gloo]
// Gloo's "new style" collectives (gloo/allreduce.h, broadcast.h, reduce.h, allgather.h, gather.h, scatter.h,
// barrier.h) take raw buffers, a tag and a timeout. Ember supplies the element-wise reduction (reduce_kernel
// below, one template instantiated per dtype through one switch over the dtype list), so every Ember dtype
// reduces: float16/bfloat16 in float, bool as logic, integers wrapping around. AVG is SUM then a division by the
// group's size. Gloo has no reduce-scatter for this interface, so reduce_scatter is an allreduce of the
// concatenated inputs of which each rank keeps its slice (twice the bytes of a ring reduce-scatter; fine for now).
// Lists of outputs (allgather, gather) go through one contiguous staging buffer that Gloo fills and the worker
// copies out; non-contiguous tensors are staged the same way.
#include "ember/distributed/ProcessGroupGloo.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <thread>
#include <type_traits>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include "ember/autograd/GradMode.h"
#include "ember/base/Error.h"
#include "ember/ops/Functions.h"

namespace ember::distributed {

// ---- the worker state

// Note [collective checks]
// Gloo trusts every rank to pass buffers of the same size: when a rank sends more bytes than its peer posted, Gloo's
// event loop throws on its own thread and the process aborts (PyTorch's Gloo group aborts likewise). So before each
// collective the ranks exchange a fingerprint — operation, dtype, element count, root, reduction — with a 48-byte
// allgather under a tag of its own, and every rank raises an ember::Error naming what each rank called when they
// differ. It costs one small round trip per collective (negligible for the megabyte buckets of data-parallel
// training; Options::checkCollectives = false, or EMBER_DISTRIBUTED_CHECKS=0, turns it off). send/recv check
// sizes their own way (Note [checked send and recv]).
namespace {

// allgather and _allgather_base (and reduce_scatter and _reduce_scatter_base) exchange the same bytes, so ranks may
// mix them: they share a code.
struct Fingerprint {
  enum Op : int64_t { kAllreduce, kBroadcast, kReduce, kAllgather, kReduceScatter, kGather, kScatter, kBarrier };
  int64_t op = kBarrier, dtype = -1, numel = 0, root = -1, reduceOp = -1, unused = 0;
};
static_assert(sizeof(Fingerprint) == 6 * sizeof(int64_t));

std::string describe(const Fingerprint& f) {
  static const char* names[] = {"allreduce", "broadcast", "reduce", "allgather", "reduce_scatter", "gather", "scatter",
                                "barrier"};
  std::string out = f.op >= 0 && f.op <= Fingerprint::kBarrier ? names[f.op] : "an unknown operation";
  if (f.op == Fingerprint::kBarrier) return out;
  out += fmt::format(" of {} {} elements", f.numel, is_valid_dtype_id(static_cast<int>(f.dtype))
                                                        ? std::string(dtype_name(static_cast<DType>(f.dtype)))
                                                        : "?");
  if (f.root >= 0) out += fmt::format(", root {}", f.root);
  if (f.reduceOp >= 0) out += fmt::format(", {}", reduce_op_name(static_cast<ReduceOp>(f.reduceOp)));
  return out;
}

Fingerprint fingerprint(Fingerprint::Op op, const Tensor& t, int64_t root = -1, int64_t reduceOp = -1) {
  return {op, static_cast<int64_t>(t.dtype()), t.numel(), root, reduceOp, 0};
}

}  // namespace

struct ProcessGroupGloo::Impl {
  struct Item {
    std::shared_ptr<Work> work;
    std::function<void()> body;
  };

  int rank = 0, size = 1;
  std::chrono::milliseconds timeout{0};
  std::shared_ptr<gloo::Context> context;
  bool checkCollectives = true;
  std::atomic<uint32_t> tagCounter{0};

  /// The Gloo tag of the next collective's data; the one below it is its fingerprint's (Note [collective checks]).
  uint32_t next_tag() { return 2 * tagCounter++ + 1; }

  std::mutex mutex;  // guards queue, stop and inflight
  std::condition_variable cv;
  std::deque<Item> queue;
  bool stop = false;
  std::vector<std::weak_ptr<Work>> inflight;  // queued or running collectives, for barrier
  std::vector<std::thread> workers;

  std::chrono::milliseconds timeout_of(std::chrono::milliseconds t) const { return t == kUnsetTimeout ? timeout : t; }

  std::shared_ptr<Work> enqueue(const std::string& name, std::vector<Tensor> outputs, const Fingerprint& fp,
                                uint32_t tag, std::chrono::milliseconds timeout, std::function<void()> body) {
    auto work = std::make_shared<Work>(name, std::move(outputs));
    if (checkCollectives) {
      body = [this, fp, tag, timeout, name, body = std::move(body)] {
        check_fingerprints(name, fp, tag - 1, timeout);
        body();
      };
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      EMBER_CHECK(!stop, "ProcessGroupGloo::{}: the process group has been shut down (destroy_process_group)", name);
      std::erase_if(inflight, [](const std::weak_ptr<Work>& w) {
        auto p = w.lock();
        return !p || p->isCompleted();
      });
      inflight.push_back(work);
      queue.push_back({work, std::move(body)});
    }
    cv.notify_one();
    return work;
  }

  // The error a worker reports for an exception of Gloo (or anything not an ember::Error).
  std::exception_ptr wrap(const std::string& name, const std::exception& e) const {
    return std::make_exception_ptr(Error(
        ErrorKind::Runtime,
        fmt::format("ProcessGroupGloo::{} failed on rank {} of {}: {}. Another rank may have exited or stopped "
                    "answering (timeout {}), or called another collective, or one with tensors of another size or "
                    "dtype",
                    name, rank, size, e.what(), detail::format_duration(timeout))));
  }

  // Raises when the ranks' fingerprints differ (Note [collective checks]).
  void check_fingerprints(const std::string& name, Fingerprint fp, uint32_t tag, std::chrono::milliseconds t) {
    if (size == 1) return;
    std::vector<Fingerprint> all(static_cast<size_t>(size));
    gloo::AllgatherOptions o(context);
    o.setInput(reinterpret_cast<char*>(&fp), sizeof fp);
    o.setOutput(reinterpret_cast<char*>(all.data()), sizeof(Fingerprint) * all.size());
    o.setTag(tag);
    o.setTimeout(t);
    gloo::allgather(o);
    bool same = true;
    for (const auto& f : all) same = same && std::memcmp(&f, &all[0], sizeof f) == 0;
    if (same) return;
    std::string calls;
    for (size_t r = 0; r < all.size(); ++r) calls += fmt::format("{}rank {}: {}", r ? "; " : "", r, describe(all[r]));
    EMBER_FAIL("ProcessGroupGloo::{}: the ranks called different collectives or passed tensors of different sizes or "
               "dtypes ({}); every rank must call the same collectives in the same order with matching tensors",
               name, calls);
  }

  void work_loop() {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;  // stop, and drained
        item = std::move(queue.front());
        queue.pop_front();
      }
      std::exception_ptr error;
      try {
        autograd::NoGradGuard no_grad;
        item.body();
      } catch (const Error&) {
        error = std::current_exception();
      } catch (const std::exception& e) {
        error = wrap(item.work->opName(), e);
      }
      item.work->finish(error);
    }
  }
};

namespace {

using Impl = ProcessGroupGloo::Impl;

// ---- dtype dispatch and the reductions (Note [collectives over gloo])

template <class T> inline constexpr bool is_complex_v = false;
template <class T> inline constexpr bool is_complex_v<std::complex<T>> = true;
template <class T> inline constexpr bool is_low_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// Calls f.template operator()<T>() with the C++ type T of dtype.
template <class F>
void visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
#define EMBER_DIST_CASE(T, name, id, py) \
  case DType::name:                      \
    f.template operator()<T>();          \
    return;
    EMBER_FORALL_DTYPES(EMBER_DIST_CASE)
#undef EMBER_DIST_CASE
  }
  EMBER_FAIL("ProcessGroupGloo: unknown dtype id {}", static_cast<int>(dtype));
}

template <class T, ReduceOp Op>
T combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == ReduceOp::SUM || Op == ReduceOp::MAX || Op == ReduceOp::BOR) return a || b;
    else if constexpr (Op == ReduceOp::BXOR) return a != b;
    else return a && b;  // PRODUCT, MIN, BAND
  } else if constexpr (is_low_float_v<T>) {
    float x = a, y = b;
    if constexpr (Op == ReduceOp::SUM) return T(x + y);
    else if constexpr (Op == ReduceOp::PRODUCT) return T(x * y);
    else if constexpr (Op == ReduceOp::MIN) return y < x ? b : a;
    else return x < y ? b : a;  // MAX
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // wrap around as Ember's integer arithmetic does
    if constexpr (Op == ReduceOp::SUM) return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    else if constexpr (Op == ReduceOp::PRODUCT)
      return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) * static_cast<U>(b)));
    else if constexpr (Op == ReduceOp::MIN) return b < a ? b : a;
    else if constexpr (Op == ReduceOp::MAX) return a < b ? b : a;
    else if constexpr (Op == ReduceOp::BAND) return static_cast<T>(a & b);
    else if constexpr (Op == ReduceOp::BOR) return static_cast<T>(a | b);
    else return static_cast<T>(a ^ b);
  } else if constexpr (is_complex_v<T>) {
    if constexpr (Op == ReduceOp::PRODUCT) return a * b;
    else return a + b;  // SUM (the only other op complex tensors take)
  } else {
    if constexpr (Op == ReduceOp::SUM) return a + b;
    else if constexpr (Op == ReduceOp::PRODUCT) return a * b;
    else if constexpr (Op == ReduceOp::MIN) return b < a ? b : a;
    else return a < b ? b : a;  // MAX
  }
}

template <class T, ReduceOp Op>
void reduce_kernel(void* out, const void* a, const void* b, size_t n) {
  auto* o = static_cast<T*>(out);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = combine<T, Op>(x[i], y[i]);
}

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

/// The element-wise reduction of op for T; op was checked against T's dtype by check_reduce_op.
template <class T>
ReduceFn reduce_fn(ReduceOp op) {
  constexpr bool integral = std::is_integral_v<T>;
  constexpr bool ordered = !is_complex_v<T>;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return &reduce_kernel<T, ReduceOp::SUM>;
    case ReduceOp::PRODUCT: return &reduce_kernel<T, ReduceOp::PRODUCT>;
    case ReduceOp::MIN: if constexpr (ordered) return &reduce_kernel<T, ReduceOp::MIN>; else break;
    case ReduceOp::MAX: if constexpr (ordered) return &reduce_kernel<T, ReduceOp::MAX>; else break;
    case ReduceOp::BAND: if constexpr (integral) return &reduce_kernel<T, ReduceOp::BAND>; else break;
    case ReduceOp::BOR: if constexpr (integral) return &reduce_kernel<T, ReduceOp::BOR>; else break;
    case ReduceOp::BXOR: if constexpr (integral) return &reduce_kernel<T, ReduceOp::BXOR>; else break;
  }
  EMBER_FAIL("ProcessGroupGloo: ReduceOp.{} has no kernel for this dtype", reduce_op_name(op));
}

/// Divides n elements at data by divisor (AVG).
template <class T>
void divide(void* data, size_t n, int divisor) {
  auto* p = static_cast<T*>(data);
  if constexpr (is_low_float_v<T>) {
    for (size_t i = 0; i < n; ++i) p[i] = T(static_cast<float>(p[i]) / static_cast<float>(divisor));
  } else if constexpr (std::is_floating_point_v<T>) {
    for (size_t i = 0; i < n; ++i) p[i] /= static_cast<T>(divisor);
  } else if constexpr (is_complex_v<T>) {
    for (size_t i = 0; i < n; ++i) p[i] /= static_cast<typename T::value_type>(divisor);
  }
}

/// Errors for op on dtype, in PyTorch's words where PyTorch has some.
void check_reduce_op(const char* name, ReduceOp op, DType dtype) {
  bool integral = is_integral(dtype, /*include_bool=*/true);
  bool complex = is_complex(dtype);
  if (op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR) {
    EMBER_CHECK(integral, "{}: Cannot use ReduceOp.{} with non-integral dtype {}", name, reduce_op_name(op), dtype);
  }
  EMBER_CHECK(op != ReduceOp::AVG || !integral,
              "{}: ReduceOp.AVG needs a floating-point or complex tensor, got {}", name, dtype);
  EMBER_CHECK_VALUE(!complex || op == ReduceOp::SUM || op == ReduceOp::AVG,
                    "{}: ReduceOp.{} is not supported on complex tensors ({}); SUM and AVG are", name,
                    reduce_op_name(op), dtype);
}

// ---- argument checks (on the calling thread)

void check_single(const char* name, const std::vector<Tensor>& tensors, const char* what = "tensor") {
  EMBER_CHECK(tensors.size() == 1, "{}: requires a single-element {} list (got {})", name, what, tensors.size());
  EMBER_CHECK(tensors[0].defined(), "{}: the {} is undefined", name, what);
}

void check_rank(const Impl& s, const char* name, int64_t rank, const char* what) {
  EMBER_CHECK(rank >= 0 && rank < s.size, "{}: invalid {} rank: {} (the group has ranks 0..{})", name, what, rank,
              s.size - 1);
}

void check_like(const char* name, const Tensor& t, const Tensor& ref, size_t index, const char* list) {
  EMBER_CHECK(t.defined(), "{}: {} tensor at index {} is undefined", name, list, index);
  EMBER_CHECK(t.dtype() == ref.dtype(),
              "{}: invalid usage of tensors with different dtypes: tensor at index {} of {} is {}, expected {}", name,
              index, list, t.dtype(), ref.dtype());
  EMBER_CHECK(t.sizes() == ref.sizes(), "{}: invalid tensor size at index {} of {} (expected ({}), got ({}))", name,
              index, list, fmt::join(ref.sizes(), ", "), fmt::join(t.sizes(), ", "));
}

void check_list(const char* name, const std::vector<Tensor>& list, const Tensor& ref, size_t n, const char* what) {
  EMBER_CHECK(list.size() == n, "{}: the {} list must hold {} tensors (the group's size), got {}", name, what, n,
              list.size());
  for (size_t i = 0; i < list.size(); ++i) check_like(name, list[i], ref, i, what);
}

// ---- staging (Note [collectives over gloo])

Tensor dense(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  return t.is_contiguous() ? t : ember::contiguous(t);
}
Tensor scratch(int64_t numel, DType dtype) { return ember::empty({numel}, TensorOptions().dtype(dtype)); }
char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }
size_t nbytes_of(const Tensor& t) { return static_cast<size_t>(t.nbytes()); }

/// Writes t.numel() elements at src into t (a worker-thread copy).
void write_back(const Tensor& t, const void* src) {
  if (t.numel() == 0) return;
  if (t.is_contiguous()) {
    if (src != t.data_ptr()) std::memcpy(t.data_ptr(), src, nbytes_of(t));
  } else {
    ember::copy_(t, ember::from_blob(const_cast<void*>(src), t.sizes(), t.dtype()));
  }
}

/// Gloo's allreduce of numel elements of dtype at data, in place, with op (AVG divides afterwards).
void gloo_allreduce(Impl& s, void* data, int64_t numel, DType dtype, ReduceOp op, uint32_t tag,
                    std::chrono::milliseconds timeout) {
  if (numel == 0) return;
  visit_dtype(dtype, [&]<class T>() {
    gloo::AllreduceOptions o(s.context);
    o.setOutput(static_cast<T*>(data), static_cast<size_t>(numel));
    o.setReduceFunction(reduce_fn<T>(op));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::allreduce(o);
    if (op == ReduceOp::AVG) divide<T>(data, static_cast<size_t>(numel), s.size);
  });
}

}  // namespace

// ---- rendezvous

namespace {

// Ember's store as Gloo's rendezvous store (Note [rendezvous stores]).
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    auto v = store_->get(key);
    return {v.begin(), v.end()};
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// Whether host resolves to an address this machine can bind.
bool bindable(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a && !ok; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    ok = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;  // port 0 from getaddrinfo(nullptr service)
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return ok;
}

gloo::transport::tcp::attr device_attr(const ProcessGroupGloo::Options& o) {
  gloo::transport::tcp::attr attr;
  if (!o.interface.empty()) {
    attr.iface = o.interface;
  } else if (!o.hostname.empty()) {
    attr.hostname = o.hostname;
  } else if (const char* env = std::getenv("GLOO_SOCKET_IFNAME"); env && *env) {
    attr.iface = env;
  } else {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0 && bindable(name)) attr.hostname = name;
    else attr.hostname = "127.0.0.1";
  }
  return attr;
}

// Every rank says which size it was given; rank 0 waits for all and the others compare with rank 0's, so a
// wrong world size fails with both numbers instead of a bare rendezvous timeout.
void check_world_size(distributed::Store& store, int rank, int size, std::chrono::milliseconds timeout) {
  const std::string prefix = "ember_world_size/";
  store.set(prefix + std::to_string(rank), std::to_string(size));
  if (rank != 0) {
    auto v = store.get(prefix + "0");
    int64_t root_size = detail::parse_counter(prefix + "0", v);
    EMBER_CHECK(root_size == size,
                "ProcessGroupGloo: rank {} was given world_size {} but rank 0 was given {}; every rank must be given "
                "the same world_size",
                rank, size, root_size);
    return;
  }
  std::vector<std::string> keys;
  for (int r = 1; r < size; ++r) keys.push_back(prefix + std::to_string(r));
  try {
    store.wait(keys, timeout);
  } catch (const Error&) {
    std::vector<std::string> missing;
    for (int r = 1; r < size; ++r) {
      if (!store.check({prefix + std::to_string(r)})) missing.push_back(std::to_string(r));
    }
    EMBER_FAIL("ProcessGroupGloo: rank 0 (world_size {}) timed out after {} waiting for rank(s) {} to join; were "
               "they started, with the same world_size and init_method?",
               size, detail::format_duration(timeout), fmt::join(missing, ", "));
  }
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                                   std::shared_ptr<Options> options)
    : ProcessGroup(rank, size), options_(options ? std::move(options) : Options::create()),
      impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: the store is null");
  EMBER_CHECK(size >= 1, "ProcessGroupGloo: world_size must be at least 1, got {}", size);
  EMBER_CHECK(rank >= 0 && rank < size, "ProcessGroupGloo: rank must be in [0, {}) (world_size {}), got {}", size,
              size, rank);
  EMBER_CHECK(options_->threads >= 1, "ProcessGroupGloo: Options::threads must be at least 1, got {}",
              options_->threads);
  impl_->rank = rank;
  impl_->size = size;
  impl_->timeout = options_->timeout;
  const char* checks = std::getenv("EMBER_DISTRIBUTED_CHECKS");
  impl_->checkCollectives = options_->checkCollectives && !(checks && std::string_view(checks) == "0");
  check_world_size(*store, rank, size, options_->timeout);
  try {
    auto device = gloo::transport::tcp::CreateDevice(device_attr(*options_));
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options_->timeout);
    GlooStore gloo_store(store);
    context->connectFullMesh(gloo_store, device);
    impl_->context = std::move(context);
  } catch (const gloo::Exception& e) {
    EMBER_FAIL("ProcessGroupGloo: rank {} of {} could not connect to the others: {}", rank, size, e.what());
  }
  for (int i = 0; i < options_->threads; ++i) impl_->workers.emplace_back([s = impl_.get()] { s->work_loop(); });
}

ProcessGroupGloo::~ProcessGroupGloo() { shutdown(); }

void ProcessGroupGloo::shutdown() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
    workers.swap(impl_->workers);
  }
  impl_->cv.notify_all();
  for (auto& t : workers) t.join();
}

// ---- collectives

std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts) {
  const char* name = "ProcessGroupGloo::allreduce";
  check_single(name, tensors);
  Tensor t = tensors[0];
  check_reduce_op(name, opts.reduceOp, t.dtype());
  Tensor buf = dense(t);
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kAllreduce, t, -1, static_cast<int64_t>(opts.reduceOp));
  auto body = [s = impl_.get(), t, buf, op = opts.reduceOp, tag, timeout] {
    gloo_allreduce(*s, buf.data_ptr(), buf.numel(), buf.dtype(), op, tag, timeout);
    if (!buf.is_same(t)) write_back(t, buf.data_ptr());
  };
  return impl_->enqueue("allreduce", {t}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts) {
  const char* name = "ProcessGroupGloo::broadcast";
  check_single(name, tensors);
  check_rank(*impl_, name, opts.rootRank, "root");
  EMBER_CHECK(opts.rootTensor == 0, "{}: invalid root tensor: {}", name, opts.rootTensor);
  Tensor t = tensors[0];
  Tensor buf = dense(t);
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kBroadcast, t, opts.rootRank);
  auto body = [s = impl_.get(), t, buf, root = opts.rootRank, tag, timeout] {
    if (buf.numel() == 0) return;
    gloo::BroadcastOptions o(s->context);
    o.setOutput(bytes_of(buf), nbytes_of(buf));
    o.setRoot(static_cast<int>(root));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::broadcast(o);
    if (!buf.is_same(t)) write_back(t, buf.data_ptr());
  };
  return impl_->enqueue("broadcast", {t}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts) {
  const char* name = "ProcessGroupGloo::reduce";
  check_single(name, tensors);
  check_rank(*impl_, name, opts.rootRank, "root");
  EMBER_CHECK(opts.rootTensor == 0, "{}: invalid root tensor: {}", name, opts.rootTensor);
  Tensor t = tensors[0];
  check_reduce_op(name, opts.reduceOp, t.dtype());
  Tensor in = dense(t);
  // The root reduces in place; the others keep their tensor and give Gloo a scratch output.
  Tensor out = rank_ == opts.rootRank ? in : scratch(t.numel(), t.dtype());
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kReduce, t, opts.rootRank, static_cast<int64_t>(opts.reduceOp));
  auto body = [s = impl_.get(), t, in, out, op = opts.reduceOp, root = opts.rootRank, tag,
                                        timeout] {
    if (t.numel() == 0) return;
    visit_dtype(t.dtype(), [&]<class T>() {
      gloo::ReduceOptions o(s->context);
      if (!in.is_same(out)) o.setInput(static_cast<T*>(in.data_ptr()), static_cast<size_t>(in.numel()));
      o.setOutput(static_cast<T*>(out.data_ptr()), static_cast<size_t>(out.numel()));
      o.setRoot(static_cast<int>(root));
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::reduce(o);
      if (op == ReduceOp::AVG && s->rank == root) divide<T>(out.data_ptr(), static_cast<size_t>(out.numel()), s->size);
    });
    if (s->rank == root && !out.is_same(t)) write_back(t, out.data_ptr());
  };
  return impl_->enqueue("reduce", {t}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                                  std::vector<Tensor>& inputTensors, const AllgatherOptions& opts) {
  const char* name = "ProcessGroupGloo::allgather";
  check_single(name, inputTensors, "input tensor");
  EMBER_CHECK(outputTensors.size() == 1, "{}: requires a single-element output list (got {})", name,
              outputTensors.size());
  Tensor in = dense(inputTensors[0]);
  std::vector<Tensor> outs = outputTensors[0];
  check_list(name, outs, in, static_cast<size_t>(size_), "output");
  Tensor flat = scratch(in.numel() * size_, in.dtype());
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kAllgather, in);
  auto body = [s = impl_.get(), in, outs, flat, tag, timeout] {
    if (in.numel() == 0) return;
    gloo::AllgatherOptions o(s->context);
    o.setInput(bytes_of(in), nbytes_of(in));
    o.setOutput(bytes_of(flat), nbytes_of(flat));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::allgather(o);
    for (size_t r = 0; r < outs.size(); ++r) write_back(outs[r], bytes_of(flat) + r * nbytes_of(in));
  };
  return impl_->enqueue("allgather", outs, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::_allgather_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                                        const AllgatherOptions& opts) {
  const char* name = "ProcessGroupGloo::_allgather_base";
  EMBER_CHECK(outputBuffer.defined() && inputBuffer.defined(), "{}: undefined tensor", name);
  EMBER_CHECK(outputBuffer.dtype() == inputBuffer.dtype(),
                   "{}: output tensor must have the same type as input tensor (got {} and {})", name,
                   outputBuffer.dtype(), inputBuffer.dtype());
  EMBER_CHECK(outputBuffer.numel() == inputBuffer.numel() * size_,
              "{}: output tensor size must be equal to world_size times input tensor size ({} * {} != {})", name,
              size_, inputBuffer.numel(), outputBuffer.numel());
  EMBER_CHECK(outputBuffer.is_contiguous(), "{}: output tensor has to be contiguous", name);
  Tensor in = dense(inputBuffer), out = outputBuffer;
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kAllgather, in);
  auto body = [s = impl_.get(), in, out, tag, timeout] {
    if (in.numel() == 0) return;
    gloo::AllgatherOptions o(s->context);
    o.setInput(bytes_of(in), nbytes_of(in));
    o.setOutput(bytes_of(out), nbytes_of(out));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::allgather(o);
  };
  return impl_->enqueue("_allgather_base", {out}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>& outputTensors,
                                                       std::vector<std::vector<Tensor>>& inputTensors,
                                                       const ReduceScatterOptions& opts) {
  const char* name = "ProcessGroupGloo::reduce_scatter";
  check_single(name, outputTensors, "output tensor");
  EMBER_CHECK(inputTensors.size() == 1, "{}: requires a single-element input list (got {})", name,
              inputTensors.size());
  Tensor out = outputTensors[0];
  check_reduce_op(name, opts.reduceOp, out.dtype());
  std::vector<Tensor> ins = inputTensors[0];
  check_list(name, ins, out, static_cast<size_t>(size_), "input");
  // The concatenated inputs, staged here on the calling thread (they are inputs: read now, as PyTorch reads them).
  Tensor flat = scratch(out.numel() * size_, out.dtype());
  for (size_t r = 0; r < ins.size(); ++r) {
    Tensor d = dense(ins[r]);
    if (d.numel() > 0) std::memcpy(bytes_of(flat) + r * nbytes_of(out), d.data_ptr(), nbytes_of(out));
  }
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kReduceScatter, out, -1, static_cast<int64_t>(opts.reduceOp));
  auto body = [s = impl_.get(), out, flat, op = opts.reduceOp, tag, timeout] {
    gloo_allreduce(*s, flat.data_ptr(), flat.numel(), flat.dtype(), op, tag, timeout);
    write_back(out, bytes_of(flat) + static_cast<size_t>(s->rank) * nbytes_of(out));
  };
  return impl_->enqueue("reduce_scatter", {out}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::_reduce_scatter_base(Tensor& outputBuffer, Tensor& inputBuffer,
                                                             const ReduceScatterOptions& opts) {
  const char* name = "ProcessGroupGloo::_reduce_scatter_base";
  EMBER_CHECK(outputBuffer.defined() && inputBuffer.defined(), "{}: undefined tensor", name);
  EMBER_CHECK(outputBuffer.dtype() == inputBuffer.dtype(),
                   "{}: input tensor must have the same type as output tensor (got {} and {})", name,
                   inputBuffer.dtype(), outputBuffer.dtype());
  EMBER_CHECK(inputBuffer.numel() == outputBuffer.numel() * size_,
              "{}: input tensor size must be equal to world_size times output tensor size ({} * {} != {})", name,
              size_, outputBuffer.numel(), inputBuffer.numel());
  check_reduce_op(name, opts.reduceOp, outputBuffer.dtype());
  Tensor out = outputBuffer;
  Tensor flat = scratch(inputBuffer.numel(), inputBuffer.dtype());  // a copy: the input stays as it is
  {
    autograd::NoGradGuard no_grad;
    ember::copy_(flat, ember::reshape(inputBuffer, {-1}));
  }
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kReduceScatter, out, -1, static_cast<int64_t>(opts.reduceOp));
  auto body = [s = impl_.get(), out, flat, op = opts.reduceOp, tag,
                                                        timeout] {
    gloo_allreduce(*s, flat.data_ptr(), flat.numel(), flat.dtype(), op, tag, timeout);
    write_back(out, bytes_of(flat) + static_cast<size_t>(s->rank) * nbytes_of(out));
  };
  return impl_->enqueue("_reduce_scatter_base", {out}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<std::vector<Tensor>>& outputTensors,
                                               std::vector<Tensor>& inputTensors, const GatherOptions& opts) {
  const char* name = "ProcessGroupGloo::gather";
  check_rank(*impl_, name, opts.rootRank, "root");
  check_single(name, inputTensors, "input tensor");
  Tensor in = dense(inputTensors[0]);
  std::vector<Tensor> outs;
  Tensor flat;
  if (rank_ == opts.rootRank) {
    EMBER_CHECK(outputTensors.size() == 1, "{}: requires a single-element output list on the root (got {})", name,
                outputTensors.size());
    outs = outputTensors[0];
    check_list(name, outs, in, static_cast<size_t>(size_), "output");
    flat = scratch(in.numel() * size_, in.dtype());
  } else {
    EMBER_CHECK(outputTensors.empty(), "{}: requires an empty output list on non-root ranks", name);
  }
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kGather, in, opts.rootRank);
  auto body = [s = impl_.get(), in, outs, flat, root = opts.rootRank, tag, timeout] {
    if (in.numel() == 0) return;
    gloo::GatherOptions o(s->context);
    o.setInput(bytes_of(in), nbytes_of(in));
    if (flat.defined()) o.setOutput(bytes_of(flat), nbytes_of(flat));
    o.setRoot(static_cast<int>(root));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::gather(o);
    for (size_t r = 0; r < outs.size(); ++r) write_back(outs[r], bytes_of(flat) + r * nbytes_of(in));
  };
  return impl_->enqueue("gather", outs, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(std::vector<Tensor>& outputTensors,
                                                std::vector<std::vector<Tensor>>& inputTensors,
                                                const ScatterOptions& opts) {
  const char* name = "ProcessGroupGloo::scatter";
  check_rank(*impl_, name, opts.rootRank, "root");
  check_single(name, outputTensors, "output tensor");
  Tensor out = outputTensors[0];
  std::vector<Tensor> ins;
  if (rank_ == opts.rootRank) {
    EMBER_CHECK(inputTensors.size() == 1, "{}: requires a single-element input list on the root (got {})", name,
                inputTensors.size());
    check_list(name, inputTensors[0], out, static_cast<size_t>(size_), "input");
    for (const auto& t : inputTensors[0]) ins.push_back(dense(t));
  } else {
    EMBER_CHECK(inputTensors.empty(), "{}: requires an empty input list on non-root ranks", name);
  }
  Tensor buf = dense(out);
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = fingerprint(Fingerprint::kScatter, out, opts.rootRank);
  auto body = [s = impl_.get(), out, buf, ins, root = opts.rootRank, tag, timeout] {
    if (out.numel() == 0) return;
    gloo::ScatterOptions o(s->context);
    if (!ins.empty()) {
      std::vector<char*> ptrs;
      for (const auto& t : ins) ptrs.push_back(bytes_of(t));
      o.setInputs(ptrs, nbytes_of(out));
    }
    o.setOutput(bytes_of(buf), nbytes_of(buf));
    o.setRoot(static_cast<int>(root));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::scatter(o);
    if (!buf.is_same(out)) write_back(out, buf.data_ptr());
  };
  return impl_->enqueue("scatter", {out}, fp, tag, timeout, std::move(body));
}

std::shared_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions& opts) {
  std::vector<std::shared_ptr<Work>> prior;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    for (const auto& w : impl_->inflight) {
      if (auto p = w.lock()) prior.push_back(std::move(p));
    }
  }
  uint32_t tag = impl_->next_tag();
  auto timeout = impl_->timeout_of(opts.timeout);
  auto fp = Fingerprint{};
  auto body = [s = impl_.get(), prior, tag, timeout] {
    for (const auto& w : prior) {
      try {
        w->wait();
      } catch (const std::exception&) {
        // that operation reports its own error; the barrier still meets the other ranks
      }
    }
    gloo::BarrierOptions o(s->context);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
  };
  return impl_->enqueue("barrier", {}, fp, tag, timeout, std::move(body));
}

// ---- point to point
//
// Note [checked send and recv]
// A recv smaller than what arrives would abort the process inside Gloo (Note [collective checks]), so a send is
// two messages: a 16-byte header (byte count, dtype) on slot 2 * tag + 1, then the data on slot 2 * tag (both below
// 2^32, so they never meet a collective's slot, whose top byte is non-zero). A recv posts the header's receive at
// once and hands the rest to a thread of its own: it reads the header, posts the data's receive into the tensor
// when the header matches, and otherwise drains the data into scratch memory (so the sender completes) and fails
// naming both sides. The thread owns a reference to its Work and to Gloo's context, so dropping an unwaited recv
// is safe; it ends with the data, an error, or the group's timeout. Gloo sends only to posted receives, so the
// sender's data waits for the receiver's thread, never the other way round: isend/irecv pairs posted in any order
// on both ranks complete.

namespace {

struct P2PHeader {
  int64_t nbytes;
  int64_t dtype;
};

uint64_t data_slot(int tag) { return static_cast<uint64_t>(tag) << 1; }
uint64_t header_slot(int tag) { return (static_cast<uint64_t>(tag) << 1) | 1; }

std::exception_ptr p2p_error(const std::string& op, int rank, int size, const std::exception& e,
                             std::chrono::milliseconds timeout, const char* other) {
  return std::make_exception_ptr(Error(
      ErrorKind::Runtime, fmt::format("ProcessGroupGloo::{} failed on rank {} of {}: {}. The other rank may have "
                                      "exited, or not posted the matching {} within {}, or used another tag",
                                      op, rank, size, e.what(), other, detail::format_duration(timeout))));
}

// A send: header and data posted at once, completed in wait() (Note [process group threads]).
class SendWork : public Work {
 public:
  SendWork(Tensor t, std::shared_ptr<gloo::Context> context, int dst, int tag, std::chrono::milliseconds timeout,
           int rank, int size)
      : Work("send", {t}), context_(std::move(context)), timeout_(timeout), rank_(rank), size_(size) {
    header_ = {t.nbytes(), static_cast<int64_t>(t.dtype())};
    headerBuf_ = context_->createUnboundBuffer(&header_, sizeof header_);
    dataBuf_ = context_->createUnboundBuffer(t.data_ptr(), static_cast<size_t>(t.nbytes()));
    headerBuf_->send(dst, header_slot(tag));
    dataBuf_->send(dst, data_slot(tag));
  }

  bool wait(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(waitMutex_);
    if (!isCompleted()) {
      auto limit = timeout == kNoTimeout ? timeout_ : timeout;
      std::exception_ptr error;
      try {
        EMBER_CHECK(headerBuf_->waitSend(limit) && dataBuf_->waitSend(limit), "ProcessGroupGloo::send: aborted");
      } catch (const Error&) {
        error = std::current_exception();
      } catch (const std::exception& e) {
        error = p2p_error("send", rank_, size_, e, limit, "recv");
      }
      finish(error);
    }
    return Work::wait(kNoTimeout);
  }

 private:
  std::shared_ptr<gloo::Context> context_;  // outlives the buffers
  P2PHeader header_;
  std::unique_ptr<gloo::transport::UnboundBuffer> headerBuf_, dataBuf_;
  std::chrono::milliseconds timeout_;
  int rank_, size_;
  std::mutex waitMutex_;  // one waiter drives Gloo's wait at a time
};

// A recv: the header's receive is posted at once, the rest happens on the Work's own thread (Note [checked send
// and recv]); wait() is Work's.
class RecvWork : public Work {
 public:
  RecvWork(Tensor t, std::shared_ptr<gloo::Context> context, std::vector<int> sources, int tag,
           std::chrono::milliseconds timeout, int rank, int size)
      : Work("recv", {t}), tensor_(std::move(t)), context_(std::move(context)), tag_(tag), timeout_(timeout),
        rank_(rank), size_(size) {
    headerBuf_ = context_->createUnboundBuffer(&header_, sizeof header_);
    if (sources.size() == 1) headerBuf_->recv(sources[0], header_slot(tag));
    else headerBuf_->recv(sources, header_slot(tag));
  }

  static std::shared_ptr<Work> start(std::shared_ptr<RecvWork> work) {
    std::thread([work] { work->receive(); }).detach();
    return work;
  }

  int sourceRank() const override {
    int r = source_.load();
    EMBER_CHECK(r >= 0, "Work::sourceRank: the recv has not completed");
    return r;
  }

 private:
  void receive() {
    std::exception_ptr error;
    try {
      int peer = -1;
      EMBER_CHECK(headerBuf_->waitRecv(&peer, timeout_), "ProcessGroupGloo::recv: aborted");
      const int64_t want = tensor_.nbytes();
      const bool match = header_.nbytes == want && header_.dtype == static_cast<int64_t>(tensor_.dtype());
      std::vector<char> scratch;  // a mismatched message is drained here, so that its sender completes
      void* dst = tensor_.data_ptr();
      size_t nbytes = static_cast<size_t>(want);
      if (!match) {
        scratch.resize(static_cast<size_t>(std::max<int64_t>(header_.nbytes, 0)));
        dst = scratch.data();
        nbytes = scratch.size();
      }
      auto data = context_->createUnboundBuffer(dst, nbytes);
      data->recv(peer, data_slot(tag_));
      EMBER_CHECK(data->waitRecv(timeout_), "ProcessGroupGloo::recv: aborted");
      if (!match) {
        auto dtype = static_cast<DType>(header_.dtype);
        const int64_t esize = is_valid_dtype_id(header_.dtype) ? element_size(dtype) : 1;
        EMBER_FAIL("ProcessGroupGloo::recv: rank {} sent {} {} elements with tag {}, but the tensor of this recv on "
                   "rank {} holds {} {} elements; send and recv must use tensors of the same dtype and size",
                   peer, header_.nbytes / esize, is_valid_dtype_id(header_.dtype) ? dtype_name(dtype) : "?", tag_,
                   rank_, tensor_.numel(), tensor_.dtype());
      }
      source_ = peer;
    } catch (const Error&) {
      error = std::current_exception();
    } catch (const std::exception& e) {
      error = p2p_error("recv", rank_, size_, e, timeout_, "send");
    }
    finish(error);
  }

  Tensor tensor_;
  std::shared_ptr<gloo::Context> context_;  // outlives the buffers
  P2PHeader header_{};
  std::unique_ptr<gloo::transport::UnboundBuffer> headerBuf_;
  int tag_;
  std::chrono::milliseconds timeout_;
  int rank_, size_;
  std::atomic<int> source_{-1};
};

void check_p2p(const char* name, const std::vector<Tensor>& tensors, int tag) {
  check_single(name, tensors);
  EMBER_CHECK(tensors[0].is_contiguous(), "{}: input tensor has to be contiguous", name);
  EMBER_CHECK(tag >= 0, "{}: tag must be nonnegative, got {}", name, tag);
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::send(std::vector<Tensor>& tensors, int dstRank, int tag) {
  const char* name = "ProcessGroupGloo::send";
  check_p2p(name, tensors, tag);
  check_rank(*impl_, name, dstRank, "destination");
  EMBER_CHECK(dstRank != rank_, "{}: rank {} cannot send to itself", name, rank_);
  return std::make_shared<SendWork>(tensors[0], impl_->context, dstRank, tag, impl_->timeout, rank_, size_);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(std::vector<Tensor>& tensors, int srcRank, int tag) {
  const char* name = "ProcessGroupGloo::recv";
  check_p2p(name, tensors, tag);
  check_rank(*impl_, name, srcRank, "source");
  EMBER_CHECK(srcRank != rank_, "{}: rank {} cannot receive from itself", name, rank_);
  return RecvWork::start(std::make_shared<RecvWork>(tensors[0], impl_->context, std::vector<int>{srcRank}, tag,
                                                    impl_->timeout, rank_, size_));
}

std::shared_ptr<Work> ProcessGroupGloo::recvAnysource(std::vector<Tensor>& tensors, int tag) {
  const char* name = "ProcessGroupGloo::recvAnysource";
  check_p2p(name, tensors, tag);
  EMBER_CHECK(size_ > 1, "{}: a group of one rank has no one to receive from", name);
  std::vector<int> ranks;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) ranks.push_back(r);
  }
  return RecvWork::start(
      std::make_shared<RecvWork>(tensors[0], impl_->context, std::move(ranks), tag, impl_->timeout, rank_, size_));
}

}  // namespace ember::distributed
