#!/usr/bin/env bash
# Device run of the spelling benchmark (issue 31, goals Y1-Y4) in one command, on one GPU
# (bench/group_device.sh): every spelling of bench/spelling/, the copy bandwidth and the
# hand-written kernels.  Run after `. tests/device_env.sh`:
#   bash bench/spelling_device.sh DIR            DIR receives spelling.log, the results
#   bash bench/spelling_device.sh DIR --quick    spelling-<date>-<gpu>-x<n>.json and .png,
#                                                and spelling-partial.json
exec bash "$(dirname "$0")/group_device.sh" spelling "$@"
