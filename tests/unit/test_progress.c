/* The progress line: durations, the time-left estimate and both line formats on fixed inputs
 * (expected strings worked out by hand), then plain lines on a file and the redrawn line on a
 * pseudo-terminal. */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include "io/io.h"
#include "test.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void check_duration(double seconds, const char *expected) {
    char buf[32];
    CLP_ASSERT_STR_EQ(clp__format_duration(seconds, buf), expected);
}

static void check_durations(void) {
    check_duration(0, "0.0s");
    check_duration(12.34, "12.3s");
    check_duration(59.94, "59.9s");
    check_duration(59.96, "1m00s"); /* 60.0 s once rounded */
    check_duration(185, "3m05s");
    check_duration(3599.4, "59m59s");
    check_duration(3599.6, "1h00m");
    check_duration(3720, "1h02m");
    check_duration(90061, "25h01m"); /* 1 day, 1 h, 1 min, 1 s */
    check_duration(-1, "--");
    check_duration(NAN, "--");
    check_duration(INFINITY, "--");
    check_duration(1e9, "--");
}

static void check_seconds_left(void) {
    /* A quarter of the simulated second took 10 s: the other 0.75 s take 30 s. */
    CLP_ASSERT_NEAR(clp__progress_seconds_left(0, 0.25, 1, 10), 30, 1e-12);
    CLP_ASSERT_NEAR(clp__progress_seconds_left(0.5, 0.75, 1.5, 2), 6, 1e-12);
    CLP_ASSERT_NEAR(clp__progress_seconds_left(0, 1.2, 1, 5), 0, 0);
    CLP_ASSERT(clp__progress_seconds_left(0.5, 0.5, 1, 3) < 0);
    CLP_ASSERT(clp__progress_seconds_left(0, 0.5, 1, 0) < 0);
}

static void check_line(clp__progress_state s, bool tty, const char *expected) {
    char buf[256];
    CLP_ASSERT_STR_EQ(clp__progress_format(buf, sizeof buf, &s, tty), expected);
}

static void check_formats(void) {
    clp__progress_state s = {1200, 0.4, 1.0, 1234567, 30, false, NULL};
    check_line(s, true,
               "[########............]  40%  step 1200  t 0.4 / 1 s  1.23M particle-steps/s  "
               "30.0s left");
    check_line(s, false, "step 1200  t 0.4 / 1 s (40%)  1.23M particle-steps/s  30.0s left");
    s = (clp__progress_state){0, 0, 2.5, 0, -1, false, NULL};
    check_line(s, true,
               "[....................]   0%  step 0  t 0 / 2.5 s  -- particle-steps/s  -- left");
    s = (clp__progress_state){5000, 2.5, 2.5, 950, 0, false, NULL};
    check_line(s, true,
               "[####################] 100%  step 5000  t 2.5 / 2.5 s  950 particle-steps/s  "
               "0.0s left");
    /* 0.999 of the way is 99%; 999999/s rounds to 1M; 4 significant digits of time. */
    s = (clp__progress_state){7, 0.123456, 0.12358, 999999, 185, false, NULL};
    check_line(s, false, "step 7  t 0.1235 / 0.1236 s (99%)  1M particle-steps/s  3m05s left");
    s = (clp__progress_state){9, 3.0, 2.0, 2.5e9, 3720, false, NULL};
    check_line(s, false, "step 9  t 3 / 2 s (100%)  2.5G particle-steps/s  1h02m left");
    /* A run that counts steps only (PSO), with a note. */
    s = (clp__progress_state){.step = 300,
                              .sim_time = 300,
                              .end_time = 120000,
                              .particle_steps_per_second = 2.5e6,
                              .seconds_left = 12,
                              .steps_only = true,
                              .note = "best 0.00125"};
    check_line(s, false, "step 300 / 120000 (0%)  2.5M particle-steps/s  12.0s left  best 0.00125");
    s.sim_time = s.step = 60000;
    s.note = NULL;
    check_line(s, true,
               "[##########..........]  50%  step 60000 / 120000  2.5M particle-steps/s  "
               "12.0s left");
    char small[12];
    s = (clp__progress_state){1, 0, 1, 1, 1, false, NULL};
    CLP_ASSERT_STR_EQ(clp__progress_format(small, sizeof small, &s, false), "step 1  t 0");
}

static char *read_stream(FILE *f) {
    static char text[4096];
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    return text;
}

static bool starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int count_char(const char *text, char c) {
    int n = 0;
    for (; *text; text++)
        n += *text == c;
    return n;
}

static void check_plain_lines(void) {
    FILE *f = tmpfile();
    CLP_ASSERT(f != NULL);
    clp__progress p;
    clp__progress_init(&p, f, 0, 2, 0); /* a line for every update */
    CLP_ASSERT(!p.tty);
    clp__progress_update(&p, 1, 0.5, 100);
    clp__progress_update(&p, 2, 1.0, 200);
    clp__progress_finish(&p, 4, 2.0, 300);
    const char *text = read_stream(f);
    CLP_ASSERT_EQ(count_char(text, '\n'), 3);
    CLP_ASSERT(starts_with(text, "step 1  t 0.5 / 2 s (25%)  100 particle-steps/s  "));
    CLP_ASSERT_CONTAINS(text, "\nstep 2  t 1 / 2 s (50%)  200 particle-steps/s  ");
    CLP_ASSERT_CONTAINS(text, "\nstep 4  t 2 / 2 s (100%)  300 particle-steps/s  0.0s left\n");
    CLP_ASSERT(strchr(text, '\r') == NULL);
    fclose(f);

    /* With the default interval only the first update prints before the final line. */
    f = tmpfile();
    CLP_ASSERT(f != NULL);
    clp__progress_init(&p, f, 0, 2, CLP__PROGRESS_PLAIN_INTERVAL);
    clp__progress_update(&p, 1, 0.5, 100);
    clp__progress_update(&p, 2, 1.0, 200);
    clp__progress_update(&p, 3, 1.5, 200);
    clp__progress_finish(&p, 4, 2.0, 300);
    text = read_stream(f);
    CLP_ASSERT_EQ(count_char(text, '\n'), 2);
    CLP_ASSERT(starts_with(text, "step 1 "));
    CLP_ASSERT_CONTAINS(text, "\nstep 4 ");
    fclose(f);
}

/* Everything the master side of the pseudo-terminal has to read now. */
static char *drain(int master) {
    static char text[4096];
    size_t n = 0;
    struct pollfd pfd = {master, POLLIN, 0};
    while (n < sizeof text - 1 && poll(&pfd, 1, 200) > 0) {
        ssize_t r = read(master, text + n, sizeof text - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    text[n] = '\0';
    return text;
}

static void check_terminal(void) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        fprintf(stderr, "note: no pseudo-terminal, the redrawn line is not checked\n");
        return;
    }
    struct winsize ws = {.ws_row = 24, .ws_col = 60};
    CLP_ASSERT(ioctl(master, TIOCSWINSZ, &ws) == 0);
    FILE *tty = fopen(ptsname(master), "w");
    CLP_ASSERT(tty != NULL);
    clp__progress p;
    clp__progress_init(&p, tty, 0, 1, 0);
    CLP_ASSERT(p.tty);
    clp__progress_update(&p, 10, 0.5, 1000);
    clp__progress_update(&p, 11, 0.6, 1000); /* within 0.1 s of the first: not drawn */
    const char *text = drain(master);
    /* The line cut to 59 columns, one less than the terminal's width. */
    CLP_ASSERT_STR_EQ(text, "\r[##########..........]  50%  step 10  t 0.5 / 1 s  1k parti"
                            "\033[K");
    usleep(150000);
    clp__progress_update(&p, 12, 0.75, 1000);
    text = drain(master);
    CLP_ASSERT(starts_with(text, "\r[###############.....]  75%  step 12 "));
    clp__progress_finish(&p, 20, 1.0, 1000);
    text = drain(master);
    CLP_ASSERT(starts_with(text, "\r[####################] 100%  step 20 "));
    size_t len = strlen(text);
    CLP_ASSERT(len >= 2 && strcmp(text + len - 2, "\r\n") == 0); /* the tty maps \n to \r\n */
    fclose(tty);
    close(master);
}

int main(void) {
    check_durations();
    check_seconds_left();
    check_formats();
    check_plain_lines();
    check_terminal();
    printf("progress: all checks passed\n");
    return 0;
}
