#include "ember/core/Generator.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <random>

#include "ember/base/Error.h"

namespace ember {

// ---------------------------------------------------------------------------------------------- MT19937

void MT19937::seed_with(uint64_t seed) {
  seed_ = seed;
  state_[0] = static_cast<uint32_t>(seed & 0xffffffffu);
  for (int j = 1; j < kN; ++j)
    state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left_ = 1;
  next_ = 0;
}

void MT19937::twist() {
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  auto mix = [](uint32_t u, uint32_t v) {
    uint32_t y = (u & kUpper) | (v & kLower);
    return (y >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
  };
  int k = 0;
  for (; k < kN - kM; ++k) state_[k] = state_[k + kM] ^ mix(state_[k], state_[k + 1]);
  for (; k < kN - 1; ++k) state_[k] = state_[k + kM - kN] ^ mix(state_[k], state_[k + 1]);
  state_[kN - 1] = state_[kM - 1] ^ mix(state_[kN - 1], state_[0]);
  left_ = kN;
  next_ = 0;
}

void MT19937::set(uint64_t seed, int left, uint32_t next, const std::array<uint32_t, kN>& state) {
  EMBER_CHECK(left > 0 && left <= kN && next <= static_cast<uint32_t>(kN), "Invalid mt19937 state");
  seed_ = seed;
  left_ = left;
  next_ = next;
  state_ = state;
}

// ---------------------------------------------------------------------------------------------- GeneratorImpl

namespace {

// PyTorch's getNonDeterministicRandom() for the CPU: 8 bytes of /dev/urandom.
uint64_t nondeterministic_seed() {
  uint64_t s = 0;
  if (FILE* f = std::fopen("/dev/urandom", "rb")) {
    size_t got = std::fread(&s, sizeof(s), 1, f);
    std::fclose(f);
    if (got == 1) return s;
  }
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

// Byte offsets of PyTorch's CPUGeneratorImplState (ATen/CPUGeneratorImpl.cpp): a legacy THGeneratorState
// (seed, left, seeded, next, 624 uint64 words, normal_x, normal_y, normal_rho, normal_is_valid) followed by the
// float normal cache. See the table in ../shared/notes/pytorch-cpu-rng.md §1.
constexpr size_t kOffSeed = 0, kOffLeft = 8, kOffSeeded = 12, kOffNext = 16, kOffWords = 24;
constexpr size_t kOffNormalX = kOffWords + 8 * MT19937::kN;  // 5016
constexpr size_t kOffNormalY = kOffNormalX + 8, kOffNormalRho = kOffNormalY + 8, kOffNormalValid = kOffNormalRho + 8;
constexpr size_t kOffFloatNormal = 5048, kOffFloatValid = 5052;
static_assert(kOffNormalValid == 5040);

template <class T>
void put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}
template <class T>
T get(const uint8_t* b, size_t off) {
  T v;
  std::memcpy(&v, b + off, sizeof(T));
  return v;
}

}  // namespace

void GeneratorImpl::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  engine_.seed_with(seed);
  next_double_normal_.reset();
  next_float_normal_.reset();
}

uint64_t GeneratorImpl::initial_seed() const {
  std::lock_guard<std::mutex> g(mu_);
  return engine_.seed();
}

uint64_t GeneratorImpl::seed() {
  uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

std::vector<uint8_t> GeneratorImpl::get_state() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<uint8_t> b(kStateSize, 0);  // unused fields and padding are 0, as PyTorch's value-initialised struct
  put<uint64_t>(b, kOffSeed, engine_.seed());
  put<int32_t>(b, kOffLeft, engine_.left());
  put<int32_t>(b, kOffSeeded, 1);
  put<uint64_t>(b, kOffNext, engine_.next());
  for (int i = 0; i < MT19937::kN; ++i) put<uint64_t>(b, kOffWords + 8 * static_cast<size_t>(i), engine_.state()[i]);
  if (next_double_normal_) {
    put<double>(b, kOffNormalY, *next_double_normal_);
    put<int32_t>(b, kOffNormalValid, 1);
  }
  if (next_float_normal_) {
    put<float>(b, kOffFloatNormal, *next_float_normal_);
    b[kOffFloatValid] = 1;
  }
  return b;
}

void GeneratorImpl::set_state(const uint8_t* data, size_t size) {
  EMBER_CHECK(size == kStateSize || size == kLegacyStateSize,
              "set_state: Expected either a CPUGeneratorImplStateLegacy of size {} or a CPUGeneratorImplState of size "
              "{} but found the input RNG state size to be {}",
              kLegacyStateSize, kStateSize, size);
  std::array<uint32_t, MT19937::kN> words;
  for (int i = 0; i < MT19937::kN; ++i)
    words[i] = static_cast<uint32_t>(get<uint64_t>(data, kOffWords + 8 * static_cast<size_t>(i)));
  std::optional<double> dnormal;
  std::optional<float> fnormal;
  if (get<int32_t>(data, kOffNormalValid)) {
    if (size == kStateSize) {
      dnormal = get<double>(data, kOffNormalY);
    } else {
      // The legacy layout kept Box-Muller's (x, rho): the cached value is rho * sin(2 pi x), as PyTorch's.
      double theta = 2.0 * std::numbers::pi * get<double>(data, kOffNormalX);
      dnormal = get<double>(data, kOffNormalRho) * std::sin(theta);
    }
  }
  if (size == kStateSize && data[kOffFloatValid]) fnormal = get<float>(data, kOffFloatNormal);
  EMBER_CHECK(get<int32_t>(data, kOffSeeded) != 0, "Invalid mt19937 state");
  MT19937 engine;
  engine.set(get<uint64_t>(data, kOffSeed), get<int32_t>(data, kOffLeft),
             static_cast<uint32_t>(get<uint64_t>(data, kOffNext)), words);
  std::lock_guard<std::mutex> g(mu_);
  engine_ = engine;
  next_double_normal_ = dnormal;
  next_float_normal_ = fnormal;
}

// ---------------------------------------------------------------------------------------------- defaults

Generator make_generator(uint64_t seed) { return make_intrusive<GeneratorImpl>(seed); }

const Generator& default_generator() {
  // Leaked on purpose: random ops may run during static destruction of other objects.
  static const Generator* g = new Generator(make_generator(nondeterministic_seed()));
  return *g;
}

void manual_seed(uint64_t seed) { default_generator()->manual_seed(seed); }
uint64_t initial_seed() { return default_generator()->initial_seed(); }
uint64_t seed() { return default_generator()->seed(); }

}  // namespace ember
