"""Shared summary and table printing for the timing benchmarks."""

from __future__ import annotations

import json
import statistics


def summary(samples: list[float]) -> dict[str, float]:
    """Returns the median, the 90th percentile and the count of a series of times."""
    ordered = sorted(samples)
    return {"median_ms": statistics.median(ordered), "p90_ms": ordered[int(0.9 * (len(ordered) - 1))],
            "count": float(len(ordered))}


def print_results(results: dict[str, dict[str, float]], as_json: bool, label_width: int) -> None:
    """Prints summaries as JSON, or as a table of median, p90 and count per step."""
    if as_json:
        print(json.dumps(results))
        return
    print(f"{'step':<{label_width}}{'median ms':>10}{'p90 ms':>10}{'n':>6}")
    for name, row in results.items():
        print(f"{name:<{label_width}}{row['median_ms']:>10.2f}{row['p90_ms']:>10.2f}{int(row['count']):>6}")
