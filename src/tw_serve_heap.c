/* tw_serve_heap.c - the KV transfers in flight of disaggregated serving (tw_serve.h): a binary
 * min-heap on their end times, ties broken by the lower request index, so the event loop lands them in
 * a deterministic order. */
#include "tw_serve_sim.h"

/* the KV transfers in flight: a binary min-heap on their end times (ties: the lower request) */
static int heap_less(const sim_t *s, size_t a, size_t b)
{
    return s->heap_t[a] < s->heap_t[b] || (s->heap_t[a] == s->heap_t[b] && s->heap_i[a] < s->heap_i[b]);
}

static void heap_swap(sim_t *s, size_t a, size_t b)
{
    double t = s->heap_t[a];
    int32_t i = s->heap_i[a];
    s->heap_t[a] = s->heap_t[b];
    s->heap_i[a] = s->heap_i[b];
    s->heap_t[b] = t;
    s->heap_i[b] = i;
}

void tw__heap_push(sim_t *s, double t, int32_t i)
{
    size_t k = s->heap_n++;
    s->heap_t[k] = t;
    s->heap_i[k] = i;
    while (k > 0 && heap_less(s, k, (k - 1) / 2)) {
        heap_swap(s, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
}

int32_t tw__heap_pop(sim_t *s)
{
    int32_t top = s->heap_i[0];
    size_t k = 0;
    s->heap_n--;
    if (s->heap_n > 0) {
        s->heap_t[0] = s->heap_t[s->heap_n];
        s->heap_i[0] = s->heap_i[s->heap_n];
        for (;;) {
            size_t l = 2 * k + 1, m = k;
            if (l < s->heap_n && heap_less(s, l, m)) m = l;
            if (l + 1 < s->heap_n && heap_less(s, l + 1, m)) m = l + 1;
            if (m == k) break;
            heap_swap(s, k, m);
            k = m;
        }
    }
    return top;
}
