"""Stage attach: parse the text of every directive into frozen directive objects, filed by
pragma node (passes/common/pragmas.py reads the tables).

    attach.py    the pass
"""
