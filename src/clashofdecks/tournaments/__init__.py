"""Tournaments (issue 39): the Swiss system's pairings and standings, and the arena's scoring and
pairing, as pure functions over results; the web server stores tournaments and runs their rounds."""
