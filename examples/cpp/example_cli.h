#pragma once
// The command line and error reporting every C++ example shares; each example keeps its own flags and usage text.
//
//   int main(int argc, char** argv) {
//     examples::CommandLine cli("train_fashion_mnist", argc, argv, usage);
//     while (cli.next()) {
//       if (cli.is("--epochs")) epochs = cli.integer(1);
//       else if (cli.is_switch("--no-progress")) progress = false;
//       else cli.unknown();
//     }
//     return examples::run_main("train_fashion_mnist", [&] { return run(...); });
//   }
//
// Flags are "--flag value" or "--flag=value" (as argparse's); -h and --help print the usage on stdout and exit 0.
// A bad command line is one line, "<program>: <what is wrong> (--help lists the options)", on stderr with exit
// status 2 (argparse's status); an error while running is "<program>: <the error's first line>" on stderr, exit
// status 1 (ember::Error's message may carry more lines: a backtrace, an IR dump).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace examples {

/// The arguments of an example, read one flag at a time.
class CommandLine {
 public:
  /// usage(out) writes the example's usage text (for --help).
  CommandLine(std::string program, int argc, char** argv, std::function<void(std::ostream&)> usage)
      : program_(std::move(program)), argc_(argc), argv_(argv), usage_(std::move(usage)) {}

  /// Moves to the next flag; false when none is left. Handles -h / --help (prints the usage, exits 0).
  bool next() {
    if (++i_ >= argc_) return false;
    flag_ = argv_[i_];
    inline_value_.reset();
    if (size_t eq = flag_.find('='); flag_.starts_with("--") && eq != std::string_view::npos) {
      inline_value_ = flag_.substr(eq + 1);
      flag_ = flag_.substr(0, eq);
    }
    if (flag_ == "-h" || flag_ == "--help") {
      if (inline_value_) fail(std::string(flag_) + " takes no value, got '" + std::string(*inline_value_) + "'");
      usage_(std::cout);
      std::exit(0);
    }
    return true;
  }

  std::string_view flag() const { return flag_; }
  /// Whether the current flag is `name` (a flag that takes a value: read it with value(), integer(), ...).
  bool is(std::string_view name) const { return flag_ == name; }
  /// Whether the current flag is the on/off flag `name`; "--name=value" is a usage error (as argparse's).
  bool is_switch(std::string_view name) const {
    if (flag_ != name) return false;
    if (inline_value_) fail(std::string(flag_) + " takes no value, got '" + std::string(*inline_value_) + "'");
    return true;
  }

  /// The current flag's value: after '=', else the next argument. A missing value is a usage error.
  std::string_view value() {
    if (inline_value_) return *inline_value_;
    if (i_ + 1 >= argc_) fail(std::string(flag_) + " needs a value");
    return argv_[++i_];
  }

  /// value() as an integer of at least `min` (and at most `max`, which it is clamped to).
  int64_t integer(int64_t min, int64_t max = std::numeric_limits<int64_t>::max()) {
    const std::string_view text = value();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail(std::string(flag_) + " expects an integer, got '" + std::string(text) + "'");
    if (v < min) fail(std::string(flag_) + " must be at least " + std::to_string(min) + ", got " + std::string(text));
    return v < max ? v : max;
  }

  /// value() as a finite number greater than 0.
  double positive_number() {
    const std::string_view text = value();
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
      fail(std::string(flag_) + " expects a finite number > 0, got '" + std::string(text) + "'");
    return v;
  }

  /// A usage error: one line on stderr, exit status 2.
  [[noreturn]] void fail(const std::string& message) const {
    std::cerr << program_ << ": " << message << " (--help lists the options)\n";
    std::exit(2);
  }
  [[noreturn]] void unknown() const { fail("unknown argument '" + std::string(flag_) + "'"); }

 private:
  std::string program_;
  int argc_;
  char** argv_;
  std::function<void(std::ostream&)> usage_;
  int i_ = 0;
  std::string_view flag_;
  std::optional<std::string_view> inline_value_;
};

/// Runs body and returns its exit status; an exception becomes "<program>: <its message's first line>" on stderr
/// and exit status 1.
inline int run_main(std::string_view program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    const std::string message = e.what();
    std::cerr << program << ": " << message.substr(0, message.find('\n')) << "\n";
    return 1;
  }
}

}  // namespace examples
