"""Grad-mode context managers and decorators (PyTorch's torch.no_grad, enable_grad, set_grad_enabled,
inference_mode). Each is a context manager; an instance is also a decorator (``@ember.no_grad()``)."""
import functools
import inspect

from .. import _C


class _DecoratorContextManager:
    """A context manager whose instances also decorate functions (and generator functions): the function
    runs inside a fresh copy of the context manager."""

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args, **kwargs):
                gen = fn(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        try:
                            with self.clone():
                                response = gen.send(request)
                        except StopIteration as e:
                            return e.value
            return generator

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(*self._args())

    def _args(self):
        return ()


class no_grad(_DecoratorContextManager):
    """Disables gradient recording in its scope (context manager or decorator)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False


class enable_grad(_DecoratorContextManager):
    """Enables gradient recording in its scope (context manager or decorator). Inside inference_mode it
    turns grad mode on, but nothing is recorded (as PyTorch)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Sets gradient recording on or off: immediately when called, and back on exit when used as a context
    manager (or around a function when used as a decorator)."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def _args(self):
        return (self.mode,)

    def __call__(self, fn):
        _C._set_grad_enabled(self.prev)
        return super().__call__(fn)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False


class inference_mode(_DecoratorContextManager):
    """Inference mode (PyTorch's torch.inference_mode): grad mode off, and tensors created in its scope are
    inference tensors (``t.is_inference()``), which cannot be saved for backward or updated in place outside
    inference mode (RuntimeError). ``mode=False`` makes it a no-op scope that turns inference mode off.
    Context manager or decorator (``@ember.inference_mode()``).

    Args:
        mode (bool): whether to enable inference mode. Default: True.
    """

    def __init__(self, mode=True):
        self.mode = mode
        self._guard = None

    def _args(self):
        return (self.mode,)

    def __enter__(self):
        self._guard = _C._InferenceMode(bool(self.mode))

    def __exit__(self, *exc):
        self._guard.close()
        self._guard = None
        return False
