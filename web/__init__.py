"""The phone dashboard: a Flask app factory with thin views over the running game."""
