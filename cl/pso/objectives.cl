/* The functions PSO minimises, evaluated at particle p's position: each reads component i as
 * X(i), for i from 0 to PSO_DIM - 1, in that order, so every layout gives the same sums.
 * The built-in ones are 0 at their optimum: sphere, Rastrigin, Ackley and Griewank at the
 * origin, Rosenbrock at (1, ..., 1). A user objective is the case file's code, put where the
 * marker below stands (src/run/pso_device.c), as the body of pso_user_objective. */

#ifndef CLP_PSO_OBJECTIVE
#define CLP_PSO_OBJECTIVE 0
#define CLP_PSO_OBJECTIVE_SPHERE 0
#define CLP_PSO_OBJECTIVE_ROSENBROCK 1
#define CLP_PSO_OBJECTIVE_RASTRIGIN 2
#define CLP_PSO_OBJECTIVE_ACKLEY 3
#define CLP_PSO_OBJECTIVE_GRIEWANK 4
#define CLP_PSO_OBJECTIVE_USER 5
#endif

#define PSO_DIM CLP_PSO_DIM
#define PSO_X_AT(i) pso_pos[pso_index(FIELD_POS, p, (i))]
#define PSO_TWO_PI 6.28318530717958647692f

#if CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_USER
/* In user code X(i) is clamped to [0, PSO_DIM - 1]: a wrong index reads a wrong component,
 * never memory outside the swarm. */
#define X(i) PSO_X_AT(min((uint)(i), (uint)(PSO_DIM - 1)))
float pso_user_objective(uint p, __global const float *pso_pos) {
/* CLP_PSO_USER_OBJECTIVE */
}
#undef X
#endif
#define X(i) PSO_X_AT((uint)(i))

float pso_objective(uint p, __global const float *pso_pos) {
#if CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_SPHERE
    float sum = 0.0f;
    for (int i = 0; i < PSO_DIM; i++)
        sum += X(i) * X(i);
    return sum;
#elif CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_ROSENBROCK
    float sum = 0.0f;
    for (int i = 0; i + 1 < PSO_DIM; i++) {
        const float x = X(i), next = X(i + 1);
        sum += 100.0f * (next - x * x) * (next - x * x) + (1.0f - x) * (1.0f - x);
    }
    return sum;
#elif CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_RASTRIGIN
    float sum = 10.0f * PSO_DIM;
    for (int i = 0; i < PSO_DIM; i++)
        sum += X(i) * X(i) - 10.0f * cos(PSO_TWO_PI * X(i));
    return sum;
#elif CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_ACKLEY
    float squares = 0.0f, cosines = 0.0f;
    for (int i = 0; i < PSO_DIM; i++) {
        squares += X(i) * X(i);
        cosines += cos(PSO_TWO_PI * X(i));
    }
    return -20.0f * exp(-0.2f * sqrt(squares / PSO_DIM)) - exp(cosines / PSO_DIM) + 20.0f +
           M_E_F;
#elif CLP_PSO_OBJECTIVE == CLP_PSO_OBJECTIVE_GRIEWANK
    float squares = 0.0f, product = 1.0f;
    for (int i = 0; i < PSO_DIM; i++) {
        squares += X(i) * X(i);
        product *= cos(X(i) / sqrt((float)(i + 1)));
    }
    return 1.0f + squares / 4000.0f - product;
#else
    return pso_user_objective(p, pso_pos);
#endif
}
