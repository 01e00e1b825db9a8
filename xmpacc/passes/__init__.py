"""The passes, one package per stage of the driver (xmpacc/driver.py lists them in order):

    attach/     directive text -> directive objects
    declare/    symbol tables; directive expressions checked
    locality/   accesses that may leave the node's block (warnings, errors)
    localize/   declarations and accesses as local blocks and runtime calls
    gpu/        XcalableACC and XMP-ACC on GPUs
    loops/      host loops: this node's iterations
    comm/       communication directives
    check/      directives no pass took
    entry/      main wrapped with the runtime's start and end

and two libraries the stages share: common/ (helpers and value types) and kernel/ (the
kernel back end).  A pass (a module with ``run(unit, ctx)``) is imported by the driver
only, and a stage's package never imports another stage's (tests/test_import_graph.py).
"""
