/* tw_serve_test.h - the hand-worked step costs the serving tests share (test_serve_stop.c,
 * test_serve_drawn.c, test_serve_mech.c): lin(n) = 1.001 ms at 1 token rising 1 us a token, A(S)
 * interpolated through 1 ns, 10 us and 100 ms at 1, 100 and 10,000 tokens, lm = 0.1 ms, a decode
 * step D = 2 ms at every batch and context, host 0.5 ms a step; so a 10-token prefill step takes
 * PREFILL = lin(10) + A(10) + lm + host and a decode step 2 ms. And a continuous, chunked, mixing
 * policy on one replica with a 1000-token budget and 100,000 tokens of KV. */
#ifndef TW_SERVE_TEST_H
#define TW_SERVE_TEST_H

#include <string.h>

#include "tilewave.h"

static const double tok[] = {1, 1001}, lin[] = {1.001e-3, 2.001e-3};
static const double ctxg[] = {1, 100, 10000}, attn[] = {1e-9, 1e-5, 1e-1};
static const double seq[] = {1, 64}, lm[] = {1e-4, 1e-4};
static const double dctx[] = {1, 10000}, dec[] = {2e-3, 2e-3, 2e-3, 2e-3};
static const double A10 = 1e-9 + 9.0 / 99.0 * (1e-5 - 1e-9);
#define PREFILL (1.010e-3 + A10 + 1e-4 + 5e-4)
#define CYCLE (PREFILL + 4e-3)

/* the step costs above */
static void serve_test_costs(tw_serve_costs *c)
{
    memset(c, 0, sizeof *c);
    c->tok_grid = tok; c->n_tok = 2; c->lin_s = lin;
    c->ctx_grid = ctxg; c->n_ctx = 3; c->attn_s = attn;
    c->seq_grid = seq; c->n_seq = 2; c->logits_s = lm;
    c->dctx_grid = dctx; c->n_dctx = 2; c->decode_s = dec;
    c->host_s = 5e-4;
    c->scale = 1.0;
}

/* the policy above, `seqs` sequences at a time in blocks of `block_size` tokens */
static void serve_test_policy(tw_serve_policy *p, double seqs, double block_size)
{
    memset(p, 0, sizeof *p);
    p->policy = TW_SERVE_CONTINUOUS;
    p->mix = 1;
    p->chunked = 1;
    p->max_num_seqs = seqs;
    p->max_num_batched_tokens = 1000;
    p->block_size = block_size;
    p->kv_capacity_tokens = 100000;
    p->replicas = 1;
    p->multi_step = 1;
}

#endif
