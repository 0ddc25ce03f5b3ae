"""Futures, as PyTorch 1.13's ``torch.futures``: the result of an asynchronous call (``ember.jit.fork``).

Ember runs a forked call at once, in the calling thread (as PyTorch does outside TorchScript), so the futures it
returns are already complete; a ``Future()`` made by user code completes when ``set_result`` or
``set_exception`` is called, from any thread.
"""
import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A value that becomes available later (``torch.futures.Future``).

    ``wait()`` blocks until it is set and returns it (or raises the exception set with ``set_exception``);
    ``value()`` returns it without waiting (RuntimeError while pending); ``then(fn)`` returns a new future of
    ``fn(self)``, run when this one completes; ``add_done_callback(fn)`` runs ``fn(self)`` on completion.
    Setting a result twice raises RuntimeError.
    """

    def __init__(self, *, devices=None):
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._value = None
        self._exception = None
        self._callbacks = []

    def done(self):
        """True once a result or an exception is set."""
        return self._done.is_set()

    def wait(self):
        """Blocks until the future completes; returns its value or raises its exception."""
        self._done.wait()
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        """The value of a completed future (its exception is raised); RuntimeError while it is pending."""
        if not self.done():
            raise RuntimeError("Future.value(): the future is not completed yet; call wait() to block until it is")
        return self.wait()

    def _complete(self, value, exception):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future "
                                   "can only be marked completed once.")
            self._value, self._exception = value, exception
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def set_result(self, result):
        """Completes the future with ``result`` and runs its callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """Completes the future with an exception, which ``wait()`` raises."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(None, result)

    def add_done_callback(self, callback):
        """Runs ``callback(self)`` when the future completes (at once when it already has)."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new future holding ``callback(self)``, computed when this one completes; an exception raised by the
        callback becomes the new future's, wrapped in RuntimeError as PyTorch's."""
        result = Future()

        def run(fut):
            try:
                value = callback(fut)
            except Exception as e:  # noqa: BLE001 - the callback's error belongs to the new future
                error = RuntimeError(f"Got the following error when running the callback: {type(e).__name__}: {e}")
                error.__cause__ = e
                result.set_exception(error)
            else:
                result.set_result(value)

        self.add_done_callback(run)
        return result

    def __repr__(self):
        return f"<ember.futures.Future {'done' if self.done() else 'pending'}>"


def collect_all(futures):
    """A future completed when every future of the list is, holding the list of those futures."""
    combined = Future()
    futures = list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        combined.set_result([])
        return combined

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            combined.set_result(futures)

    for fut in futures:
        fut.add_done_callback(one_done)
    return combined


def wait_all(futures):
    """Waits for every future and returns their values in order (the first exception met is raised)."""
    return [fut.wait() for fut in futures]
