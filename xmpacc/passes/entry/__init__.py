"""Stage entry: the user's main is wrapped with the runtime's start and end.

    entry.py   the pass
"""
