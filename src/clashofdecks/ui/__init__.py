"""The terminal front end's presentation layer: translations (:mod:`.i18n`) and rendering (:mod:`.render`).

The play loop lives in :mod:`clashofdecks.cli.play_cmd`; nothing in this package reads input.
"""
