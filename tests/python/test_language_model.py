"""The second main job (issue 20): examples/language_model/train.py trains a character-level LSTM or Transformer
on the King James Bible (Debian's bible-kjv), exports it with ember.jit, and examples/cpp/generate_text samples
from the export with no Python.

Short runs on a prefix of the real text: the model must learn something (held-out perplexity well below the
vocabulary's size, which a uniform guess scores), the export must compute the Python model's logits, the C++
program must sample exactly the text the Python script sampled from the same seed, and the first training step
must see the loss PyTorch sees (same seed: same initial weights and data). Skipped when bible-kjv is not
installed, or for the C++ part when the program is not built.

The same training in C++ (examples/cpp/train_language_model): under the same seed and flags it starts from
train.py's initial weights bit for bit, its first step sees train.py's loss (the same data, weights and dropout
masks; the LSTM's arithmetic differs only in rounding, Note [the same run as train.py] in the program), and
`train.py --eval-state-dict` scores its saved state dict with the held-out perplexity it printed.
"""
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ember

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "language_model", "train.py")
BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
GENERATE = os.path.join(BUILD, "examples", "cpp", "generate_text")
TRAINER = os.path.join(BUILD, "examples", "cpp", "train_language_model")
needs_trainer = pytest.mark.skipif(not os.path.exists(TRAINER), reason=f"{TRAINER} is not built (run make)")
# Loaded under a name of its own: the Fashion-MNIST tests import their example's train.py as `train`.
_spec = importlib.util.spec_from_file_location("language_model_train", SCRIPT)
lm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lm)

pytestmark = pytest.mark.skipif(shutil.which("bible") is None,
                                reason="Debian's bible-kjv is not installed (scripts/setup.sh installs it)")
SHORT = ["--limit-chars", "60000", "--seq-len", "32", "--batch-size", "16", "--epochs", "2", "--no-progress",
         "--sample-chars", "80", "--seed", "3"]


def run(cmd, timeout=900):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module", params=["lstm", "transformer"])
def trained(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"lm_{request.param}")
    proc = run([sys.executable, SCRIPT, "--model", request.param, "--out", str(out), "--max-steps", "60"] + SHORT)
    assert proc.returncode == 0, f"train.py failed:\n{proc.stdout}\n{proc.stderr}"
    return request.param, out, proc.stdout


def test_the_text_is_the_bible_without_references():
    text = lm.load_text()
    assert text.startswith("In the beginning God created the heaven and the earth.\n")
    assert text.count("\n") == 31102  # one line per verse
    assert "Ge1:1" not in text


def test_training_lowers_the_held_out_perplexity(trained):
    kind, out, stdout = trained
    perplexities = [float(line.split("held-out perplexity ")[1].split(",")[0])
                    for line in stdout.splitlines() if line.startswith("epoch ")]
    vocab_size = len(lm.Corpus(lm.load_text()[:60000]).vocab)
    assert len(perplexities) == 2 and all(math.isfinite(p) for p in perplexities)
    assert perplexities[-1] < vocab_size / 2, (perplexities, vocab_size)
    stem = f"ember_{kind}"
    for name in (f"lm_{stem}.pt", f"training_{stem}.png", f"sample_{stem}.txt", f"lm_{stem}_jit.pt",
                 f"vocab_{stem}.txt"):
        assert (out / name).stat().st_size > 0, name


def read_vocab(path):
    lines = path.read_text().splitlines()
    cut = lines.index("prompt")
    return [chr(int(c)) for c in lines[:cut]], [int(i) for i in lines[cut + 1:]]


def test_the_export_computes_the_models_next_character_logits(trained):
    kind, out, _ = trained
    vocab, prompt = read_vocab(out / f"vocab_ember_{kind}.txt")
    model = lm.build_model(ember, kind, len(vocab), len(prompt))
    model.load_state_dict(ember.load(str(out / f"lm_ember_{kind}.pt")))
    model.eval()
    exported = ember.jit.load(str(out / f"lm_ember_{kind}_jit.pt"))
    x = ember.tensor([prompt])
    with ember.no_grad():
        expected = model(x)[0][:, -1]
        got = exported(x)
    assert got.shape == (1, len(vocab))
    ember.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not os.path.exists(GENERATE), reason=f"{GENERATE} is not built (run make)")
def test_the_cpp_program_samples_the_text_python_sampled(trained):
    kind, out, _ = trained
    proc = run([GENERATE, "--model", str(out / f"lm_ember_{kind}_jit.pt"), "--vocab",
                str(out / f"vocab_ember_{kind}.txt"), "--chars", "80", "--temperature", "0.8", "--seed", "3"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (out / f"sample_ember_{kind}.txt").read_text(encoding="utf-8") + "\n"


def test_the_cpp_program_rejects_bad_files(tmp_path):
    if not os.path.exists(GENERATE):
        pytest.skip(f"{GENERATE} is not built")
    bad = tmp_path / "vocab.txt"
    bad.write_text("65\nprompt\n7\n")
    proc = run([GENERATE, "--vocab", str(bad), "--model", str(tmp_path / "missing.pt")])
    assert proc.returncode == 1 and "prompt id 7 is outside the vocabulary of 1" in proc.stderr
    proc = run([GENERATE, "--chars", "x"])
    assert proc.returncode == 2 and "--chars expects" in proc.stderr


@pytest.mark.parametrize("kind", ["lstm", "transformer"])
def test_the_first_step_sees_pytorchs_loss(kind):
    torch = pytest.importorskip("torch")
    corpus = lm.Corpus(lm.load_text()[:20000])
    losses = []
    for framework in (ember, torch):
        framework.manual_seed(0)
        model = lm.build_model(framework, kind, len(corpus.vocab), 32)
        model.eval()  # no dropout: the same function on both sides
        x, y = next(lm.windows(lm.batchify(framework, corpus.train, 8), 32))
        logits, _ = model(x)
        losses.append(framework.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)),
                                                            y.reshape(-1)).item())
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)


# ---------------------------------------------------------------------------------------------- the C++ trainer
# The flags both programs take; the data flags decide the vocabulary and streams, so --eval-state-dict gets them too.
DATA = ["--limit-chars", "60000", "--seq-len", "32", "--batch-size", "16", "--threads", "1"]
CPP_STEPS = 20
PYTHON_ONLY = ["--no-progress", "--no-export", "--sample-chars", "1"]


def first_step_loss(stdout):
    m = re.search(r"^first step loss (\d+\.\d{8})$", stdout, re.M)
    assert m, stdout
    return float(m.group(1))


def heading(stdout):
    """The characters, vocabulary and steps of the first line, without the framework's name."""
    return stdout.splitlines()[0].split(": ", 1)[1]


@pytest.fixture(scope="module")
def cpp_trained(tmp_path_factory):
    """The output directory and stdout of a short C++ training run (2 epochs of CPP_STEPS steps, seed 3)."""
    if not os.path.exists(TRAINER):
        pytest.skip(f"{TRAINER} is not built")
    out = tmp_path_factory.mktemp("lm_cpp")
    proc = run([TRAINER, *DATA, "--seed", "3", "--max-steps", str(CPP_STEPS), "--epochs", "2", "--out", str(out)])
    assert proc.returncode == 0, f"train_language_model failed:\n{proc.stdout}\n{proc.stderr}"
    return out, proc.stdout


@needs_trainer
def test_cpp_training_reports_and_saves_the_python_models_state_dict(cpp_trained):
    out, stdout = cpp_trained
    lines = stdout.splitlines()
    assert lines[0] == f"cpp: 60,000 characters, vocabulary 60, {CPP_STEPS} steps per epoch of 16 x 32", stdout
    perplexities = [float(m) for m in re.findall(r"^epoch \d: training loss \d+\.\d{3}, held-out perplexity "
                                                 r"(\d+\.\d\d), \d+\.\d s$", stdout, re.M)]
    assert len(perplexities) == 2 and perplexities[1] < perplexities[0] < 60, stdout  # 60: a uniform guess
    assert lines[-1].startswith(f"saved the state dict to {out / 'lm_cpp_lstm.pt'} (held-out perplexity "), stdout
    state = ember.load(str(out / "lm_cpp_lstm.pt"))
    want = lm.build_model(ember, "lstm", 60, 32).state_dict()
    assert list(state) == list(want)
    for name, value in want.items():
        assert state[name].shape == value.shape and state[name].dtype == value.dtype, name


@needs_trainer
@pytest.mark.parametrize("seed", [0, 3])
def test_cpp_initial_weights_are_pythons(tmp_path, seed):
    """--init-only saves the freshly built model: train.py's model under the same seed (on Ember bit for bit; on
    PyTorch, whose generator Ember follows, to float rounding)."""
    proc = run([TRAINER, *DATA, "--seed", str(seed), "--init-only", "--out", str(tmp_path)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = ember.load(str(tmp_path / "lm_cpp_lstm.pt"))
    ember.manual_seed(seed)
    python = lm.build_model(ember, "lstm", 60, 32).state_dict()
    assert list(state) == list(python)
    for name in python:
        assert ember.equal(state[name], python[name]), name
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    reference = lm.build_model(torch, "lstm", 60, 32).state_dict()
    for name in python:
        np.testing.assert_allclose(state[name].numpy(), reference[name].numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=name)


@needs_trainer
def test_cpp_first_step_loss_is_pythons(cpp_trained, tmp_path):
    """The first step (training mode: dropout 0.2 between the LSTM layers is on) sees train.py's loss: the same
    windows, the same initial weights and the same dropout masks, both drawn from the default generator after the
    same draws. The LSTM layers (Python's ember.lstm, C++'s ember::nn::LSTM) group the bias additions
    differently, so the two agree to rounding, not bit for bit."""
    _, stdout = cpp_trained
    proc = run([sys.executable, SCRIPT, "--model", "lstm", *DATA, "--seed", "3", "--max-steps", "1",
                "--out", str(tmp_path), *PYTHON_ONLY])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert heading(proc.stdout) == heading(stdout).replace(f"{CPP_STEPS} steps", "1 steps")
    assert first_step_loss(stdout) == pytest.approx(first_step_loss(proc.stdout), rel=1e-5)


@needs_trainer
def test_cpp_reads_a_utf8_file_as_python_does(tmp_path):
    """--text: code points, not bytes (non-ASCII letters), and universal newlines (CRLF and CR read as LF), so the
    vocabulary, streams and first loss are train.py's."""
    text = tmp_path / "text.txt"
    verse = "Über die Brücke — naïve café, ‘quoted’ «text»\r\nsecond line\rthird line\n"
    text.write_bytes((verse * 40).encode("utf-8"))
    args = ["--text", str(text), "--seq-len", "16", "--batch-size", "4", "--threads", "1", "--seed", "1",
            "--max-steps", "1"]
    cpp = run([TRAINER, *args, "--out", str(tmp_path)])
    python = run([sys.executable, SCRIPT, *args, "--out", str(tmp_path), *PYTHON_ONLY])
    assert cpp.returncode == 0 and python.returncode == 0, cpp.stderr + python.stderr
    vocab = sorted(set((verse * 40).replace("\r\n", "\n").replace("\r", "\n")))
    assert heading(cpp.stdout) == heading(python.stdout)
    assert heading(cpp.stdout).startswith(f"{len(verse.replace(chr(13) + chr(10), chr(10))) * 40:,} characters, "
                                          f"vocabulary {len(vocab)},"), cpp.stdout
    assert first_step_loss(cpp.stdout) == pytest.approx(first_step_loss(python.stdout), rel=1e-5)


@needs_trainer
@pytest.mark.parametrize("framework", ["ember", "torch"])
def test_python_evaluates_the_cpp_state_dict(cpp_trained, framework):
    """train.py --eval-state-dict scores the C++ model's state dict with the held-out perplexity the C++ program
    printed, on Ember and on PyTorch (other kernels: equal to rounding)."""
    if framework == "torch":
        pytest.importorskip("torch")
    out, stdout = cpp_trained
    printed = float(re.search(r"\(held-out perplexity (\d+\.\d{6})\)$", stdout, re.M).group(1))
    path = out / "lm_cpp_lstm.pt"
    proc = run([sys.executable, SCRIPT, "--framework", framework, *DATA, "--eval-state-dict", str(path)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = re.fullmatch(rf"{re.escape(str(path))}: held-out perplexity (\d+\.\d{{6}}) \(\d\.\d{{8}} nats per character\) "
                     rf"on 16 streams of 375 characters \({framework} .*, 1 threads\)\n", proc.stdout)
    assert m, proc.stdout
    assert float(m.group(1)) == pytest.approx(printed, rel=1e-5)


@needs_trainer
@pytest.mark.parametrize("args, status, message", [
    (["--text", "/nonexistent/bible.txt"], 1, "--text /nonexistent/bible.txt: no such file"),
    (["--seq-len", "abc"], 2, "--seq-len expects an integer, got 'abc'"),
    (["--max-steps", "2.5"], 2, "--max-steps expects an integer, got '2.5'"),
    (["--seq-len", "1"], 2, "--seq-len must be at least 2"),
    (["--batch-size"], 2, "--batch-size needs a value"),
    (["--frobnicate"], 2, "unknown argument '--frobnicate'"),
    (["--batch-size", "1000", "--limit-chars", "1000"], 1, "900 characters are too few for 1000 streams"),
])
def test_cpp_bad_input_is_one_error_line(args, status, message):
    proc = run([TRAINER, *args])
    lines = proc.stderr.splitlines()
    assert proc.returncode == status and len(lines) == 1, proc.stderr
    assert lines[0].startswith("train_language_model: ") and message in lines[0], lines[0]


@needs_trainer
@pytest.mark.parametrize("content, message", [(b"too short", "the text has 9 characters; at least 100 are needed"),
                                              (b"\xff" * 200, "is not UTF-8: byte 0xff at offset 0")])
def test_cpp_bad_text_is_one_error_line(tmp_path, content, message):
    text = tmp_path / "text.txt"
    text.write_bytes(content)
    proc = run([TRAINER, "--text", str(text), "--out", str(tmp_path)])
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("make, message", [
    (None, "no such file"),
    (lambda path: ember.save(ember.ones(2), path), "holds a Tensor, not a state dict"),
    (lambda path: ember.save({"embedding.weight": ember.ones(7, 64)}, path),
     "the state dict's vocabulary has 7 characters, this text's 60"),
    (lambda path: ember.save({"embedding.weight": ember.ones(60, 64)}, path), "Missing key(s) in state_dict"),
    (lambda path: open(path, "wb").write(b"not an archive"), "not a file Ember reads"),
])
def test_eval_state_dict_with_a_bad_file_is_one_error_line(tmp_path, make, message):
    path = tmp_path / "state.pt"
    if make is not None:
        make(str(path))
    proc = run([sys.executable, SCRIPT, *DATA, "--eval-state-dict", str(path)], timeout=300)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"train.py: --eval-state-dict {path}: ") and message in lines[0], lines[0]


def test_train_py_bad_input_is_an_error_not_a_traceback(tmp_path):
    for args in (["--text", str(tmp_path / "missing.txt")], ["--seq-len", "abc"]):
        proc = run([sys.executable, SCRIPT, *args, "--out", str(tmp_path)], timeout=300)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.splitlines()[-1].startswith("train.py: error: "), proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--lr", "-1"], "--lr must be a finite number > 0"),
    (["--lr", "nan"], "--lr must be a finite number > 0"),
    (["--threads", "0"], "--threads must be >= 1"),
    (["--threads", "-2"], "--threads must be >= 1"),
    (["--temperature", "nan"], "--temperature must be a finite number > 0"),
    (["--seed", str(2 ** 64)], "--seed must be in [0, 2**64)"),
    (["--seed", "-1"], "--seed must be in [0, 2**64)"),
    (["--limit-chars", "-5"], "--limit-chars must be >= 0"),
    (["--limit-chars", "2610", "--batch-size", "100000"], "characters are too few for 100000 streams"),
    (["--out", "/etc/passwd/x"], "--out /etc/passwd/x: cannot create the folder"),
])
def test_train_py_bad_values_are_one_error_line_before_training(tmp_path, args, message):
    out = [] if "--out" in args else ["--out", str(tmp_path)]
    proc = run([sys.executable, SCRIPT, "--max-steps", "1", "--no-progress", "--no-export", "--limit-chars", "3000",
                *out, *args], timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "first step loss" not in proc.stdout, proc.stdout
    assert proc.stderr.splitlines()[-1].startswith("train.py: error: ") and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("framework, make, message", [
    ("ember", lambda path: ember.save({"embedding.weight": ember.ones(60, 64), "step": 3}, path),
     "entry 'step' is a int, not a tensor"),
    ("torch", lambda path: ember.save({"embedding.weight": ember.ones(60, 64, dtype=ember.bfloat16)}, path),
     "Missing key(s) in state_dict"),
])
def test_eval_state_dict_with_odd_entries_is_one_error_line(tmp_path, framework, make, message):
    if framework == "torch":
        pytest.importorskip("torch")
    path = tmp_path / "state.pt"
    make(str(path))
    proc = run([sys.executable, SCRIPT, *DATA, "--framework", framework, "--eval-state-dict", str(path)], timeout=300)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert message in lines[0], lines[0]


@needs_trainer
def test_cpp_empty_text_and_bad_out_are_one_error_line(tmp_path):
    for args in (["--text="], ["--text", ""]):
        proc = run([TRAINER, *args])
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "--text expects a file path" in proc.stderr, proc.stderr
    text = tmp_path / "text.txt"
    text.write_text("In the beginning God created the heaven and the earth. " * 20)
    proc = run([TRAINER, "--text", str(text), "--out", "/etc/passwd/x", "--max-steps", "1"])
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--out /etc/passwd/x: cannot create the folder" in proc.stderr and "characters" not in proc.stdout


@needs_trainer
def test_cpp_failing_bible_reports_its_exit_status(tmp_path):
    fake = tmp_path / "bible"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ.get('PATH', '')}")
    proc = subprocess.run([TRAINER, "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "exited with status 3" in proc.stderr and "768" not in proc.stderr, proc.stderr


def _fixed_window_export(path):
    """A traced next-character model over the vocabulary [NUL, 'A'] that needs a window of exactly 4 ids and
    always predicts NUL."""
    class Fixed(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.position = ember.nn.Parameter(ember.zeros(1, 4))
            self.logits = ember.nn.Parameter(ember.tensor([[100.0, -100.0]]))

        def forward(self, x):
            return self.logits + (x.float() * 0 + self.position).sum(1, keepdim=True)

    ember.jit.save(ember.jit.trace(Fixed().eval(), ember.zeros(1, 4, dtype=ember.int64)), path)


def test_the_cpp_program_writes_nul_characters_and_checks_the_prompt_length(tmp_path):
    if not os.path.exists(GENERATE):
        pytest.skip(f"{GENERATE} is not built")
    model = tmp_path / "model.pt"
    _fixed_window_export(str(model))
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("0\n65\nprompt\n1\n1\n1\n1\n")
    proc = subprocess.run([GENERATE, "--model", str(model), "--vocab", str(vocab), "--chars", "3"],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout == b"\0\0\0\n", (proc.stdout, proc.stderr)
    vocab.write_text("0\n65\nprompt\n1\n1\n")
    proc = run([GENERATE, "--model", str(model), "--vocab", str(vocab), "--chars", "3"])
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("generate_text: the model rejects a window of 2 characters"), lines[0]
