"""``ember.multiprocessing.spawn`` and ``start_processes`` (PyTorch's names and arguments): run fn(i, *args) in
nprocs processes, wait for them, and turn the first failure into an exception in the parent that names the
process and carries the child's traceback."""
import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException", "ProcessContext",
           "SpawnContext", "spawn", "start_processes"]


class ProcessException(Exception):
    """A process started by ``spawn``/``start_processes`` failed: ``error_index`` is its i, ``pid`` its id."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """fn raised an exception in process ``error_index``; the message holds that process's traceback."""


class ProcessExitedException(ProcessException):
    """Process ``error_index`` ended with a non-zero ``exit_code`` without raising (``sys.exit(n)``), or was killed
    by a signal (``signal_name``, such as 'SIGKILL'; the exit code is then minus the signal number)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _run(fn, i, args, error_queue):
    # The body of every started process: fn's exception travels to the parent as its formatted traceback.
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping everything
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes of one ``start_processes`` call (``processes``), with ``pids()`` and ``join()``."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self._errors = [None] * len(processes)  # tracebacks read so far, by process index

    def pids(self):
        """The process ids, by index."""
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Waits up to timeout seconds (None: without limit) for the processes to end.

        Returns:
            True when every process has ended successfully; False when some are still running.

        Raises:
            ProcessRaisedException: fn raised in a process (the others are terminated first).
            ProcessExitedException: a process ended with a non-zero exit code or a signal.
        """
        while True:
            running = {p.sentinel: i for i, p in enumerate(self.processes) if p.exitcode is None}
            if not running:
                break
            # A traceback is read as soon as it is written, so that a child never blocks on a full pipe.
            readers = {q._reader: i for i, q in enumerate(self.error_queues) if self._errors[i] is None}
            ready = multiprocessing.connection.wait(list(running) + list(readers), timeout=timeout)
            if not ready:
                return False
            for handle in ready:
                if handle in readers:
                    self._errors[readers[handle]] = self.error_queues[readers[handle]].get()
            ended = [running[h] for h in ready if h in running]
            for i in ended:
                self.processes[i].join()
            if any(self.processes[i].exitcode != 0 for i in ended):
                break
            if ended and timeout is not None:
                return all(p.exitcode is not None for p in self.processes)
        failed = [i for i, p in enumerate(self.processes) if p.exitcode not in (None, 0)]
        if not failed:
            return True
        for p in self.processes:  # stop the others, as PyTorch does
            if p.is_alive():
                p.terminate()
            p.join()
        self._raise(failed[0])

    def _raise(self, i):
        process = self.processes[i]
        if self._errors[i] is None and not self.error_queues[i].empty():
            self._errors[i] = self.error_queues[i].get()
        if self._errors[i] is not None:
            msg = f"\n\n-- Process {i} terminated with the following error:\n{self._errors[i]}"
            raise ProcessRaisedException(msg, i, process.pid)
        if process.exitcode < 0:
            name = signal.Signals(-process.exitcode).name
            raise ProcessExitedException(f"process {i} terminated with signal {name}", i, process.pid,
                                         process.exitcode, name)
        raise ProcessExitedException(f"process {i} terminated with exit code {process.exitcode}", i, process.pid,
                                     process.exitcode)


class SpawnContext(ProcessContext):
    """The ProcessContext of ``spawn`` (PyTorch's older name, kept for programs that check for it)."""


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs ``fn(i, *args)`` for i in range(nprocs), each in a new process of the given start method ('spawn',
    'fork' or 'forkserver'; fn and args must pickle for the first and last).

    Returns:
        None once every process has ended successfully when join is True; else the ProcessContext to join.

    Raises:
        ProcessRaisedException, ProcessExitedException: see ``ProcessContext.join``.
        ValueError: a start method this platform lacks.
    """
    ctx = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = ctx.SimpleQueue()
        process = ctx.Process(target=_run, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs ``fn(i, *args)`` for i in range(nprocs) in new processes (see ``start_processes``); warns for a start
    method other than 'spawn', as PyTorch, which points to ``start_processes`` for those.

    Args:
        fn: a function at a module's top level (it is pickled), called as fn(i, *args).
        args (tuple): the arguments after i. Tensors among them share memory with the parent.
        nprocs (int): how many processes.
        join (bool): wait for them (True) or return a ProcessContext (False).
        daemon (bool): whether the processes are daemonic.
        start_method (str): 'spawn' (default), 'fork' or 'forkserver'.

    Returns:
        None when join, else a ProcessContext.

    Raises:
        ProcessRaisedException: fn raised in process i (its traceback is in the message).
        ProcessExitedException: a process exited with a non-zero code or was killed by a signal.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t ember.multiprocessing.start_processes(...)",
                      FutureWarning)
    return start_processes(fn, args, nprocs, join, daemon, start_method)
