/* A JSON list of names, as suites and tolerance documents hold them. */
#ifndef CLPART_JSON_LIST_H
#define CLPART_JSON_LIST_H

#include <jansson.h>
#include <stdbool.h>

/* Whether the JSON array `list` (NULL or not an array: none) holds the string `name`. */
bool json_list_holds(const json_t *list, const char *name);

#endif
