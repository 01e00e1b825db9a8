#!/usr/bin/env bash
# Separate compilation and the launch path under a system MPI (Open MPI on the device
# machine) and its launcher, outside the MPICH wheel that the test suite uses.
#
# A fresh virtual environment gets mpi4py built against the MPI whose mpicc is on PATH and
# xmpacc from this checkout (with CuPy when EXTRA names the CUDA extra); the multi-file
# program (tests/multifile) is built in one command and file by file through an archive,
# the make and CMake examples (samples/build) are built, and every program runs under the
# launcher with 1, 2 and 4 processes on the host backend and, when a GPU is there, on the
# cuda backend; each output is compared with the serial build's.
#
#   tests/mpi_launch_check.sh                         mpirun of the MPI on PATH
#   EXTRA=cuda13 tests/mpi_launch_check.sh            also the GPU runs
#   LAUNCH="srun --mpi=pmix -n" tests/mpi_launch_check.sh     under Slurm (in an allocation)
#   VENV=/shared/xmpacc tests/mpi_launch_check.sh     where the environment goes
#   MPI4PY="mpi4py mpich" LAUNCH="mpirun -np" ...     the wheels instead (a dry run of this script)
#   SITE=1 PYTHON=/opt/env/bin/python ...             reuse that Python's packages (its mpi4py,
#                                                     CuPy) on a machine without a package index
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-/tmp/xmpacc-system-mpi}"
work="$(mktemp -d)"
root_flags=""
[ "$(id -u)" = 0 ] && root_flags="--allow-run-as-root"
launch="${LAUNCH:-mpirun --oversubscribe $root_flags -np}"

rm -rf "$venv"
if [ -n "${SITE:-}" ]; then   # the packages of an existing environment, xmpacc on top
  "${PYTHON:-python3}" -m venv "$venv"
  "${PYTHON:-python3}" -c "import site; print('\n'.join(site.getsitepackages()))" \
    > "$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/base.pth"
  "$venv/bin/python" -c "import mpi4py" || { echo "SITE=1: $PYTHON has no mpi4py"; exit 2; }
  "$venv/bin/python" -m pip install -q --no-deps --no-build-isolation "$repo" 2>/dev/null || \
    "$venv/bin/python" -m pip install -q --no-deps "$repo"
else
  [ -n "${MPI4PY:-}" ] || command -v mpicc >/dev/null || { echo "no mpicc on PATH: load the MPI module first"; exit 2; }
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  if [ -n "${MPI4PY:-}" ]; then
    "$venv/bin/python" -m pip install -q $MPI4PY
  else   # built here, against the MPI of this machine
    MPICC=mpicc "$venv/bin/python" -m pip install -q --no-binary mpi4py --no-cache-dir mpi4py
  fi
  "$venv/bin/python" -m pip install -q "$repo${EXTRA:+[$EXTRA]}"
fi
"$venv/bin/python" -c "from mpi4py import MPI; print('mpi4py uses:', MPI.Get_library_version().splitlines()[0])"
export PATH="$venv/bin:$PATH"   # xmpacc; mpirun stays the system's (no MPICH wheel here)
echo "launcher: $launch  ($(command -v "${launch%% *}"))"

gpu=0
"$venv/bin/python" -c "import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() == 0)" 2>/dev/null && gpu=1

compare() {  # compare OUTPUT EXPECTED: same text, numbers to 1e-9 relative
  "$venv/bin/python" "$repo/tests/compare_output.py" "$1" "$2"
}

failures=0
run() {  # run NAME EXE EXPECTED
  local devices="host"; [ $gpu = 1 ] && devices="host cuda"
  for dev in $devices; do
    for n in 1 2 4; do
      if XMPACC_DEVICE=$dev $launch $n "$2" > "$work/out" 2> "$work/err" && compare "$work/out" "$3"; then
        echo "ok    $1  np=$n  $dev"
      else
        echo "FAIL  $1  np=$n  $dev"; cat "$work/out" "$work/err"; failures=$((failures + 1))
      fi
    done
  done
}

cd "$work"
m="$repo/tests/multifile"
cc -w "$m"/*.c -lm -o serial_multifile && ./serial_multifile > multifile.expected
xmpacc "$m/main.c" "$m/init.c" "$m/relax.c" "$m/weight.c" -o multifile_one
for f in main init relax weight; do xmpacc -c "$m/$f.c" -o "$f.o"; done
ar rcs libfield.a init.o relax.o
xmpacc main.o weight.o -L. -lfield -o multifile_objects
run multifile/one-command ./multifile_one multifile.expected
run multifile/objects+archive ./multifile_objects multifile.expected

cp -r "$repo/samples/build" build
cc -w build/src/*.c -o serial_heat && ./serial_heat > heat.expected
make -s -C build/make
run samples/build/make build/make/heat heat.expected
if command -v cmake >/dev/null; then
  cmake -S build/cmake -B build/out > /dev/null && cmake --build build/out > /dev/null
  run samples/build/cmake build/out/heat heat.expected
fi
echo "$failures failure(s); outputs in $work"
[ $failures = 0 ]
