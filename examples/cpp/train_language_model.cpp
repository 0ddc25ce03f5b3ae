// The language model of examples/language_model/train.py (--model lstm), trained from C++ with Ember's C++
// frontend and no Python: the same text (the King James Bible from Debian's bible-kjv, or --text FILE), the same
// character vocabulary, streams, windows and truncated back-propagation through time, the same network (embedding
// 64 -> 2-layer LSTM 256 with dropout 0.2 between the layers -> linear head) built in the same order so that a seed
// gives Python's initial weights, AdamW (lr 3e-3, weight decay 0.01) with gradient clipping at norm 1. Prints the
// first step's loss, the held-out perplexity after each epoch, and saves the state dict with ember::save
// (`lm_cpp_lstm.pt` in --out, under the Python model's names), which `train.py --eval-state-dict` evaluates on
// either framework.
//
//   make && build/examples/cpp/train_language_model [--epochs 1] [--text FILE] [--limit-chars N] [--seq-len 64]
//       [--batch-size 32] [--lr 3e-3] [--max-steps N] [--threads 2] [--seed 0] [--out out/language_model]
//       [--no-progress] [--init-only]
//   PYTHONPATH=python /usr/bin/python3 examples/language_model/train.py
//       --eval-state-dict out/language_model/lm_cpp_lstm.pt
//
// Note [the same run as train.py]
// Every step train.py takes is taken here in the same order, so that a run with the same flags computes what
// `train.py --model lstm` computes: the seed is set before anything draws; the text is decoded as Python decodes
// it (UTF-8 code points, universal newlines for a file; the `bible` output split with str.splitlines), so the
// vocabulary (sorted code points), the held-out split (int(n * (1 - 0.1))), the streams (batchify) and the
// windows are Python's; nothing draws random numbers before the model is built; the modules are registered in
// CharLSTM's order under its names, and Ember's C++ layers draw their initial values with the same ops as the
// Python layers, so the initial weights are Python's bit for bit; the LSTM's dropout draws its masks from the
// default generator on a tensor of the same shape, so the first step sees Python's masks. What differs is the
// arithmetic inside the LSTM: ember::nn::LSTM adds each bias to its own product (as PyTorch's layer does), the
// Python layer folds both biases into one addmm (Note [recurrent loop] in python/ember/_rnn.py). That is a
// rounding-level difference: the first step's loss agrees to about 1e-7 (relative), and later steps drift apart
// only as far as that rounding takes them.
#include <ember/ember.h>

#include "example_cli.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

namespace nn = ember::nn;
namespace F = ember::nn::functional;

constexpr const char* kBibleRange = "gen1:1-rev22:21";  // every verse, Genesis 1:1 to Revelation 22:21
constexpr const char* kStateDictFile = "lm_cpp_lstm.pt";
constexpr double kValidFraction = 0.1;                 // train.py's Corpus
constexpr double kWeightDecay = 0.01, kMaxNorm = 1.0;  // train.py's AdamW and clip_grad_norm_

using State = std::tuple<ember::Tensor, ember::Tensor>;  // the LSTM's (h, c)

struct Options {
  int64_t epochs = 1;
  std::string text;  // empty: the Bible
  int64_t limit_chars = 0;  // 0: the whole text (train.py: `if args.limit_chars`)
  std::optional<int64_t> max_steps;
  int64_t seq_len = 64;
  int64_t batch_size = 32;
  double lr = 3e-3;
  int threads = 2;
  uint64_t seed = 0;
  std::string out = "out/language_model";
  bool progress = true;
  bool init_only = false;
};

void usage(std::ostream& os) {
  os << "usage: train_language_model [--epochs N] [--text FILE] [--limit-chars N] [--seq-len N] [--batch-size N]\n"
        "                            [--lr LR] [--max-steps N] [--threads N] [--seed S] [--out DIR] [--no-progress]\n"
        "                            [--init-only]\n"
        "  --epochs N         epochs (default 1)\n"
        "  --text FILE        a UTF-8 text file instead of the King James Bible (Debian's bible-kjv)\n"
        "  --limit-chars N    use only the first N characters of the text (0: all)\n"
        "  --seq-len N        window length, >= 2 (default 64)\n"
        "  --batch-size N     streams per batch (default 32)\n"
        "  --lr LR            AdamW's learning rate (default 3e-3)\n"
        "  --max-steps N      train on at most N windows per epoch\n"
        "  --threads N        intra-op threads (default 2)\n"
        "  --seed S           seed of the weights and dropout (default 0)\n"
        "  --out DIR          where lm_cpp_lstm.pt goes (default out/language_model)\n"
        "  --no-progress      no progress line on a terminal\n"
        "  --init-only        save the freshly initialised model's state dict and stop (train.py's model starts\n"
        "                     from the same values under the same --seed and text)\n";
}

Options parse_args(int argc, char** argv) {
  Options o;
  examples::CommandLine cli("train_language_model", argc, argv, usage);
  while (cli.next()) {
    if (cli.is_switch("--no-progress")) {
      o.progress = false;
    } else if (cli.is_switch("--init-only")) {
      o.init_only = true;
    } else if (cli.is("--epochs")) {
      o.epochs = cli.integer(1);
    } else if (cli.is("--text")) {
      o.text = cli.value();
      if (o.text.empty()) cli.fail("--text expects a file path, got ''");
    } else if (cli.is("--limit-chars")) {
      o.limit_chars = cli.integer(0);
    } else if (cli.is("--seq-len")) {
      o.seq_len = cli.integer(2);
    } else if (cli.is("--batch-size")) {
      o.batch_size = cli.integer(1);
    } else if (cli.is("--lr")) {
      o.lr = cli.positive_number();
    } else if (cli.is("--max-steps")) {
      o.max_steps = cli.integer(1);
    } else if (cli.is("--threads")) {
      o.threads = static_cast<int>(cli.integer(1, 1024));
    } else if (cli.is("--seed")) {
      o.seed = static_cast<uint64_t>(cli.integer(0));
    } else if (cli.is("--out")) {
      o.out = cli.value();
    } else {
      cli.unknown();
    }
  }
  return o;
}

// ---------------------------------------------------------------------------------------------- text

/// The code points of UTF-8 bytes, decoded strictly as Python's "utf-8" codec does (no overlong forms, no
/// surrogates, nothing above U+10FFFF). Errors: std::runtime_error naming `what` and the offending byte's offset.
std::u32string decode_utf8(std::string_view bytes, const std::string& what) {
  std::u32string out;
  out.reserve(bytes.size());
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  for (size_t i = 0; i < n;) {
    const unsigned char b = s[i];
    size_t len = 0;
    char32_t cp = 0, min = 0;
    if (b < 0x80) len = 1, cp = b;
    else if (b >= 0xC2 && b <= 0xDF) len = 2, cp = b & 0x1F, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF) len = 3, cp = b & 0x0F, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4) len = 4, cp = b & 0x07, min = 0x10000;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (s[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (!ok || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", b);
      throw std::runtime_error(what + " is not UTF-8: byte " + hex + " at offset " + std::to_string(i));
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

/// Python's universal newlines (text-mode open(), subprocess with text=True): "\r\n" and a lone "\r" become "\n".
std::string universal_newlines(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\r') {
      out.push_back(bytes[i]);
      continue;
    }
    out.push_back('\n');
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
  }
  return out;
}

/// Whether Python's str.splitlines() ends a line at the code point c ("\r\n" is one boundary; the caller has
/// already made it "\n").
bool line_boundary(char32_t c) {
  return c == U'\n' || c == U'\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 ||
         c == 0x2028 || c == 0x2029;
}

/// The full path of `program` on $PATH (shutil.which), or empty.
std::string which(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

/// train.py's load_text (and its --limit-chars cut): the file's text, or the King James Bible printed by
/// bible-kjv's `bible`, one verse per line with its reference ("Ge1:1 ") removed. Errors (std::runtime_error,
/// one line): an unreadable or non-UTF-8 file; `bible` missing or failing.
std::u32string load_text(const Options& o) {
  std::u32string text;
  if (!o.text.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(o.text, ec)) throw std::runtime_error("--text " + o.text + ": no such file");
    if (std::filesystem::is_directory(o.text, ec)) throw std::runtime_error("--text " + o.text + ": is a directory");
    std::ifstream f(o.text, std::ios::binary);
    if (!f) throw std::runtime_error("--text " + o.text + ": cannot be opened");
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) throw std::runtime_error("--text " + o.text + ": cannot be read");
    text = decode_utf8(universal_newlines(bytes), "--text " + o.text);
  } else {
    const std::string program = which("bible");
    if (program.empty())
      throw std::runtime_error("the `bible` program is missing: install Debian's bible-kjv and bible-kjv-text "
                               "(apt-get install bible-kjv bible-kjv-text) or give a text file with --text");
    const std::string command = "'" + program + "' -f " + kBibleRange + " 2>/dev/null";
    std::FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + program);
    std::string printed;
    char buffer[1 << 16];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) printed.append(buffer, n);
    if (const int status = pclose(pipe); status != 0) {
      const std::string how = status == -1          ? "could not be waited for"
                              : WIFEXITED(status)   ? "exited with status " + std::to_string(WEXITSTATUS(status))
                              : WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                                    : "failed (wait status " + std::to_string(status) + ")";
      throw std::runtime_error("`" + program + " -f " + kBibleRange + "` " + how +
                               ": is Debian's bible-kjv-text installed?");
    }
    // Python: "".join(line.split(" ", 1)[1] + "\n" for line in printed.splitlines() if " " in line)
    const std::u32string lines = decode_utf8(universal_newlines(printed), "the output of `bible`");
    text.reserve(lines.size());
    for (size_t start = 0; start < lines.size();) {
      size_t end = start;
      while (end < lines.size() && !line_boundary(lines[end])) ++end;
      const size_t space = lines.find(U' ', start);
      if (space < end) {
        text.append(lines, space + 1, end - space - 1);
        text.push_back(U'\n');
      }
      start = end + 1;
    }
  }
  if (o.limit_chars > 0 && static_cast<int64_t>(text.size()) > o.limit_chars)
    text.resize(static_cast<size_t>(o.limit_chars));
  return text;
}

/// train.py's batchify: the ids cut into batch_size equal consecutive streams, a (batch_size, n) int64 tensor
/// (the remainder dropped). Errors: fewer than 2 ids per stream.
ember::Tensor batchify(const std::vector<int64_t>& ids, int64_t batch_size) {
  const int64_t n = static_cast<int64_t>(ids.size()) / batch_size;
  if (n < 2)
    throw std::runtime_error(std::to_string(ids.size()) + " characters are too few for " +
                             std::to_string(batch_size) + " streams");
  ember::Tensor data = ember::empty({batch_size, n}, ember::kInt64);
  std::copy(ids.begin(), ids.begin() + n * batch_size, data.data_ptr<int64_t>());
  return data;
}

/// train.py's Corpus and the two batchify calls of its main(): the vocabulary (the text's distinct code points,
/// sorted), the training streams (batch_size of them) and the held-out streams (the last tenth of the text in
/// min(batch_size, max(1, n_valid / (2 seq_len))) streams).
struct Corpus {
  std::vector<char32_t> vocab;
  ember::Tensor train, valid;  // (streams, n) int64
};

Corpus make_corpus(const std::u32string& text, const Options& o) {
  if (text.size() < 100)
    throw std::runtime_error("the text has " + std::to_string(text.size()) + " characters; at least 100 are needed");
  Corpus c;
  c.vocab.assign(text.begin(), text.end());
  std::sort(c.vocab.begin(), c.vocab.end());
  c.vocab.erase(std::unique(c.vocab.begin(), c.vocab.end()), c.vocab.end());
  std::unordered_map<char32_t, int64_t> index;
  for (size_t i = 0; i < c.vocab.size(); ++i) index[c.vocab[i]] = static_cast<int64_t>(i);
  std::vector<int64_t> ids(text.size());
  std::transform(text.begin(), text.end(), ids.begin(), [&](char32_t ch) { return index[ch]; });
  // Python: int(len(ids) * (1 - valid_fraction)), in doubles.
  const auto split = static_cast<size_t>(static_cast<double>(ids.size()) * (1 - kValidFraction));
  const std::vector<int64_t> train(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(split));
  const std::vector<int64_t> valid(ids.begin() + static_cast<std::ptrdiff_t>(split), ids.end());
  c.train = batchify(train, o.batch_size);
  const int64_t valid_streams =
      std::min<int64_t>(o.batch_size, std::max<int64_t>(1, static_cast<int64_t>(valid.size()) / (2 * o.seq_len)));
  c.valid = batchify(valid, valid_streams);
  return c;
}

/// train.py's windows(): the (input, target) windows of at most seq_len steps along dim 1 of data (streams, n),
/// target the input shifted by one; views of data.
std::vector<std::pair<ember::Tensor, ember::Tensor>> windows(const ember::Tensor& data, int64_t seq_len) {
  std::vector<std::pair<ember::Tensor, ember::Tensor>> out;
  for (int64_t start = 0; start < data.size(1) - 1; start += seq_len) {
    const int64_t length = std::min(seq_len, data.size(1) - 1 - start);
    out.emplace_back(data.narrow(1, start, length), data.narrow(1, start + 1, length));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- model

/// train.py's CharLSTM: embedding (64) -> LSTM (256, 2 layers, dropout 0.2, batch_first) -> linear head, its
/// modules registered (and so initialised) in Python's order and under Python's names, so the state dict's keys
/// are "embedding.weight", "rnn.weight_ih_l0", ..., "head.bias". forward: x (B, T) int64 and the state (h, c) or
/// none -> logits (B, T, V) and the new state.
struct CharLSTMImpl : nn::Module {
  explicit CharLSTMImpl(int64_t vocab_size)
      : embedding(register_module("embedding", nn::Embedding(vocab_size, 64))),
        rnn(register_module("rnn",
                            nn::LSTM(nn::LSTMOptions(64, 256).num_layers(2).dropout(0.2).batch_first(true)))),
        head(register_module("head", nn::Linear(256, vocab_size))) {}

  std::tuple<ember::Tensor, State> forward(const ember::Tensor& x, std::optional<State> state = {}) {
    auto [out, next] = rnn->forward(embedding->forward(x), std::move(state));
    return {head->forward(out), next};
  }

  nn::Embedding embedding;
  nn::LSTM rnn;
  nn::Linear head;
};
EMBER_MODULE(CharLSTM);

/// The mean cross-entropy of logits (B, T, V) against the targets y (B, T), or their sum with kSum.
ember::Tensor loss_of(const ember::Tensor& logits, const ember::Tensor& y, bool sum = false) {
  auto options = F::CrossEntropyFuncOptions();
  if (sum) options.reduction(ember::kSum);
  return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), y.reshape({-1}), options);
}

/// train.py's evaluate(): the mean cross-entropy (nats per character) of the model on the streams `data`, in
/// eval mode (no dropout), the state carried over from window to window.
double evaluate(CharLSTM& model, const ember::Tensor& data, int64_t seq_len) {
  model->eval();
  ember::NoGradGuard no_grad;
  double total = 0;
  int64_t count = 0;
  std::optional<State> state;
  for (const auto& [x, y] : windows(data, seq_len)) {
    auto [logits, next] = model->forward(x, state);
    state = next;
    total += loss_of(logits, y, /*sum=*/true).item<double>();
    count += y.numel();
  }
  return total / static_cast<double>(std::max<int64_t>(count, 1));
}

std::string save_state_dict(CharLSTM& model, const std::string& out) {
  std::filesystem::create_directories(out);
  const std::string path = (std::filesystem::path(out) / kStateDictFile).string();
  ember::save(model, path);
  return path;
}

/// 4400000 -> "4,400,000" (Python's f"{n:,}").
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(const Options& o) {
  // See Note [the same run as train.py]: threads and seed first, then the data, then the model.
  // The output folder first: a bad --out fails before the training, not after it.
  {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec || !std::filesystem::is_directory(o.out, ec))
      throw std::runtime_error("--out " + o.out + ": cannot create the folder" + (ec ? " (" + ec.message() + ")" : ""));
    if (access(o.out.c_str(), W_OK) != 0) throw std::runtime_error("--out " + o.out + ": the folder is not writable");
  }
  ember::set_num_threads(o.threads);
  ember::manual_seed(o.seed);
  const std::u32string text = load_text(o);
  const Corpus corpus = make_corpus(text, o);
  const auto train_windows = windows(corpus.train, o.seq_len);
  const int64_t steps = std::min(static_cast<int64_t>(train_windows.size()), o.max_steps.value_or(INT64_MAX));
  std::printf("cpp: %s characters, vocabulary %zu, %lld steps per epoch of %lld x %lld\n",
              thousands(static_cast<int64_t>(text.size())).c_str(), corpus.vocab.size(),
              static_cast<long long>(steps), static_cast<long long>(o.batch_size), static_cast<long long>(o.seq_len));
  std::fflush(stdout);

  CharLSTM model(static_cast<int64_t>(corpus.vocab.size()));
  if (o.init_only) {
    std::printf("saved the initial state dict (seed %llu) to %s\n", static_cast<unsigned long long>(o.seed),
                save_state_dict(model, o.out).c_str());
    return 0;
  }
  ember::optim::AdamW optimizer(model->parameters(), ember::optim::AdamWOptions(o.lr).weight_decay(kWeightDecay));
  const bool progress = o.progress && isatty(fileno(stdout));

  double perplexity = 0;
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    auto shown = start;
    model->train();
    std::optional<State> state;  // truncated BPTT: carried over, detached, from window to window
    std::vector<double> losses;
    for (int64_t step = 0; step < steps; ++step) {
      const auto& [x, y] = train_windows[static_cast<size_t>(step)];
      if (state) state = State(std::get<0>(*state).detach(), std::get<1>(*state).detach());
      auto [logits, next] = model->forward(x, state);
      state = next;
      ember::Tensor loss = loss_of(logits, y);
      optimizer.zero_grad();
      loss.backward();
      nn::utils::clip_grad_norm_(model->parameters(), kMaxNorm);
      optimizer.step();
      losses.push_back(loss.item<double>());
      const bool due = std::chrono::steady_clock::now() - shown > std::chrono::milliseconds(250);
      if (progress && (step + 1 == steps || due)) {
        shown = std::chrono::steady_clock::now();
        std::printf("\rtrain %lld/%lld  loss %.3f ", static_cast<long long>(step + 1), static_cast<long long>(steps),
                    losses.back());
        std::fflush(stdout);
      }
    }
    if (progress && steps > 0) std::printf("\r\033[K");
    const double seconds = seconds_since(start);
    if (epoch == 1) std::printf("first step loss %.8f\n", losses.front());
    perplexity = std::exp(evaluate(model, corpus.valid, o.seq_len));
    std::printf("epoch %lld: training loss %.3f, held-out perplexity %.2f, %.1f s\n", static_cast<long long>(epoch),
                losses.back(), perplexity, seconds);
    std::fflush(stdout);
  }
  const std::string path = save_state_dict(model, o.out);
  std::printf("saved the state dict to %s (held-out perplexity %.6f)\n", path.c_str(), perplexity);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  return examples::run_main("train_language_model", [&] { return run(o); });
}
