#!/usr/bin/env bash
# Device run of the overhead group (issue 32, goals O1-O3: bench/overhead_goals.py) in one
# command (bench/group_device.sh).  Run after `. tests/device_env.sh`:
#   bash bench/overhead_device.sh DIR     DIR receives overhead.log and
#                                         overhead-<date>-<gpu>-x<n>.json
exec bash "$(dirname "$0")/group_device.sh" overhead "$@"
