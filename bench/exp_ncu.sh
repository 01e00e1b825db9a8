w=/tmp/expn; mkdir -p $w
for mb in 2 4 6 8; do
  XMPACC_STREAM_MINBLOCKS=$mb xmpacc -O2 bench/jacobi3d_bench.c -o $w/jac$mb
  XMPACC_STREAM_MINBLOCKS=$mb xmpacc -O2 -DNX=16384 -DNY=16384 bench/laplace_bench.c -o $w/lap$mb
done
for r in 1 2; do for mb in 2 4 6 8; do
  echo "jac mb=$mb $(XMPACC_DEVICE=cuda mpirun -np 1 $w/jac$mb | grep -o 'iter_ms = [0-9.]*')"
  echo "lap mb=$mb $(XMPACC_DEVICE=cuda mpirun -np 1 $w/lap$mb | grep -o 'iter_ms = [0-9.]*\|N = [0-9]*' | tr '\n' ' ')"
done; done
