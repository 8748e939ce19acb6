/* A JSON list of names (see json_list.h). */
#include "json_list.h"

#include <string.h>

bool json_list_holds(const json_t *list, const char *name) {
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item) {
        if (json_is_string(item) && !strcmp(json_string_value(item), name))
            return true;
    }
    return false;
}
