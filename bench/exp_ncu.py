import sys, cupy as cp, numpy as np
sys.path.insert(0, "bench")
from stencil_baselines import STENCIL_SRC
mod = cp.RawModule(code=STENCIL_SRC, options=("-DR=8", "--std=c++17"))
fn = mod.get_function("jac_walk")
n = 512
u = cp.random.random((n + 2) * n * n); un = u.copy()
grid = ((n + 63) // 64, (n + 3) // 4, n // 8)
for _ in range(12):
    fn(grid, (64, 4), (u, un, np.int32(n), np.int32(n), np.int32(n), np.int32(0), np.int32(n)))
cp.cuda.runtime.deviceSynchronize()
