// Generates text with a character-level language model exported by examples/language_model/train.py, in C++ with
// no Python: ember::jit::load reads the traced model (input (1, seq_len) int64 character ids, output (1, V) logits of
// the next character), the vocabulary file gives the characters (Unicode code points, one per line in id order)
// and the prompt (the line `prompt`, then seq_len ids), and each new character is drawn from
// softmax(logits / temperature) with ember::multinomial, the window sliding by one character. Prints the generated
// text; with train.py's --seed and --temperature it is the text train.py sampled in Python (sample_*.txt).
//
//   PYTHONPATH=python /usr/bin/python3 examples/language_model/train.py             (trains and exports)
//   build/examples/cpp/generate_text [--model out/language_model/lm_ember_lstm_jit.pt]
//       [--vocab out/language_model/vocab_ember_lstm.txt] [--chars 300] [--temperature 0.8] [--seed 0]
#include <ember/ember.h>
#include <ember/jit/runtime/SavedModule.h>

#include "example_cli.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Options {
  std::string model = "out/language_model/lm_ember_lstm_jit.pt";
  std::string vocab = "out/language_model/vocab_ember_lstm.txt";
  int64_t chars = 300;
  double temperature = 0.8;
  uint64_t seed = 0;
};

constexpr const char* kUsage =
    "usage: generate_text [--model PATH] [--vocab PATH] [--chars N] [--temperature T] [--seed S]\n";

void usage(std::ostream& os) { os << kUsage; }

Options parse_args(int argc, char** argv) {
  Options o;
  examples::CommandLine cli("generate_text", argc, argv, usage);
  while (cli.next()) {
    if (cli.is("--model")) o.model = cli.value();
    else if (cli.is("--vocab")) o.vocab = cli.value();
    else if (cli.is("--chars")) o.chars = cli.integer(0);
    else if (cli.is("--temperature")) o.temperature = cli.positive_number();
    else if (cli.is("--seed")) o.seed = static_cast<uint64_t>(cli.integer(0));
    else cli.unknown();
  }
  return o;
}

// A line of the file for an error message: bytes outside printable ASCII as \xNN, at most 40 of them.
std::string printable(const std::string& line) {
  std::string r;
  for (size_t i = 0; i < line.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7F) {
      r += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      r += hex;
    }
  }
  return line.size() > 40 ? r + "..." : r;
}

// The vocabulary file: code points, one per line, then `prompt` and the prompt's ids.
struct Vocabulary {
  std::vector<char32_t> chars;
  std::vector<int64_t> prompt;
};

Vocabulary read_vocabulary(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open the vocabulary file '" + path + "'");
  Vocabulary v;
  bool in_prompt = false;
  std::string line;
  for (int64_t number = 1; std::getline(f, line); ++number) {
    if (line == "prompt") {
      in_prompt = true;
      continue;
    }
    int64_t value = -1;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec != std::errc() || end != line.data() + line.size() || value < 0 || value > 0x10FFFF)
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected a code point or id, got '" +
                               printable(line) + "'");
    if (in_prompt) {
      if (value >= static_cast<int64_t>(v.chars.size()))
        throw std::runtime_error(path + ":" + std::to_string(number) + ": prompt id " + std::to_string(value) +
                                 " is outside the vocabulary of " + std::to_string(v.chars.size()));
      v.prompt.push_back(value);
    } else {
      v.chars.push_back(static_cast<char32_t>(value));
    }
  }
  if (v.chars.empty() || v.prompt.empty())
    throw std::runtime_error("'" + path + "' has no vocabulary or no prompt (is it train.py's vocab_*.txt?)");
  return v;
}

// A code point as UTF-8.
std::string utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

int run(const Options& o) {
  const Vocabulary vocab = read_vocabulary(o.vocab);
  ember::jit::Module model = ember::jit::load(o.model);
  model.eval();
  ember::InferenceMode inference;
  ember::Generator generator = ember::make_generator(o.seed);
  const int64_t window = static_cast<int64_t>(vocab.prompt.size());
  std::vector<int64_t> ids = vocab.prompt;
  std::string text;
  for (int64_t step = 0; step < o.chars; ++step) {
    ember::Tensor context = ember::tensor(std::vector<int64_t>(ids.end() - window, ids.end())).view({1, window});
    ember::IValue out;
    try {
      out = model.forward({context});
    } catch (const std::exception& e) {
      if (step > 0) throw;
      // The export is traced on a window of exactly --seq-len characters, and the vocabulary file's prompt is such
      // a window: a prompt of another length (another run's file, an edited one) does not fit the model.
      const std::string message = e.what();
      throw std::runtime_error("the model rejects a window of " + std::to_string(window) + " characters (prompt of '" +
                               o.vocab + "'): is the vocabulary file the one exported with this model? (its prompt "
                               "must have the training --seq-len ids) " + message.substr(0, message.find('\n')));
    }
    if (!out.is_tensor()) throw std::runtime_error("the model returned " + out.repr() + ", not logits");
    ember::Tensor logits = out.to_tensor();
    if (logits.dim() != 2 || logits.size(0) != 1 || logits.size(1) != static_cast<int64_t>(vocab.chars.size()))
      throw std::runtime_error("the model's logits have " + std::to_string(logits.numel()) +
                               " values; the vocabulary has " + std::to_string(vocab.chars.size()) + " characters");
    ember::Tensor probs = ember::softmax(logits[0] / o.temperature, 0);
    const int64_t next = ember::multinomial(probs, 1, false, generator).item<int64_t>();
    ids.push_back(next);
    text += utf8(vocab.chars[static_cast<size_t>(next)]);
  }
  // Only the generated text (train.py's sample_*.txt holds the same), all of it: a NUL character does not end it.
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  return examples::run_main("generate_text", [&] { return run(o); });
}
