"""Stage comm: the communication directives (reflect, reduction, bcast, barrier, task,
tasks, wait_async) as runtime calls.

    comm.py    the pass
    tasks.py   task and tasks blocks
"""
