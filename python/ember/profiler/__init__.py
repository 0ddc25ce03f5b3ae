"""ember.profiler: PyTorch's newer profiler API (torch.profiler) over Ember's op profiler
(ember.autograd.profiler, Note [op profiler]): ``profile`` with ``activities``, a ``schedule`` of steps and an
``on_trace_ready`` callback, ``record_function`` and ``ProfilerActivity``. Only CPU activity exists.

    with ember.profiler.profile(activities=[ProfilerActivity.CPU]) as prof:
        model(x)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""
import warnings
from enum import Enum

from .. import _C
from ..autograd.profiler import EventList, _events_from_records, record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule"]


class ProfilerActivity(Enum):
    """What is profiled: CPU (op calls). CUDA is accepted and records nothing (Ember has no GPU)."""

    CPU = 0
    CUDA = 1


class ProfilerAction(Enum):
    """What a schedule asks for at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    r"""A step -> ProfilerAction function: after skip_first steps, cycles of wait idle steps, warmup steps and
    active recorded steps (the last one RECORD_AND_SAVE, when on_trace_ready runs), repeat times (0: forever).
    Warns when warmup is 0, as PyTorch. Raises AssertionError for negative counts or active below 1."""
    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, \
        "Invalid profiler schedule arguments"
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    cycle = wait + warmup + active

    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < wait:
            return ProfilerAction.NONE
        if k < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _record_always(step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    r"""Records op calls over a block, or over the steps a schedule selects (``prof.step()`` after each one).

    Args:
        activities: ProfilerActivity values (CPU is the only one Ember records).
        schedule: a function from the step number to a ProfilerAction (see ``schedule``); default: record
            every step.
        on_trace_ready: called with the profiler when a recorded cycle ends (RECORD_AND_SAVE, or ``stop()``).
        record_shapes, profile_memory, with_stack, with_flops, with_modules, experimental_config, use_cuda:
            accepted for PyTorch's API (not recorded).

    Raises:
        RuntimeError: another profiler is recording.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        self.schedule = schedule if schedule is not None else _record_always
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recording = False
        self._events = None

    def _start_recording(self):
        if ProfilerActivity.CPU in self.activities and not self._recording:
            _C._profiler_enable()
            self._recording = True

    def _stop_recording(self, save):
        if self._recording:
            self._events = _events_from_records(_C._profiler_disable())
            self._recording = False
            if save and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def start(self):
        """Starts profiling (at step 0 of the schedule)."""
        if self.current_action in _RECORDING:
            self._start_recording()

    def stop(self):
        """Stops profiling; a cycle being recorded is handed to on_trace_ready."""
        self._stop_recording(save=True)

    def step(self):
        """Marks the end of a step: the schedule decides whether the next one is recorded."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous in _RECORDING and (previous is ProfilerAction.RECORD_AND_SAVE
                                       or self.current_action not in _RECORDING):
            self._stop_recording(save=True)
        if self.current_action in _RECORDING:
            self._start_recording()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def events(self):
        """The events of the last recorded cycle (an EventList)."""
        return self._events if self._events is not None else EventList()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The last cycle's events added up per name (see ember.autograd.profiler.EventList.key_averages)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        """Writes the last cycle's events in Chrome's trace format."""
        return self.events().export_chrome_trace(path)
