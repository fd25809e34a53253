"""Parsing and embedding in worker processes, for `index_paths(workers=N)`.

Workers never fork this process (torch and fork do not mix): they fork from a forkserver, a clean
process that imported torch and sentence-transformers once but never ran them (spawn where there
is no forkserver). Each worker re-creates the embedder once from its `EmbedderSpec` (a class and its arguments; the model loads lazily, on the
worker's first file) and then parses, chunks and embeds a small group of files per task (their
chunks in one model call); only the files' paths go in, their `Embedded` records (or `Skipped`
reasons) come out. Workers share the cores: torch gets cores // workers threads in each. At most
2 x workers tasks are in flight, and outcomes come back in file order, so the parent writes in
file order and its memory stays bounded.

A worker that dies (a parser library crashing on a file, the out-of-memory killer) takes the pool
down with every task in flight. Their files are run again one at a time in a fresh pool: the file
that kills a worker again is reported as skipped, the others are indexed. What the parent wrote
before is never touched. Left out: threads (the GIL), and machines other than this one (see the
README: shard the files, then `citewise merge`).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ingest import Skipped

from .embed import Embedder, EmbedderSpec
from .pipeline import FileTask, InProcess, Outcome

log = logging.getLogger(__name__)

WORKER_DIED = "the indexing worker process died on this file (a crash in a parser library, or out of memory)"


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_workers(workers: int) -> int:
    """`workers`, with 0 meaning one per available core."""
    if workers < 0:
        raise ValueError(f"workers must be 0 (one per core) or more, not {workers}")
    return workers or available_cores()


# -- in the worker process ----------------------------------------------------------------------
_embedder: Embedder | None = None
_start_error: Exception | None = None


def _start(spec: EmbedderSpec, threads: int) -> None:
    """Worker initializer: thread limits first (torch reads them when it loads), then the embedder."""
    global _embedder, _start_error
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    if threads == 1:
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    try:
        _embedder = spec.make()
    except Exception as exc:  # raised with the first task: an initializer error would look like a crash
        _start_error = exc


def _work(tasks: list[FileTask], chunk_size: int, chunk_overlap: int) -> list[Outcome]:
    """The outcomes of a group of files, their chunks embedded in one call (sorted by length there)."""
    if _embedder is None:
        raise _start_error or RuntimeError("the indexing worker has no embedder")
    stage = InProcess(_embedder, chunk_size, chunk_overlap, batch_chunks=sys.maxsize)
    for task in tasks:
        stage.put(task)
    return stage.finish()


# -- in the parent ------------------------------------------------------------------------------
def _context(spec: EmbedderSpec, method: str | None) -> multiprocessing.context.BaseContext:
    """forkserver where there is one: a clean server process imports the workers' modules once
    (`spec.preload`: torch and sentence-transformers take ~10 s of CPU to import) and forks each worker
    from that state, before torch has run anything; spawn elsewhere. Never plain fork: this process
    may have run torch already. The forkserver is one per process: its preload list is the first
    caller's."""
    method = method or ("forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload([__name__, *spec.preload])  # type: ignore[attr-defined]
    return ctx


class ProcessPool:
    """A `Stage` over `workers` processes (see the module docstring). Files go to the workers in
    groups of `files_per_task`: one model call per group wastes less on small batches and padding."""

    def __init__(self, spec: EmbedderSpec, workers: int, chunk_size: int, chunk_overlap: int,
                 threads: int | None = None, files_per_task: int = 1, start_method: str | None = None) -> None:
        if workers < 1 or files_per_task < 1:
            raise ValueError(f"a process pool needs workers >= 1 and files_per_task >= 1, not {workers}, {files_per_task}")
        self.spec = spec
        self.workers = workers
        self.threads = threads or max(1, available_cores() // workers)
        self.files_per_task = files_per_task
        self.limit = 2 * workers  # tasks (groups) in flight
        self._args = (chunk_size, chunk_overlap)
        self._context = _context(spec, start_method)
        self._pool: ProcessPoolExecutor | None = None
        self._group: list[FileTask] = []  # not submitted yet
        self._queue: deque[tuple[list[FileTask], Future[list[Outcome]]]] = deque()

    @property
    def in_flight(self) -> int:
        return len(self._group) + sum(len(tasks) for tasks, _ in self._queue)

    def put(self, task: FileTask) -> list[Outcome]:
        self._group.append(task)
        if len(self._group) < self.files_per_task:
            return []
        return self._send()

    def finish(self) -> list[Outcome]:
        out = self._send() if self._group else []
        while self._queue:
            out += self._next()
        return out

    def close(self) -> None:
        self._group = []
        self._queue.clear()
        self._close_pool()

    def _send(self) -> list[Outcome]:
        group, self._group = self._group, []
        out: list[Outcome] = []
        try:
            future = self._submit(group)
        except BrokenProcessPool:  # a worker died since the last call
            out += self._recover()
            future = self._submit(group)
        self._queue.append((group, future))
        while self._queue and (len(self._queue) > self.limit or self._queue[0][1].done()):
            out += self._next()
        return out

    def _submit(self, tasks: list[FileTask]) -> Future[list[Outcome]]:
        if self._pool is None:
            log.info("starting %d indexing workers, %d torch thread(s) each", self.workers, self.threads)
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=self._context, initializer=_start, initargs=(self.spec, self.threads),
            )
        return self._pool.submit(_work, tasks, *self._args)

    def _next(self) -> list[Outcome]:
        try:
            outcomes = self._queue[0][1].result()
        except BrokenProcessPool:
            return self._recover()
        self._queue.popleft()
        return outcomes

    def _recover(self) -> list[Outcome]:
        """The outcomes of every group in flight, in order, after a worker died: finished groups as
        they are, the files of the others run again one at a time in a fresh pool."""
        log.warning("an indexing worker died; re-running the %d files in flight one at a time",
                    sum(len(tasks) for tasks, _ in self._queue))
        self._close_pool()
        queue, self._queue = list(self._queue), deque()
        out: list[Outcome] = []
        for tasks, future in queue:
            if future.done() and not future.cancelled() and not isinstance(future.exception(), BrokenProcessPool):
                out += future.result()  # finished before the crash (or raised a real error: re-raised)
                continue
            for task in tasks:
                try:
                    out += self._submit([task]).result()
                except BrokenProcessPool:
                    log.warning("%s: %s", task.path, WORKER_DIED)
                    out.append(Skipped(task.path, WORKER_DIED))
                    self._close_pool()
        return out

    def _close_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
