/* The progress of a run: one line redrawn in place on a terminal (bar, step, simulated time or
 * the step count, particle-steps per second, time left, a note), plain periodic lines
 * otherwise. */
#include "io.h"

#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum { BAR_WIDTH = 20 };
static const double tty_interval = 0.1; /* seconds between redraws */

double clp__progress_seconds_left(double start, double now, double end, double elapsed) {
    double done = now - start;
    if (!(done > 0) || !(elapsed > 0))
        return -1;
    return (end > now ? end - now : 0) * elapsed / done;
}

char *clp__format_duration(double seconds, char buf[32]) {
    if (!(seconds >= 0) || !(seconds < 1e8)) {
        strcpy(buf, "--");
        return buf;
    }
    long long tenths = llround(seconds * 10);
    long long whole = llround(seconds);
    long long minutes = llround(seconds / 60);
    if (tenths < 600)
        snprintf(buf, 32, "%lld.%llds", tenths / 10, tenths % 10);
    else if (whole < 3600)
        snprintf(buf, 32, "%lldm%02llds", whole / 60, whole % 60);
    else
        snprintf(buf, 32, "%lldh%02lldm", minutes / 60, minutes % 60);
    return buf;
}

/* Three significant digits with a k, M, G or T suffix: "950", "1.23M"; "--" when unknown. */
static char *format_rate(double rate, char buf[16]) {
    static const char *const units[] = {"", "k", "M", "G", "T"};
    if (!(rate > 0) || !isfinite(rate)) {
        strcpy(buf, "--");
        return buf;
    }
    size_t unit = 0;
    while (rate >= 999.5 && unit + 1 < sizeof units / sizeof units[0]) {
        rate /= 1000;
        unit++;
    }
    snprintf(buf, 16, "%.3g%s", rate, units[unit]);
    return buf;
}

char *clp__progress_format(char *buf, size_t size, const clp__progress_state *s, bool tty) {
    double fraction = s->end_time > 0 ? s->sim_time / s->end_time : 1;
    fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    int percent = (int)floor(fraction * 100);
    char now[24], end[24], rate[16], left[32];
    snprintf(now, sizeof now, "%.4g", s->sim_time);
    snprintf(end, sizeof end, "%.4g", s->end_time);
    format_rate(s->particle_steps_per_second, rate);
    clp__format_duration(s->seconds_left, left);
    unsigned long long step = (unsigned long long)s->step;
    /* "step 12  t 0.4 / 1 s", or "step 12 / 2000" when there is no simulated time */
    char position[64];
    if (s->steps_only)
        snprintf(position, sizeof position, "step %llu / %.0f", step, s->end_time);
    else
        snprintf(position, sizeof position, "step %llu  t %s / %s s", step, now, end);
    const char *gap = s->note && *s->note ? "  " : "", *note = s->note ? s->note : "";
    if (tty) {
        char bar[BAR_WIDTH + 1];
        int filled = (int)floor(fraction * BAR_WIDTH);
        for (int i = 0; i < BAR_WIDTH; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        snprintf(buf, size, "[%s] %3d%%  %s  %s particle-steps/s  %s left%s%s", bar, percent,
                 position, rate, left, gap, note);
    } else {
        snprintf(buf, size, "%s (%d%%)  %s particle-steps/s  %s left%s%s", position, percent, rate,
                 left, gap, note);
    }
    return buf;
}

void clp__progress_init(clp__progress *p, FILE *stream, double start_time, double end_time,
                        double plain_interval) {
    *p = (clp__progress){.stream = stream,
                         .tty = isatty(fileno(stream)) == 1,
                         .end_time = end_time,
                         .start_sim_time = start_time,
                         .start_wall = clp__now(),
                         .last_print = -1,
                         .plain_interval = plain_interval};
}

static void print_line(clp__progress *p, double now, uint64_t step, double sim_time,
                       double particle_steps_per_second) {
    clp__progress_state s = {.step = step,
                             .sim_time = sim_time,
                             .end_time = p->end_time,
                             .particle_steps_per_second = particle_steps_per_second,
                             .seconds_left = clp__progress_seconds_left(
                                 p->start_sim_time, sim_time, p->end_time, now - p->start_wall),
                             .steps_only = p->steps_only,
                             .note = p->note};
    char line[256];
    clp__progress_format(line, sizeof line, &s, p->tty);
    if (p->tty) {
        /* A line longer than the terminal would wrap, and \r would not go back far enough. */
        struct winsize ws;
        if (ioctl(fileno(p->stream), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
            strlen(line) >= ws.ws_col)
            line[ws.ws_col - 1] = '\0';
        fprintf(p->stream, "\r%s\033[K", line);
    } else {
        fprintf(p->stream, "%s\n", line);
    }
    fflush(p->stream);
    p->last_print = now;
}

void clp__progress_update(clp__progress *p, uint64_t step, double sim_time,
                          double particle_steps_per_second) {
    double now = clp__now();
    double interval = p->tty ? tty_interval : p->plain_interval;
    if (p->last_print >= 0 && now - p->last_print < interval)
        return;
    print_line(p, now, step, sim_time, particle_steps_per_second);
}

void clp__progress_finish(clp__progress *p, uint64_t step, double sim_time,
                          double particle_steps_per_second) {
    print_line(p, clp__now(), step, sim_time, particle_steps_per_second);
    if (p->tty) {
        fputc('\n', p->stream);
        fflush(p->stream);
    }
}
