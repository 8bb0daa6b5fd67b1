"""The appliance: command line, hardware backends, the session and its journal."""
