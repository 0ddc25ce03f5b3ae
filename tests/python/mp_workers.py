"""The functions that test_multiprocessing.py runs in child processes. They live apart from the tests so that a
'spawn' child imports only this module and ember (not PyTorch, which the tests import), which keeps it fast."""
import sys

import ember


def write_rows(t, value):
    t[:, 0] = value  # t is a transposed view: column 0 of it is row 0 of its storage


def receive_and_write(inbox, outbox, done):
    t = inbox.get()
    t.add_(1)
    outbox.put(t)  # back to the parent, still the same memory
    done.wait(60)


def echo_parameter(inbox, outbox):
    p = inbox.get()
    outbox.put((type(p).__name__, p.requires_grad, p.is_leaf, p.grad is None, p.tolist()))


def sgd_step(rank, model, data, lock, barrier):
    ember.manual_seed(rank)
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    x, y = data[rank]
    loss = ember.nn.functional.mse_loss(model(x), y)
    loss.backward()  # against the initial parameters: both workers compute before either steps
    barrier.wait()
    with lock:
        optimizer.step()


def fill(i, t):
    t[i] = i + 1


def fail(i, t):
    if i == 1:
        raise ValueError("worker one fails")
    t[i] = 1


def exit_with_code(i):
    sys.exit(3 if i == 0 else 0)
