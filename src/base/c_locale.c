/* Numbers read and written the same whatever the process locale: the C numeric locale, made
 * once whichever thread (a sweep runs one per device) needs it first, taken by a thread for the
 * span of a call. */
#include "internal.h"

#include <pthread.h>

static locale_t c_numeric;

static void make_c_numeric(void) {
    c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

locale_t clp__c_numeric_begin(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_c_numeric);
    return c_numeric ? uselocale(c_numeric) : (locale_t)0;
}

void clp__c_numeric_end(locale_t previous) {
    if (previous)
        uselocale(previous);
}
