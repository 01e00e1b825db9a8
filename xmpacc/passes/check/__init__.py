"""Stage check: a directive that no pass took is a located error (one mistake, one message).

    leftovers.py   the pass
"""
