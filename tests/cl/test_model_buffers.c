/* Buffers a model owns by name (src/worker/model_buffers.c): made zeroed, copied whole, made
 * again under the same handle, listed and freed; a size over the device's largest allocation
 * and a buffer of another worker refused with the buffer's name and bytes; kernel arguments set
 * by index, a wrong one named with its kernel and buffer; and a launch that uses them. Made
 * together, found by name, read and zeroed in part; set after a step's CLP_BUF_* arguments. */
#include "common.h"

static const char source[] = "kernel void scale(global float *a, float k, uint n) {\n"
                             "    const uint i = get_global_id(0);\n"
                             "    if (i < n)\n"
                             "        a[i] *= k;\n"
                             "}\n"
                             "kernel void add_to(global const uint *bit, global float *own) {\n"
                             "    own[get_global_id(0)] += (float)bit[get_global_id(0)];\n"
                             "}\n";

static void test_buffers(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_worker *w = t->worker;
    clp_buffer *a, *b, *again;
    float in[16], out[16];
    CLP_ASSERT_OK(clp_worker_buffer_create(w, "test.a", sizeof in, &a, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_create(w, "test.b", 8, &b, &err), &err);
    CLP_ASSERT_STR_EQ(clp_buffer_name(a), "test.a");
    CLP_ASSERT_EQ(clp_buffer_size(a), sizeof in);
    CLP_ASSERT(clp_buffer_mem(a) != NULL);
    CLP_ASSERT_OK(clp_worker_buffer_read(w, a, out, &err), &err);
    for (int i = 0; i < 16; i++) {
        CLP_ASSERT(out[i] == 0.0f); /* made zeroed */
        in[i] = (float)i + 0.5f;
    }
    CLP_ASSERT_OK(clp_worker_buffer_write(w, a, in, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(w, a, out, &err), &err);
    CLP_ASSERT(memcmp(in, out, sizeof in) == 0);
    const clp_buffer *listed[4];
    CLP_ASSERT_EQ(clp_worker_owned_buffers(w, listed, 4), 2);
    CLP_ASSERT(listed[0] == a && listed[1] == b);
    /* made again by name: the same handle, the new size, zeroed */
    CLP_ASSERT_OK(clp_worker_buffer_create(w, "test.a", 2 * sizeof in, &again, &err), &err);
    CLP_ASSERT(again == a);
    CLP_ASSERT_EQ(clp_buffer_size(a), 2 * sizeof in);
    CLP_ASSERT_EQ(clp_worker_owned_buffers(w, NULL, 0), 2);
    float twice[32];
    CLP_ASSERT_OK(clp_worker_buffer_read(w, a, twice, &err), &err);
    CLP_ASSERT(twice[0] == 0.0f && twice[31] == 0.0f);
    clp_worker_buffer_free(w, b);
    CLP_ASSERT_EQ(clp_worker_owned_buffers(w, listed, 4), 1);
    CLP_ASSERT(listed[0] == a);
    clp_worker_buffer_free(w, NULL);
    printf("ok buffers by name: made zeroed, copied, made again under one handle, freed\n");
}

static void test_refusals(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_buffer *big = NULL, *theirs;
    const size_t too_many = (size_t)t->device->max_mem_alloc_size + 1;
    CLP_ASSERT_STATUS(clp_worker_buffer_create(t->worker, "test.big", too_many, &big, &err),
                      CLP_DEVICE_MEMORY, &err);
    char bytes[32];
    snprintf(bytes, sizeof bytes, "(%zu bytes)", too_many);
    CLP_ASSERT_CONTAINS(err.message, "buffer \"test.big\"");
    CLP_ASSERT_CONTAINS(err.message, bytes);
    CLP_ASSERT(big == NULL);
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp_worker_buffer_create(t->worker, "", 4, &big, &err), CLP_USAGE, &err);
    clp_worker *other;
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp_worker_create(t->device, &other, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_create(other, "test.theirs", 4, &theirs, &err), &err);
    float x;
    CLP_ASSERT_STATUS(clp_worker_buffer_read(t->worker, theirs, &x, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "buffer \"test.theirs\" (4 bytes) belongs to another worker");
    clp_worker_destroy(other); /* releases test.theirs */
    printf("ok refused: %zu bytes, an empty name, another worker's buffer, each named\n", too_many);
}

static void test_arguments(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_worker *w = t->worker;
    clp_buffer *a;
    float in[20], out[20];
    const cl_uint n = 20;
    const float k = 3.0f;
    for (cl_uint i = 0; i < n; i++)
        in[i] = (float)i;
    clp_options *opts = test_options(t, NULL);
    CLP_ASSERT_OK(clp_worker_build_for(w, source, opts, NULL, NULL, &err), &err);
    clp_options_destroy(opts);
    CLP_ASSERT_OK(clp_worker_buffer_create(w, "test.scaled", sizeof in, &a, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_write(w, a, in, &err), &err);
    CLP_ASSERT_OK(clp_worker_set_arg_buffer(w, "scale", 0, a, &err), &err);
    CLP_ASSERT_OK(clp_worker_set_arg(w, "scale", 1, sizeof k, &k, &err), &err);
    CLP_ASSERT_OK(clp_worker_set_arg(w, "scale", 2, sizeof n, &n, &err), &err);
    CLP_ASSERT_OK(clp_launch(w, "scale", n, 0, NULL, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(w, a, out, &err), &err);
    for (cl_uint i = 0; i < n; i++)
        CLP_ASSERT(out[i] == 3.0f * (float)i);
    CLP_ASSERT_STATUS(clp_worker_set_arg_buffer(w, "scale", 3, a, &err), CLP_CL, &err);
    CLP_ASSERT_CONTAINS(err.message,
                        "kernel 'scale' argument 3 (buffer \"test.scaled\", 80 bytes): "
                        "clSetKernelArg");
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp_worker_set_arg(w, "scale", 1, 2, &k, &err), CLP_CL, &err);
    CLP_ASSERT_CONTAINS(err.message, "kernel 'scale' argument 1 (2 bytes): clSetKernelArg");
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT(clp_worker_set_arg(w, "nosuch", 0, sizeof k, &k, &err) != CLP_OK);
    CLP_ASSERT_CONTAINS(err.message, "kernel 'nosuch'");
    printf("ok arguments by index: a launch scaled %u floats; wrong arguments named\n", n);
}

/* Made together, found by name, read and zeroed in part; refused as a whole past the device's
 * memory. */
static void test_ranges(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_worker *w = t->worker;
    const char *const names[] = {"test.one", "test.two"};
    const size_t bytes[] = {16 * sizeof(float), 8};
    clp_buffer *made[2];
    CLP_ASSERT_OK(clp_worker_buffers_create(w, names, bytes, 2, made, &err), &err);
    CLP_ASSERT(clp_worker_buffer_find(w, "test.two") == made[1]);
    CLP_ASSERT(clp_worker_buffer_find(w, "test.none") == NULL);
    float in[16], part[4];
    for (int i = 0; i < 16; i++)
        in[i] = (float)i + 1;
    CLP_ASSERT_OK(clp_worker_buffer_write(w, made[0], in, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_zero_range(w, made[0], 8, 8, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read_range(w, made[0], 4, sizeof part, part, &err), &err);
    CLP_ASSERT(part[0] == 2.0f && part[1] == 0.0f && part[2] == 0.0f && part[3] == 5.0f);
    CLP_ASSERT_STATUS(clp_worker_buffer_read_range(w, made[1], 4, 8, part, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "bytes 4 to 12 are outside buffer \"test.two\" (8 bytes)");
    err = (clp_error)CLP_ERROR_INIT;
    const size_t huge[] = {(size_t)t->device->global_mem_size, 1};
    clp_buffer *none[2];
    CLP_ASSERT_STATUS(clp_worker_buffers_create(w, names, huge, 2, none, &err), CLP_DEVICE_MEMORY,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "the buffers need");
    clp_worker_buffer_free(w, made[0]);
    clp_worker_buffer_free(w, made[1]);
    printf("ok made together, found by name, read and zeroed in part, refused as a whole\n");
}

/* A kernel of a CLP_BUF_* buffer and an owned one: the owned one follows the step's bits. */
static void test_step_buffers(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_worker *w = t->worker;
    enum { N = 32 };
    clp_options *opts = test_options(t, NULL);
    CLP_ASSERT_OK(clp_worker_build_for(w, source, opts, NULL, NULL, &err), &err);
    const clp_buffer_counts counts = {.particles = N};
    CLP_ASSERT_OK(clp_worker_alloc(w, CLP_BUF_ID, opts, &counts, &err), &err);
    clp_options_destroy(opts);
    clp_buffer *own;
    CLP_ASSERT_OK(clp_worker_buffer_create(w, "test.own", N * sizeof(float), &own, &err), &err);
    cl_uint in[N];
    float out[N];
    for (int i = 0; i < N; i++)
        in[i] = (cl_uint)i;
    CLP_ASSERT_OK(clp_worker_write(w, CLP_BUF_ID, in, &err), &err);
    /* the worker holds no pos_rebuilt: not an argument */
    const clp_step step = {"add_to", CLP_BUF_ID | CLP_BUF_POS_REBUILT, N, 1};
    CLP_ASSERT_OK(clp_worker_set_step_buffers(w, &step, &own, 1, &err), &err);
    CLP_ASSERT_OK(clp_worker_run_step(w, &step, NULL, &err), &err);
    CLP_ASSERT_OK(clp_worker_run_step(w, &step, NULL, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(w, own, out, &err), &err);
    for (int i = 0; i < N; i++)
        CLP_ASSERT(out[i] == 2.0f * (float)i);
    clp_worker_buffer_free(w, own);
    printf("ok an owned buffer after a step's bits: two launches added %d floats\n", N);
}

int main(void) {
    test_env t = {0};
    test_env_open(&t);
    test_buffers(&t);
    test_refusals(&t);
    test_arguments(&t);
    test_ranges(&t);
    test_step_buffers(&t);
    test_env_close(&t); /* the worker releases the buffers left */
    return 0;
}
