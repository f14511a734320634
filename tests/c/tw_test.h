/* tw_test.h - shared helpers for the cmocka tests of libtilewave. */
#ifndef TW_TEST_H
#define TW_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

/* cmocka 1.1.5 has no assert_double_equal: relative tolerance, printing both values. */
#define assert_close(actual, expected, rel)                                                        \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected);                                                     \
        if (!(fabs(a_ - e_) <= (rel) * fabs(e_))) {                                                \
            print_error("%s = %.10g, expected %.10g (rel tol %g)\n", #actual, a_, e_, (double)(rel)); \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#endif
