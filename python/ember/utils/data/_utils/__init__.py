"""Helpers of ember.utils.data's loaders: fetching samples (fetch), collating them into batches (collate) and
the worker processes of a multi-process DataLoader (worker), plus the wrapper that carries an exception with
its traceback text from a worker to the main process.
"""
import atexit
import pickle
import sys
import traceback

# How often (seconds) a worker checks that its parent is alive, and the main process checks that its workers
# are, while waiting on a queue; only the speed of noticing a dead process depends on it.
STATUS_CHECK_INTERVAL = 1.0

# Set once the interpreter exits: loader iterators then leave their (daemon) workers to multiprocessing's own
# exit handler instead of shutting them down from a __del__ that may run with half-torn-down modules.
python_exiting = False


def _note_python_exit():
    global python_exiting
    python_exiting = True


atexit.register(_note_python_exit)


class ExceptionWrapper:
    """An exception caught in a worker process or thread, as something picklable: its type and the full
    traceback text (a traceback object itself cannot cross a process boundary).

    ``reraise()`` raises an exception of the same type in the current process whose message says where it was
    caught and carries the original traceback, as PyTorch's DataLoader does ("Caught ValueError in DataLoader
    worker process 1.\\nOriginal Traceback (most recent call last): ..."). A type that cannot be built from one
    message string, or that cannot be pickled (e.g. a class defined in a function), is raised as RuntimeError
    instead.
    """

    def __init__(self, exc_info=None, where="in background"):
        exc_type, exc_value, exc_tb = sys.exc_info() if exc_info is None else exc_info
        # Only the text is kept: holding the traceback would keep every frame of the worker alive.
        self.exc_type = exc_type
        self.exc_name = exc_type.__name__
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc_value, exc_tb))
        self.where = where
        try:
            pickle.dumps(exc_type)
        except Exception:  # e.g. a class defined in a function: raised as RuntimeError in the other process
            self.exc_type = RuntimeError

    def reraise(self):
        """Raises the wrapped exception (see the class doc)."""
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_name, self.where, self.exc_msg)
        if self.exc_type is KeyError:
            # KeyError shows repr() of its argument, which would print the traceback as one escaped line.
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """A str whose repr() is itself, so that a KeyError built from a multi-line message prints readably."""

    def __repr__(self):
        return self


from . import collate, fetch, worker  # noqa: E402,F401  (they use the names above)
