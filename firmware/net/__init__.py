"""Network periphery of the game host: settings, access point, captive DNS, HTTP routes."""
