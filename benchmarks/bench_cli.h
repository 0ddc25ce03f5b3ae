#pragma once
// Command-line and statistics helpers shared by the benchmark programs' mains (bench_main.cpp,
// latency_main.cpp, train_step_main.cpp).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace bench_cli {

/// "a,b,,c" -> {"a", "b", "c"} (empty items dropped).
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

/// "1,2" -> {1, 2}. Errors: std::invalid_argument / std::out_of_range from std::stoi.
inline std::vector<int> split_ints(const std::string& s) {
  std::vector<int> r;
  for (const std::string& item : split(s)) r.push_back(std::stoi(item));
  return r;
}

/// The value of option `flag` at argv[i], given as "--flag=value" or "--flag value" (then i moves to the
/// value); empty when argv[i] is another option.
inline std::string flag_value(int argc, char** argv, int& i, const char* flag) {
  const std::string a = argv[i], f = std::string(flag) + "=";
  if (a.rfind(f, 0) == 0) return a.substr(f.size());
  if (a == flag && i + 1 < argc) return argv[++i];
  return {};
}

/// The q-quantile of v (nearest rank; q in [0, 1]); v must not be empty.
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace bench_cli
