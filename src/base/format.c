/* Floating-point literals for device source that read back as the same bits: hex floats
 * written under the C locale (a comma decimal separator never leaks into device code),
 * with the decimal value in a comment, and NAN/INFINITY for the non-finite values. */
#include "internal.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

/* snprintf under the "C" numeric locale, whatever the process locale is. The locale is made
 * once, whichever thread (a sweep runs one per device) assembles a source first. */
static void format_c_locale(char *buf, size_t size, const char *fmt, double v) {
    locale_t previous = clp__c_numeric_begin();
    snprintf(buf, size, fmt, v);
    clp__c_numeric_end(previous);
}

static bool format_non_finite(double v, char buf[64]) {
    if (isnan(v))
        strcpy(buf, "NAN");
    else if (isinf(v))
        strcpy(buf, v > 0 ? "INFINITY" : "(-INFINITY)");
    else
        return false;
    return true;
}

/* "<hex><suffix> /+ <decimal> +/", negative values in parentheses so they stay one operand. */
static char *format_literal(double v, const char *suffix, const char *decimal_fmt, char buf[64]) {
    if (format_non_finite(v, buf))
        return buf;
    char hex[26], dec[26]; /* "-0x1.fffffffffffffp+1023", "-2.2250738585072014e-308" */
    format_c_locale(hex, sizeof hex, "%a", v);
    format_c_locale(dec, sizeof dec, decimal_fmt, v);
    if (signbit(v))
        snprintf(buf, 64, "(%s%s) /* %s */", hex, suffix, dec);
    else
        snprintf(buf, 64, "%s%s /* %s */", hex, suffix, dec);
    return buf;
}

char *clp_format_float(float v, char buf[64]) {
    return format_literal((double)v, "f", "%.9g", buf);
}

char *clp_format_double(double v, char buf[64]) {
    return format_literal(v, "", "%.17g", buf);
}
