"""The op profiler (PyTorch 1.13's torch.autograd.profiler): which ops a block of code called, how often, and the
CPU time each took, with and without the ops and ranges nested in it.

    with ember.autograd.profiler.profile() as prof:
        with ember.autograd.profiler.record_function("forward"):
            y = model(x)
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

Recorded are the op calls made from Python (``ember.mm``, ``x.relu()``, ``a + b``, also those inside nn modules
and functional code) under their qualified names (``aten::mm``), and the ``record_function`` ranges; see Note [op
profiler] in python/csrc/profiler.h. Ops a C++ kernel runs inside another op, and backward's ops run by the
autograd engine, are not seen (PyTorch's profiler lists those as well). Times are in microseconds.
"""
import builtins
import functools
import json
from collections import OrderedDict

from .. import _C

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]


def _format_time(us):
    """'796.000us', '1.521ms' or '2.000s', as PyTorch's tables."""
    if us >= 1e6:
        return "{:.3f}s".format(us / 1e6)
    if us >= 1e3:
        return "{:.3f}ms".format(us / 1e3)
    return "{:.3f}us".format(us)


def _format_share(us, total_us):
    return "NaN" if total_us == 0 else "{:.2f}%".format(us * 100.0 / total_us)


class _TimeStrings:
    """The *_str properties of the events (formatted times)."""

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)


class Interval:
    """An event's [start, end) in microseconds since the profiler started."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEvent(_TimeStrings):
    """One recorded op call or record_function range: its name, time range, thread, parent and children."""

    def __init__(self, id, name, thread, start_us, end_us, depth):
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.depth = depth
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = []
        self.stack = []
        self.count = 1
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        """Microseconds from start to end, children included."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """Microseconds spent in this event but in none of its children."""
        return self.cpu_time_total - builtins.sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return "<FunctionEvent id={} name={} cpu_time={} start_us={} end_us={} cpu_children={} thread={}>".format(
            self.id, self.name, self.cpu_time_str, self.time_range.start, self.time_range.end,
            [c.id for c in self.cpu_children], self.thread)


class FunctionEventAvg(_TimeStrings):
    """The events of one name added up: count, total and self times, average time per call."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False
        self.cpu_parent = None

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        if self.input_shapes is None:
            self.input_shapes = event.input_shapes
        return self

    @property
    def cpu_time(self):
        """Average microseconds per call."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self):
        return "<FunctionEventAvg key={} self_cpu_time={} cpu_time={} input_shapes={}>".format(
            self.key, self.self_cpu_time_total_str, self.cpu_time_str, self.input_shapes)


_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count")


class EventList(list):
    """A list of events (FunctionEvent or FunctionEventAvg) that prints as a table."""

    def __init__(self, *args, **kwargs):
        kwargs.pop("use_cuda", None)
        kwargs.pop("profile_memory", None)
        kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        return builtins.sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        """One FunctionEventAvg per name (per name and input shapes with group_by_input_shapes), in order of
        first appearance."""
        groups = OrderedDict()
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shapes else e.key
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key)
            groups[key].add(e)
        return EventList(groups.values())

    def total_average(self):
        """All events added up into one FunctionEventAvg (key 'Total')."""
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        r"""The events as a text table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg and
        # of Calls, then the total self CPU time; the layout of PyTorch's tables.

        Args:
            sort_by (str): an attribute to sort by, largest first: 'cpu_time_total', 'self_cpu_time_total',
                'cpu_time' or 'count' (CUDA and memory keys sort by zeros). Default: the recorded order.
            row_limit (int): the most rows shown.
            header (str): a line printed above the table.
            top_level_events_only (bool): only the events without a parent.

        Raises:
            AttributeError: an unknown sort_by.
        """
        return _build_table(self, sort_by, row_limit, max_name_column_width, header, top_level_events_only)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Writes the events in Chrome's trace format (chrome://tracing, Perfetto)."""
        events = [{"name": e.name, "ph": "X", "ts": e.time_range.start, "dur": e.cpu_time_total, "tid": e.thread,
                   "pid": "CPU functions", "args": {}} for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)


def _sort_value(event, sort_by):
    if sort_by in _SORT_KEYS:
        return getattr(event, sort_by)
    if "cuda" in sort_by or "memory" in sort_by or "flops" in sort_by:
        return 0  # Ember has no CUDA; memory and FLOPs are not recorded
    return getattr(event, sort_by)


def _build_table(events, sort_by, row_limit, max_name_column_width, header, top_level_events_only):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: _sort_value(e, sort_by), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * (len(headers) - 1)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    separator = "".join("-" * w + "  " for w in widths)
    line_length = builtins.sum(w + 2 for w in widths) - 2
    total_self = builtins.sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        lines.append(row_format.format(name, _format_share(e.self_cpu_time_total, total_self),
                                       e.self_cpu_time_total_str, _format_share(e.cpu_time_total, total_self),
                                       e.cpu_time_total_str, e.cpu_time_str, e.count))
    lines += [separator, "Self CPU time total: {}".format(_format_time(total_self))]
    return "\n".join(lines) + "\n"


def _events_from_records(records):
    """FunctionEvents from the C++ records (name, start_ns, end_ns, thread, depth), ordered by start, with
    parents and children linked per thread by nesting depth."""
    if not records:
        return EventList()
    origin = min(r[1] for r in records)
    ordered = sorted(records, key=lambda r: (r[3], r[1], r[4]))
    threads = {}
    events = []
    for i, (name, start, end, thread, depth) in enumerate(ordered):
        e = FunctionEvent(i, name, threads.setdefault(thread, len(threads)), (start - origin) / 1e3,
                          (end - origin) / 1e3, depth)
        events.append(e)
    stacks = {}
    for e in events:
        stack = stacks.setdefault(e.thread, [])
        while stack and stack[-1].depth >= e.depth:
            stack.pop()
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
    for i, e in enumerate(events):
        e.id = i
    return EventList(events)


class profile:
    r"""A context that records the op calls and record_function ranges run inside it (Note [op profiler]).

    Args:
        enabled (bool): False makes the context do nothing. Default: True.
        use_cuda, record_shapes, with_flops, profile_memory, with_stack, with_modules, use_kineto, use_cpu,
            experimental_config: accepted for PyTorch's API; Ember records CPU times only (no shapes, memory,
            FLOPs or stacks).

    After the block: ``function_events`` (an EventList, by start time), ``key_averages()``, ``table(...)``,
    ``total_average()``, ``self_cpu_time_total``, ``export_chrome_trace(path)``.

    Raises:
        RuntimeError: profiles nested in one another; results asked for before the block ended.
    """

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False, profile_memory=False,
                 with_stack=False, with_modules=False, use_kineto=True, use_cpu=True, experimental_config=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False
        self.function_events = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _C._profiler_enabled():
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        _C._profiler_enable()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self.function_events = _events_from_records(_C._profiler_disable())
        return False

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        """The table of every event (see EventList.table)."""
        self._check_finish()
        return self.function_events.table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                          max_shapes_column_width, header, top_level_events_only)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The events added up per name (see EventList.key_averages)."""
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The microseconds of all events, each counted without its children."""
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)


class record_function:
    r"""A named range in the profile: the ops inside it become its children, and it appears in the tables as
    one event of that name. A context manager and a decorator; without an active profiler it costs little.

    Args:
        name (str): the range's name.
        args (str): accepted for PyTorch's API (shown nowhere).
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._open = False

    def __enter__(self):
        if _C._profiler_enabled():
            _C._profiler_range_push(self.name)
            self._open = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._open:
            self._open = False
            _C._profiler_range_pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper
