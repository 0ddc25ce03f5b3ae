#pragma once
// The enum-like tokens of the C++ frontend's options (LibTorch's torch::kMean, torch::kSame, ...): each is a
// value of its own empty type, so an option such as a loss's reduction is a std::variant of the tokens it
// accepts and a wrong token fails to compile.
#include <cstdint>
#include <string>
#include <variant>

namespace ember {
namespace enumtype {
struct kNone {};
struct kMean {};
struct kSum {};
struct kSame {};
struct kValid {};
struct kZeros {};
struct kReflect {};
struct kReplicate {};
struct kCircular {};
struct kConstant {};
struct kNearest {};
struct kLinear {};
struct kBilinear {};
struct kBicubic {};
struct kTrilinear {};
struct kArea {};
struct kNearestExact {};
struct kGELU {};
struct kBatchMean {};
struct kMax {};
}  // namespace enumtype

inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kSame kSame{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kNearest kNearest{};
// ember::kLinear is nn::init's token (ember/nn/init.h); the resampling options accept it as the linear mode.
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kNearestExact kNearestExact{};
// The GELU activation of the Transformer layers' options (ember::kReLU is nn::init's token).
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kMax kMax{};

namespace enumtype {
/// The Python spelling of a token ("mean", "same", "zeros", ...), for messages and for the ops that take
/// the mode as a string.
inline std::string name(kNone) { return "none"; }
inline std::string name(kMean) { return "mean"; }
inline std::string name(kSum) { return "sum"; }
inline std::string name(kSame) { return "same"; }
inline std::string name(kValid) { return "valid"; }
inline std::string name(kZeros) { return "zeros"; }
inline std::string name(kReflect) { return "reflect"; }
inline std::string name(kReplicate) { return "replicate"; }
inline std::string name(kCircular) { return "circular"; }
inline std::string name(kConstant) { return "constant"; }
inline std::string name(kNearest) { return "nearest"; }
inline std::string name(kLinear) { return "linear"; }
inline std::string name(kBilinear) { return "bilinear"; }
inline std::string name(kBicubic) { return "bicubic"; }
inline std::string name(kTrilinear) { return "trilinear"; }
inline std::string name(kArea) { return "area"; }
inline std::string name(kNearestExact) { return "nearest-exact"; }
inline std::string name(kGELU) { return "gelu"; }
inline std::string name(kBatchMean) { return "batchmean"; }
inline std::string name(kMax) { return "max"; }
}  // namespace enumtype

/// The Python spelling of the token a variant holds.
template <typename... Ts>
std::string enum_name(const std::variant<Ts...>& v) {
  return std::visit([](auto token) { return enumtype::name(token); }, v);
}

namespace nn {
/// A loss's reduction: ember::kNone, ember::kMean (the default) or ember::kSum.
using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

namespace detail {
/// The reduction as the loss ops take it (ember/ops/ops_nn.yaml, as at::Reduction): 0 none, 1 mean, 2 sum.
inline int64_t reduction_enum(const reduction_t& r) {
  if (std::holds_alternative<enumtype::kNone>(r)) return 0;
  if (std::holds_alternative<enumtype::kMean>(r)) return 1;
  return 2;
}
}  // namespace detail
}  // namespace nn
}  // namespace ember
