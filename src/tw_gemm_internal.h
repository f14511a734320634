/* tw_gemm_internal.h - what tw_gemm.c (the model) offers tw_gemm_plan.c (validation, the
 * prepared device, entry points) and tw_pass.c, and what tw_gemm_plan.c offers tw_pass.c: the
 * calls go one way, plan -> model. Not installed; not part of the API. */
#ifndef TW_GEMM_INTERNAL_H
#define TW_GEMM_INTERNAL_H

/* The first alignment class TMA accepts: 16-byte global strides (CUDA Driver API,
 * cuTensorMapEncodeTiled), also the widest vector load of the other kernels. */
#define TMA_CLASS 4
/* The pseudo-class of the TMA kernel a GEMM gets where only N is off 16 bytes (tw_gemm.h,
 * n_off_tma_eff): past the alignment classes, so at or above TMA_CLASS */
#define N_OFF_TMA_CLASS TW_ALIGN_CLASSES

/* tw_gemm_plan.magic of a plan tw_gemm_prepare filled ("twGP") */
#define PLAN_MAGIC 0x74774750u

/* 1 for a plan tw_gemm_prepare filled and not tampered with, else 0 with *bad_field "plan" */
int tw_gemm__plan_ok(const tw_gemm_plan *p, const char **bad_field);
/* TW_OK, or the status and field of the first bad shape field */
int tw_gemm__check_shape(const tw_gemm_shape *s, const char **bad_field);
/* log2 of the coarsest power of two (bytes) dividing N and K, capped at 7 (128 bytes) */
int tw_gemm__align_class(const tw_gemm_shape *s);
/* the class a shape is priced in on device d: its alignment class, or N_OFF_TMA_CLASS */
int tw_gemm__shape_class(const tw_device *d, const tw_gemm_shape *s);
/* the per-tile constants of a valid device, then those of one alignment class */
void tw_gemm__prepare_tiles(tw_gemm_plan *p, const tw_device *d);
void tw_gemm__prepare_class(tw_gemm_plan *p, int c);
/* the estimate of a checked shape on a plan prepared (at least) for its class: TW_OK, or
 * TW_ERANGE with "device.figures" when the device's figures give no finite time */
int tw_gemm__estimate_checked(const tw_gemm_plan *p, const tw_gemm_shape *s, tw_gemm_result *out,
                              const char **bad_field);
int tw_gemm__time_checked(const tw_gemm_plan *p, const tw_gemm_shape *s, double *time_s, double *flop_rate,
                          const char **bad_field);

#endif /* TW_GEMM_INTERNAL_H */
