-- GEMM kernel parameters of the NVIDIA Blackwell GeForce/RTX PRO (GB20x), sm_120 architecture: Ada's
-- (hw/arch/ada.lua). Pure data; fields documented in lua/tilewave/data/hw.lua and src/tw_gemm.h.
return {
  name = "NVIDIA Blackwell GB20x (GeForce RTX 50, RTX PRO), sm_120",
  base = "ada",
  notes = "sm_120 has no tcgen05 tensor-core path and no tensor memory: its GEMMs run warp-level mma.sync "
    .. "as Ada's do, with 100 KB of shared memory per SM (CUTLASS Blackwell support: 'Kernels compiled for "
    .. "datacenter Blackwell (SM100/103) with sm100a are NOT compatible with GeForce RTX 50 series (SM120)'; "
    .. "CUDA C++ Programming Guide, compute capability 12.0). So the kernel parameters are Ada's, alignment "
    .. "scaled by the SM's tensor rate. No sm_120 GEMM was measured.",
}
