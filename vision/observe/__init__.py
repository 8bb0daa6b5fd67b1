"""Per-cell observers: a still frame, the board fix and the camera place in, an Observation out."""
