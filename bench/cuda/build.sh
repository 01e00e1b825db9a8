#!/usr/bin/env bash
# Builds the hand-written CUDA C programs of bench/cuda/ (the overhead goals, bench/overhead_goals.py):
#   bash bench/cuda/build.sh OUTDIR NX NY ITER      -> OUTDIR/laplace_cuda_<NX>x<NY>_<ITER>
#   bash bench/cuda/build.sh OUTDIR launch [REPS]   -> OUTDIR/launch_cuda_<REPS> (REPS: 20000)
#   bash bench/cuda/build.sh OUTDIR overlap         -> OUTDIR/overlap_ipc (overlap_ipc.cu: sizes
#                                                      are its arguments)
# (the program's path is the last line printed).  nvcc -O3 -arch=native (-arch=sm_90 where
# native finds no GPU).  The Laplace (laplace_cuda.cu) with the flags of the MPI compiler
# wrapper and NCCL's header and library; the launch (launch_cuda.cu) with no MPI or NCCL,
# linked with -lcuda (nvcc looks in the toolkit's stubs directory), else with the driver's
# libcuda.so.1 that ldconfig knows, else built with -DDRIVER_DLSYM (cuLaunchKernel from
# libcuda.so.1 at run time); the line "driver: ..." says which.
# Environment:
#   MPICC     the MPI compiler wrapper whose mpirun runs the program (default: mpicc on PATH,
#             else the one mpi4py was built with); Open MPI's --showme:compile/--showme:link
#             is asked first, then MPICH's -show
#   PYTHON    the Python whose nvidia-nccl-cu* wheel provides NCCL (default: python3)
#   NCCL_HOME a directory with include/nccl.h and lib/libnccl.so* (tried first)
#   NVCC, NVCCFLAGS   the compiler and extra flags
# NCCL is looked for in $NCCL_HOME, then in the Python package nvidia.nccl (a namespace
# package: every entry of its __path__), then /usr/include with the system library
# directories, then the CUDA toolkit; exit 2 if none has it.
set -euo pipefail
usage() {
  echo "usage: $0 OUTDIR NX NY ITER | $0 OUTDIR launch [REPS] | $0 OUTDIR overlap" >&2
  exit 64
}
[ $# -ge 2 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
py=${PYTHON:-python3}

# --- the launch program: no MPI, no NCCL
if [ "$2" = launch ]; then
  [ $# -le 3 ] || usage
  out=$1 reps=${3:-20000}
  mkdir -p "$out"
  exe="$out/launch_cuda_${reps}"
  obj="$out/launch_cuda_${reps}.o"
  compile() {   # compile ARCH [DEFINE...]
    local arch=$1
    shift
    # shellcheck disable=SC2086 # NVCCFLAGS: words on purpose
    "$nvcc" -O3 "-arch=$arch" -DREPS="$reps" "$@" ${NVCCFLAGS:-} -c "$here/launch_cuda.cu" -o "$obj"
  }
  link() {   # link ARCH LIBRARY-FLAGS...
    local arch=$1
    shift
    "$nvcc" "-arch=$arch" "$obj" -o "$exe" "$@"
  }
  arch=native
  log="$out/nvcc-native.log"
  if ! compile native 2>"$log" || grep -q "Cannot find valid GPU" "$log"; then
    echo "build.sh: -arch=native did not build for this GPU ($(head -c 300 "$log" | tr '\n' ' ')), building for sm_90" >&2
    arch=sm_90
    compile "$arch"
  fi
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  driver=$("$ldconfig" -p 2>/dev/null | awk '$1 == "libcuda.so.1" && /64/ { print $NF; exit }' || true)
  if link "$arch" -lcuda 2>"$out/link.log"; then
    echo "driver: cuLaunchKernel, linked with -lcuda"
  elif [ -n "$driver" ] && link "$arch" -L"$(dirname "$driver")" -l:libcuda.so.1 2>>"$out/link.log"; then
    echo "driver: cuLaunchKernel, linked with $driver"
  else
    echo "build.sh: no libcuda to link against ($(tr '\n' ' ' <"$out/link.log" | head -c 300)), taking" \
         "cuLaunchKernel from libcuda.so.1 at run time (-DDRIVER_DLSYM)" >&2
    compile "$arch" -DDRIVER_DLSYM
    link "$arch" -ldl
    echo "driver: cuLaunchKernel of libcuda.so.1 by dlsym at run time (no libcuda to link against)"
  fi
  rm -f "$obj"
  echo "$exe"
  exit 0
fi

# --- the MPI + NCCL programs: laplace_cuda.cu of a size, or overlap_ipc.cu
if [ "$2" = overlap ]; then
  [ $# -eq 2 ] || usage
  out=$1 src=overlap_ipc.cu exe="$1/overlap_ipc" sizes=()
else
  [ $# -eq 4 ] || usage
  out=$1 src=laplace_cuda.cu exe="$1/laplace_cuda_$2x$3_$4" sizes=(-DNX="$2" -DNY="$3" -DITER="$4")
fi

# --- NCCL: a directory with nccl.h and one with libnccl.so*
nccl_inc="" nccl_lib=""
try_nccl() {   # try_nccl INCLUDE_DIR LIB_DIR...
  local inc=$1 d
  shift
  [ -f "$inc/nccl.h" ] || return 1
  for d in "$@"; do
    if compgen -G "$d/libnccl.so*" >/dev/null; then
      nccl_inc=$inc nccl_lib=$d
      return 0
    fi
  done
  return 1
}
found=no
if [ -n "${NCCL_HOME:-}" ] && try_nccl "$NCCL_HOME/include" "$NCCL_HOME/lib" "$NCCL_HOME/lib64"; then
  found=yes
fi
if [ $found = no ]; then
  for d in $("$py" -c 'import nvidia.nccl as m; print("\n".join(m.__path__))' 2>/dev/null || true); do
    if try_nccl "$d/include" "$d/lib"; then found=yes; break; fi
  done
fi
if [ $found = no ] && try_nccl /usr/include /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; then
  found=yes
fi
if [ $found = no ]; then
  cuda=$(dirname "$(dirname "$(command -v "$nvcc")")")
  try_nccl "$cuda/include" "$cuda/lib64" "$cuda/lib" && found=yes
fi
if [ $found = no ]; then
  echo "build.sh: NCCL not found: no nccl.h + libnccl.so* in \$NCCL_HOME, in the Python package" \
       "nvidia.nccl of $py (pip install nvidia-nccl-cu13 or -cu12), in /usr/include or the CUDA toolkit" >&2
  exit 2
fi
# the library by its file name: the wheel ships libnccl.so.2 with no libnccl.so link
nccl_so=$(cd "$nccl_lib" && { compgen -G libnccl.so || compgen -G "libnccl.so.*" | sort | head -1; })

# --- MPI: the wrapper's compile and link flags, in nvcc's spelling
mpicc=${MPICC:-}
if [ -z "$mpicc" ]; then
  mpicc=$(command -v mpicc || "$py" -c 'import mpi4py; print(mpi4py.get_config()["mpicc"])' 2>/dev/null || true)
fi
if [ -z "$mpicc" ]; then
  echo "build.sh: no mpicc (set MPICC)" >&2
  exit 2
fi
if cflags=$("$mpicc" --showme:compile 2>/dev/null) && lflags=$("$mpicc" --showme:link 2>/dev/null); then
  mpi="$cflags $lflags"                         # Open MPI
elif mpi=$("$mpicc" -show 2>/dev/null); then
  mpi=${mpi#* }                                 # MPICH: drop the compiler's name
else
  echo "build.sh: $mpicc answers neither --showme:compile nor -show" >&2
  exit 2
fi
flags=()
for f in $mpi; do
  case $f in
    -I*|-L*|-l*|-D*) flags+=("$f") ;;
    -Wl,*) flags+=(-Xlinker "${f#-Wl,}") ;;
    *) flags+=(-Xcompiler "$f") ;;
  esac
done

mkdir -p "$out"
build() {   # build ARCH
  # shellcheck disable=SC2086 # NVCCFLAGS: words on purpose
  "$nvcc" -O3 "-arch=$1" "${sizes[@]}" ${NVCCFLAGS:-} \
    -I"$nccl_inc" "${flags[@]}" "$here/$src" -o "$exe" \
    -L"$nccl_lib" "-l:$nccl_so" -Xlinker -rpath -Xlinker "$nccl_lib"
}
# -arch=native with no GPU in sight only warns and builds for nvcc's default target
log="$out/nvcc-native.log"
if ! build native 2>"$log" || grep -q "Cannot find valid GPU" "$log"; then
  echo "build.sh: -arch=native did not build for this GPU ($(head -c 300 "$log" | tr '\n' ' ')), building for sm_90" >&2
  build sm_90
fi
echo "nccl: $nccl_inc/nccl.h $nccl_lib/$nccl_so"
echo "$exe"
