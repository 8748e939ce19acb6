/* The portability table that clpart bench writes for its devices and clpart report for
 * several benches merged: per workload and device, the architectural efficiency (bytes/s
 * over the device's bandwidth probe, or flop/s over its FP32 FMA probe, whichever is larger) and
 * the application efficiency (the default options' rate over the best variant's), and
 * Pennycook's Φ of each over the devices.
 *
 * The document: {"devices": [{identity..., "probe": {...}}, ...], "workloads": [{"name",
 * "unit", "results": [{"device": index into devices, "status", "reason", "default": record,
 * "best": record}, ...]}, ...]}, records as sweep_run_options writes them. */
#ifndef CLPART_PORTABILITY_H
#define CLPART_PORTABILITY_H

#include "internal.h"

#include <jansson.h>

/* Adds each result's efficiencies, each workload's Φ over the devices and the overall Φ
 * (over the devices, of each device's efficiencies averaged over the workloads). */
void portability_compute(json_t *doc);
/* A device probe's arrays against its cache, "128 MiB arrays, cache 32 MiB: beyond cache". */
void portability_probe_arrays(const json_t *probe, char *out, size_t size);
/* DIR/STEM.json (the document), DIR/STEM.md (the tables) and DIR/STEM.png (the chart, when
 * there are workloads and gnuplot: *charted says whether it was drawn). */
clp_status portability_write(const json_t *doc, const char *dir, const char *stem,
                             const char *title, bool *charted, clp_error *err);

#endif
