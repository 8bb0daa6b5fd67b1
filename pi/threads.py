"""How many threads the vision's libraries run: the BLAS under NumPy, and OpenCV.

The observers make many small matrix products (a few thousand rows by a few dozen columns at
most). OpenBLAS hands each to its worker threads, which then spin waiting for the next: on the
2-core build machine the Blockade still path took the same wall time with one BLAS thread as
with two (38 ms at 640x480) but twice the CPU time (80 ms against 40), a core spent for nothing
that on a Raspberry Pi the camera, the LEDs and the dashboard need. Entry points that read frames
(`blockref run`, `replay` and `demo`; the benchmarks) call `limit_threads` once, before the first.
"""

from __future__ import annotations

import numpy  # noqa: F401  (the BLAS is found among the loaded libraries: load it first)
from threadpoolctl import threadpool_limits


def limit_threads(opencv: int | None = None) -> None:
    """Limits the BLAS under NumPy to one thread and, when asked, OpenCV to some threads
    (None leaves OpenCV's own choice)."""
    threadpool_limits(1, user_api="blas")
    if opencv is not None:
        import cv2  # only here: the command line needs no OpenCV for most of its jobs

        cv2.setNumThreads(opencv)
