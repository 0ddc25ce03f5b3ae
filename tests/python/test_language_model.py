"""The second main job (issue 20): examples/language_model/train.py trains a character-level LSTM or Transformer
on the King James Bible (Debian's bible-kjv), exports it with ember.jit, and examples/cpp/generate_text samples
from the export with no Python.

Short runs on a prefix of the real text: the model must learn something (held-out perplexity well below the
vocabulary's size, which a uniform guess scores), the export must compute the Python model's logits, the C++
program must sample exactly the text the Python script sampled from the same seed, and the first training step
must see the loss PyTorch sees (same seed: same initial weights and data). Skipped when bible-kjv is not
installed, or for the C++ part when the program is not built.
"""
import importlib.util
import math
import os
import shutil
import subprocess
import sys

import pytest

import ember

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "language_model", "train.py")
BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
GENERATE = os.path.join(BUILD, "examples", "cpp", "generate_text")
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
