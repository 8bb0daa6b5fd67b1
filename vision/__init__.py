"""Turns camera frames into per-cell observations of the board; never decides a move."""
