#!/usr/bin/python3
"""Ember's second main job: a character-level language model trained on the King James Bible.

    PYTHONPATH=python /usr/bin/python3 examples/language_model/train.py [--model lstm|transformer]
        [--framework ember|torch] [--epochs 1] [--threads 2] [--text PATH] [--limit-chars N] [--seq-len 64]
        [--batch-size 32] [--lr 3e-3] [--max-steps N] [--out out/language_model] [--seed 0] [--no-progress]
        [--no-export] [--sample-chars 300] [--temperature 0.8]
    PYTHONPATH=python /usr/bin/python3 examples/language_model/train.py --eval-state-dict PATH
        [--model lstm|transformer] [--framework ember|torch] [--threads 2] [--text PATH] [--limit-chars N]
        [--seq-len 64] [--batch-size 32]

The same code runs on Ember and on PyTorch 1.13: with --framework ember (the default) the script does
`import ember as torch`, with --framework torch it imports PyTorch itself, and everything after that is written
against the name `torch`.

Data: the King James Bible as Debian's `bible-kjv` package prints it (`bible -f gen1:1-rev22:21`, 31,102 verses,
4.4 MB, public domain), with each verse's reference ("Ge1:1 ") removed; or any UTF-8 text file with --text. The
last tenth of the text is held out: the perplexity on it is reported after every epoch. The vocabulary is the set
of characters of the whole text.

Models (--model):
- `lstm`: embedding (64) -> 2-layer LSTM (256, dropout 0.2 between layers) -> linear head; trained with truncated
  back-propagation through time (the state carries over between consecutive windows, detached);
- `transformer`: embedding (128) + learned positions -> 2 pre-norm TransformerEncoderLayers (4 heads, causal
  mask) -> LayerNorm -> linear head; every window is independent.
Both are trained with AdamW and gradient clipping (norm 1) on windows of --seq-len characters in batches of
--batch-size consecutive streams (the text cut into --batch-size equal parts, as PyTorch's word_language_model
example batches its corpus).

Output (in --out, file names carry the framework and the model): the state dict (`lm_<framework>_<model>.pt`), a
PNG plot of the training loss and of the held-out perplexity per epoch, text sampled from the trained model
(`sample_<framework>_<model>.txt`, also printed), and the export: the model traced with `torch.jit.trace` as a
next-character predictor on a window of exactly --seq-len characters (input (1, seq_len) int64 character ids,
output (1, vocabulary) logits of the next character) saved with `torch.jit.save` (`lm_<framework>_<model>_jit.pt`),
and `vocab_<framework>_<model>.txt`, the vocabulary's Unicode code points, one per line, in id order, followed by a
line `prompt` and the ids of a --seq-len prompt taken from the held-out text. examples/cpp/generate_text.cpp loads
these two files with no Python present and generates text.

The same training in C++: examples/cpp/train_language_model.cpp trains the `lstm` model with Ember's C++ frontend
(ember::nn::LSTM), the same text, vocabulary, streams, windows, initial weights (same --seed) and optimiser, prints
the first step's loss (this script prints it too: the two agree) and saves the state dict (`lm_cpp_lstm.pt`).
`--eval-state-dict PATH` loads such a state dict (an ember.save archive, from C++ or Python, or a torch.save file)
into this script's model and prints its held-out perplexity, without training, on either framework (on PyTorch the
file is read with ember.load and its tensors handed over through NumPy); give it the --text, --limit-chars,
--seq-len and --batch-size of the training run, which decide the vocabulary and the held-out streams.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np

BIBLE_RANGE = "gen1:1-rev22:21"  # every verse, Genesis 1:1 to Revelation 22:21


# ---------------------------------------------------------------------------------------------- data
def load_text(path=None):
    """The training text: the file at `path` (UTF-8), or the King James Bible from Debian's bible-kjv (the `bible`
    program), one verse per line with the references removed. Raises FileNotFoundError with the package to
    install when neither is available."""
    if path is not None:
        with open(path, encoding="utf-8") as f:
            return f.read()
    program = shutil.which("bible")
    if program is None:
        raise FileNotFoundError("the `bible` program is missing: install Debian's bible-kjv and bible-kjv-text "
                                "(apt-get install bible-kjv bible-kjv-text) or give a text file with --text")
    printed = subprocess.run([program, "-f", BIBLE_RANGE], check=True, capture_output=True, text=True).stdout
    # Each verse is one line "Ge1:1 In the beginning ..."; the reference is everything up to the first space.
    return "".join(line.split(" ", 1)[1] + "\n" for line in printed.splitlines() if " " in line)


class Corpus:
    """A text as character ids: `vocab` (sorted characters), `train` and `valid` (int64 NumPy arrays; `valid` is
    the last `valid_fraction` of the text)."""

    def __init__(self, text, valid_fraction=0.1):
        if len(text) < 100:
            raise ValueError(f"the text has {len(text)} characters; at least 100 are needed")
        self.vocab = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.vocab)}
        ids = np.array([self.index[c] for c in text], dtype=np.int64)
        split = int(len(ids) * (1 - valid_fraction))
        self.train, self.valid = ids[:split], ids[split:]

    def encode(self, text):
        return [self.index[c] for c in text]

    def decode(self, ids):
        return "".join(self.vocab[i] for i in ids)


def batchify(torch, ids, batch_size):
    """The ids cut into `batch_size` equal consecutive streams: a (batch_size, n) int64 tensor (the remainder is
    dropped)."""
    n = len(ids) // batch_size
    if n < 2:
        raise ValueError(f"{len(ids)} characters are too few for {batch_size} streams")
    return torch.from_numpy(ids[: n * batch_size].reshape(batch_size, n).copy())


def windows(data, seq_len):
    """(input, target) windows of at most seq_len steps along dim 1 of `data`; target is input shifted by one."""
    for start in range(0, data.size(1) - 1, seq_len):
        length = min(seq_len, data.size(1) - 1 - start)
        yield data[:, start:start + length], data[:, start + 1:start + 1 + length]


# ---------------------------------------------------------------------------------------------- models
def build_model(torch, kind, vocab_size, seq_len):
    """The --model network for the framework `torch`: forward(x (B, T) int64, state=None) -> (logits (B, T, V),
    state) where state is the LSTM's (h, c) or None."""
    nn = torch.nn

    class CharLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, 64)
            self.rnn = nn.LSTM(64, 256, num_layers=2, dropout=0.2, batch_first=True)
            self.head = nn.Linear(256, vocab_size)

        def forward(self, x, state=None):
            out, state = self.rnn(self.embedding(x), state)
            return self.head(out), state

    class CharTransformer(nn.Module):
        def __init__(self, d_model=128):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, d_model)
            self.position = nn.Parameter(torch.randn(seq_len, d_model) * 0.02)
            layer = nn.TransformerEncoderLayer(d_model, 4, dim_feedforward=4 * d_model, dropout=0.1,
                                               batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2)
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab_size)

        def forward(self, x, state=None):
            length = x.size(1)
            mask = nn.Transformer.generate_square_subsequent_mask(length)
            h = self.encoder(self.embedding(x) + self.position[:length], mask=mask)
            return self.head(self.norm(h)), None

    if kind == "lstm":
        return CharLSTM()
    if kind == "transformer":
        return CharTransformer()
    raise ValueError(f"unknown model {kind!r}: expected 'lstm' or 'transformer'")


def detach_state(state):
    return None if state is None else tuple(s.detach() for s in state)


# ---------------------------------------------------------------------------------------------- training
def evaluate(torch, model, data, seq_len):
    """The mean cross-entropy (nats per character) of the model on the (B, n) stream tensor `data`."""
    model.eval()
    total, count, state = 0.0, 0, None
    with torch.no_grad():
        for x, y in windows(data, seq_len):
            logits, state = model(x, state)
            total += torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1),
                                                       reduction="sum").item()
            count += y.numel()
    return total / max(count, 1)


def train_epoch(torch, model, optimizer, data, seq_len, progress, max_steps=None):
    """One pass over the training streams (its first max_steps windows when given); returns the loss of every
    step."""
    model.train()
    losses, state = [], None
    steps = list(windows(data, seq_len))[:max_steps]
    bar = progress(steps) if progress else steps
    for x, y in bar:
        logits, state = model(x, detach_state(state))
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if progress:
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
    return losses


def sample(torch, model, corpus, prompt, length, temperature, seq_len, generator):
    """`length` characters drawn from the model after `prompt`, at the given softmax temperature, the model
    seeing at most the last seq_len characters."""
    model.eval()
    ids = corpus.encode(prompt)
    with torch.no_grad():
        for _ in range(length):
            context = torch.tensor([ids[-seq_len:]], dtype=torch.int64)
            logits, _ = model(context)
            probs = torch.softmax(logits[0, -1] / temperature, dim=0)
            ids.append(int(torch.multinomial(probs, 1, generator=generator).item()))
    return corpus.decode(ids[len(prompt):])


class NextCharacter:
    """The export's interface: logits (1, V) of the character after a window x (1, seq_len) of ids."""

    def __init__(self, torch, model):
        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, x):
                return self.model(x)[0][:, -1]

        self.module = Wrapper().eval()


def load_state_dict_file(torch, path):
    """The state dict in the file at `path` (ember.save in Python, ember::save in C++, or torch.save: ember.load
    reads all three), as a dict of the framework's tensors: Ember's as loaded, PyTorch's converted through NumPy."""
    import ember
    state = ember.load(path)
    if not isinstance(state, dict):
        raise ValueError(f"{path} holds a {type(state).__name__}, not a state dict")
    for name, value in state.items():
        if not isinstance(value, ember.Tensor):
            raise ValueError(f"{path}: entry {name!r} is a {type(value).__name__}, not a tensor")
    if torch is ember:
        return state

    def to_torch(value):
        if value.dtype == ember.bfloat16:  # NumPy has no bfloat16: hand it over as float32
            return torch.from_numpy(value.float().numpy().copy()).to(torch.bfloat16)
        return torch.from_numpy(value.numpy().copy())
    return {name: to_torch(value) for name, value in state.items()}


def evaluate_state_dict(torch, args, corpus, valid_data):
    """--eval-state-dict: the held-out perplexity of the --model network with the state dict in
    args.eval_state_dict, on the held-out streams of the text. Exits with one line when the file holds no state
    dict of that model (another model, another vocabulary, not an archive)."""
    import pickle
    model = build_model(torch, args.model, len(corpus.vocab), args.seq_len)
    try:
        state = load_state_dict_file(torch, args.eval_state_dict)
        rows = state["embedding.weight"].shape[0] if "embedding.weight" in state else len(corpus.vocab)
        if rows != len(corpus.vocab):
            raise ValueError(f"the state dict's vocabulary has {rows} characters, this text's {len(corpus.vocab)}: "
                             "give the --text and --limit-chars of the training run")
        model.load_state_dict(state)
    except (RuntimeError, ValueError, TypeError, OSError, pickle.UnpicklingError) as error:
        message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
        sys.exit(f"train.py: --eval-state-dict {args.eval_state_dict}: {message[:400]}")
    cross_entropy = evaluate(torch, model, valid_data, args.seq_len)
    perplexity = math.exp(cross_entropy)
    print(f"{args.eval_state_dict}: held-out perplexity {perplexity:.6f} ({cross_entropy:.8f} nats per character) on "
          f"{valid_data.size(0)} streams of {valid_data.size(1):,} characters ({args.framework} {torch.__version__}, "
          f"{args.threads} threads)")
    return perplexity


def plot(path, losses, perplexities, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(losses)
    left.set_xlabel("step")
    left.set_ylabel("training loss (nats/char)")
    right.plot(range(1, len(perplexities) + 1), perplexities, marker="o")
    right.set_xlabel("epoch")
    right.set_ylabel("held-out perplexity")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("lstm", "transformer"), default="lstm")
    parser.add_argument("--framework", choices=("ember", "torch"), default="ember")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--text", help="a UTF-8 text file instead of the King James Bible")
    parser.add_argument("--limit-chars", type=int, help="use only the first N characters of the text")
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--max-steps", type=int, help="train on at most N windows per epoch (short runs)")
    parser.add_argument("--out", default="out/language_model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--no-export", action="store_true")
    parser.add_argument("--sample-chars", type=int, default=300)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--eval-state-dict", metavar="PATH",
                        help="do not train: load this state dict (e.g. the one examples/cpp/train_language_model "
                             "writes) into the --model network and print its held-out perplexity")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.seq_len < 2 or args.batch_size < 1 or args.temperature <= 0 or \
            (args.max_steps is not None and args.max_steps < 1):
        parser.error("--epochs, --batch-size and --max-steps must be >= 1, --seq-len >= 2 and --temperature > 0")
    if not math.isfinite(args.temperature):
        parser.error(f"--temperature must be a finite number > 0, not {args.temperature}")
    if not (math.isfinite(args.lr) and args.lr > 0):
        parser.error(f"--lr must be a finite number > 0, not {args.lr}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, not {args.threads}")
    if not 0 <= args.seed < 2 ** 64:
        parser.error(f"--seed must be in [0, 2**64), not {args.seed}")
    if args.limit_chars is not None and args.limit_chars < 0:
        parser.error(f"--limit-chars must be >= 0 (0: the whole text), not {args.limit_chars}")
    if not args.eval_state_dict:
        # The output folder is checked before training, not after it.
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            parser.error(f"--out {args.out}: cannot create the folder ({e.strerror or e})")
        if not os.access(args.out, os.W_OK):
            parser.error(f"--out {args.out}: the folder is not writable")

    if args.framework == "torch":
        import torch
    else:
        import ember as torch
    if args.eval_state_dict and not os.path.isfile(args.eval_state_dict):
        # One line, not a traceback: the usual mistake is a wrong path.
        sys.exit(f"train.py: --eval-state-dict {args.eval_state_dict}: no such file (write one with "
                 "examples/cpp/train_language_model, or train with this script)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    try:
        text = load_text(args.text)
        if args.limit_chars:
            text = text[: args.limit_chars]
        corpus = Corpus(text)
        train_data = batchify(torch, corpus.train, args.batch_size)
        valid_data = batchify(torch, corpus.valid,
                              min(args.batch_size, max(1, len(corpus.valid) // (2 * args.seq_len))))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:  # a missing or too short text: one line
        parser.error(str(e))
    if args.eval_state_dict:
        return [evaluate_state_dict(torch, args, corpus, valid_data)]
    steps = -(-(train_data.size(1) - 1) // args.seq_len)
    steps = min(steps, args.max_steps) if args.max_steps else steps
    print(f"{args.framework}: {len(text):,} characters, vocabulary {len(corpus.vocab)}, "
          f"{steps} steps per epoch of {args.batch_size} x {args.seq_len}")

    model = build_model(torch, args.model, len(corpus.vocab), args.seq_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    progress = None
    if not args.no_progress:
        from tqdm import tqdm
        progress = lambda steps: tqdm(steps, leave=False, desc="train", file=sys.stdout)  # noqa: E731

    losses, perplexities = [], []
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        losses += train_epoch(torch, model, optimizer, train_data, args.seq_len, progress, args.max_steps)
        seconds = time.perf_counter() - start
        if epoch == 1:
            print(f"first step loss {losses[0]:.8f}")  # examples/cpp/train_language_model prints the same
        perplexities.append(math.exp(evaluate(torch, model, valid_data, args.seq_len)))
        print(f"epoch {epoch}: training loss {losses[-1]:.3f}, held-out perplexity {perplexities[-1]:.2f}, "
              f"{seconds:.1f} s")

    os.makedirs(args.out, exist_ok=True)
    stem = f"{args.framework}_{args.model}"
    torch.save(model.state_dict(), os.path.join(args.out, f"lm_{stem}.pt"))
    plot(os.path.join(args.out, f"training_{stem}.png"), losses, perplexities,
         f"{args.model} on {args.framework}")
    prompt_ids = corpus.valid[: args.seq_len].tolist()
    generator = torch.Generator().manual_seed(args.seed)
    text_out = sample(torch, model, corpus, corpus.decode(prompt_ids), args.sample_chars, args.temperature,
                      args.seq_len, generator)
    with open(os.path.join(args.out, f"sample_{stem}.txt"), "w", encoding="utf-8") as f:
        f.write(text_out)
    print(f"sample after {corpus.decode(prompt_ids)!r}:\n{text_out}")

    if not args.no_export:
        export = NextCharacter(torch, model).module
        traced = torch.jit.trace(export, torch.tensor([prompt_ids], dtype=torch.int64))
        model_path = os.path.join(args.out, f"lm_{stem}_jit.pt")
        torch.jit.save(traced, model_path)
        with open(os.path.join(args.out, f"vocab_{stem}.txt"), "w", encoding="ascii") as f:
            f.write("".join(f"{ord(c)}\n" for c in corpus.vocab))
            f.write("prompt\n" + "".join(f"{i}\n" for i in prompt_ids))
        print(f"exported {model_path}")
    return perplexities


if __name__ == "__main__":
    main()
