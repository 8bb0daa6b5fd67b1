"""Tests of the thread limits the entry points set (pi.threads)."""

from __future__ import annotations

from typing import Iterator

import cv2
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from pi.threads import limit_threads


@pytest.fixture
def restored() -> Iterator[None]:
    """Puts the BLAS's and OpenCV's thread counts back after a test."""
    blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    opencv = cv2.getNumThreads()
    yield
    if blas:
        threadpool_limits(max(blas), user_api="blas")
    cv2.setNumThreads(opencv)


def test_the_blas_runs_one_thread_and_opencv_as_many_as_asked(restored: None) -> None:
    threadpool_limits(2, user_api="blas")
    limit_threads(3)
    blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and set(blas) == {1}
    assert cv2.getNumThreads() == 3


def test_opencv_keeps_its_own_choice_unless_asked(restored: None) -> None:
    cv2.setNumThreads(2)
    limit_threads()
    assert cv2.getNumThreads() == 2
