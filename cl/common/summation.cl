/* Summation modes for neighbour and reduction sums (Bilotta et al. 2018,
 * 5.2): naive, Kahan (Listing 5) and Kahan-Babuska-Neumaier (Listing 6, with a branch or with
 * select()). An accumulator is a running sum and its correction, both float. */

#ifndef CLP_CORE_SUMMATION
#define CLP_CORE_SUMMATION 1 /* sums: 0 naive, 1 Kahan, 2 Kahan-Babuska-Neumaier */
#define CLP_CORE_SUMMATION_NAIVE 0
#define CLP_CORE_SUMMATION_KAHAN 1
#define CLP_CORE_SUMMATION_KBN 2
#endif
#ifndef CLP_CORE_KBN_FORM
#define CLP_CORE_KBN_FORM 0 /* KBN correction: 0 with a branch, 1 with select() */
#define CLP_CORE_KBN_FORM_BRANCH 0
#define CLP_CORE_KBN_FORM_SELECT 1
#endif
#ifndef CLP_CORE_FAST_MATH
#define CLP_CORE_FAST_MATH 0 /* 1 when built with -cl-fast-relaxed-math */
#endif

#if CLP_CORE_FAST_MATH && CLP_CORE_SUMMATION != CLP_CORE_SUMMATION_NAIVE
#error "core.fast_math lets the compiler simplify compensated sums away: use core.summation=naive with it"
#endif

/* Whether sums carry a correction term; buffers for corrections exist only then. */
#define CLP_SUMMATION_COMPENSATED (CLP_CORE_SUMMATION != CLP_CORE_SUMMATION_NAIVE)

typedef struct {
    float sum;
    float correction;
} acc_t;

acc_t acc_zero(void) {
    acc_t a = {0.0f, 0.0f};
    return a;
}

#if CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_NAIVE

void acc_add(acc_t *a, float term) {
    a->sum += term;
}

/* The value an accumulator stands for. */
float acc_result(acc_t a) {
    return a.sum;
}

#elif CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_KAHAN

/* Listing 5: the correction is what the last addition lost, with the opposite sign; it is
 * taken back from the next term. */
void acc_add(acc_t *a, float term) {
    float y = term - a->correction;
    float t = a->sum + y;
    a->correction = (t - a->sum) - y;
    a->sum = t;
}

float acc_result(acc_t a) {
    return a.sum;
}

#elif CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_KBN

#if CLP_CORE_KBN_FORM == CLP_CORE_KBN_FORM_BRANCH
/* Listing 6, left: the correction collects the low part of whichever operand is smaller. */
void acc_add(acc_t *a, float term) {
    float t = a->sum + term;
    if (fabs(a->sum) >= fabs(term))
        a->correction += (a->sum - t) + term;
    else
        a->correction += (term - t) + a->sum;
    a->sum = t;
}
#else
/* Listing 6, right: the same without a branch. */
void acc_add(acc_t *a, float term) {
    float t = a->sum + term;
    int sum_is_larger = fabs(a->sum) >= fabs(term);
    float larger = select(term, a->sum, sum_is_larger);
    float smaller = select(a->sum, term, sum_is_larger);
    a->correction += (larger - t) + smaller;
    a->sum = t;
}
#endif

float acc_result(acc_t a) {
    return a.sum + a.correction;
}

#else
#error "core.summation has a value this file does not know"
#endif

/* Adds a term without compensation, whatever core.summation says: for sums whose rounding
 * does not matter (cl/sph/sph.cl says which). An accumulator all the same, beside the
 * compensated ones of a kernel: plain floats there crash Oclgrind 21.10's
 * uninitialised-value check. */
void acc_add_plain(acc_t *a, float term) {
    a->sum += term;
}

/* Adds accumulator b into a: b stands for its sum less (Kahan) or plus (KBN) its correction. */
void acc_merge(acc_t *a, acc_t b) {
    acc_add(a, b.sum);
#if CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_KAHAN
    acc_add(a, -b.correction);
#elif CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_KBN
    acc_add(a, b.correction);
#endif
}

/* The same for vector sums (accN_t for floatN, N = 4 and 8), lane by lane: KBN always takes
 * the select() form, since a branch cannot differ between lanes. */
#if CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_NAIVE
#define CLP_ACC_VECTOR_ADD(N)                                                                      \
    void acc##N##_add(acc##N##_t *a, float##N term) {                                              \
        a->sum += term;                                                                            \
    }                                                                                              \
    float##N acc##N##_result(acc##N##_t a) {                                                       \
        return a.sum;                                                                              \
    }
#elif CLP_CORE_SUMMATION == CLP_CORE_SUMMATION_KAHAN
#define CLP_ACC_VECTOR_ADD(N)                                                                      \
    void acc##N##_add(acc##N##_t *a, float##N term) {                                              \
        float##N y = term - a->correction;                                                         \
        float##N t = a->sum + y;                                                                   \
        a->correction = (t - a->sum) - y;                                                          \
        a->sum = t;                                                                                \
    }                                                                                              \
    float##N acc##N##_result(acc##N##_t a) {                                                       \
        return a.sum;                                                                              \
    }
#else
#define CLP_ACC_VECTOR_ADD(N)                                                                      \
    void acc##N##_add(acc##N##_t *a, float##N term) {                                              \
        float##N t = a->sum + term;                                                                \
        float##N larger = select(term, a->sum, fabs(a->sum) >= fabs(term));                       \
        float##N smaller = select(a->sum, term, fabs(a->sum) >= fabs(term));                      \
        a->correction += (larger - t) + smaller;                                                   \
        a->sum = t;                                                                                \
    }                                                                                              \
    float##N acc##N##_result(acc##N##_t a) {                                                       \
        return a.sum + a.correction;                                                               \
    }
#endif
#define CLP_ACC_VECTOR(N)                                                                          \
    typedef struct {                                                                               \
        float##N sum;                                                                              \
        float##N correction;                                                                       \
    } acc##N##_t;                                                                                  \
    acc##N##_t acc##N##_zero(void) {                                                               \
        acc##N##_t a = {(float##N)(0.0f), (float##N)(0.0f)};                                       \
        return a;                                                                                  \
    }                                                                                              \
    void acc##N##_add_plain(acc##N##_t *a, float##N term) {                                        \
        a->sum += term;                                                                            \
    }                                                                                              \
    CLP_ACC_VECTOR_ADD(N)

CLP_ACC_VECTOR(4)
CLP_ACC_VECTOR(8)
