"""Independent, deliberately simple oracle implementations of the game rules, for tests."""
