/* The portability table that clpart bench writes for its devices and clpart report for
 * several benches merged: per workload and device, the architectural efficiency (bytes/s
 * over the device's bandwidth probe, or flop/s over its FP32 FMA probe, whichever is larger) and
 * the application efficiency (the default options' rate over the best variant's), with
 * Pennycook's Φ and the arithmetic mean of each over the devices.
 *
 * The document: {"suite": {"name", "hash"}, "clpart", "devices": [{identity..., "host",
 * "probe": {...}}, ...], "workloads": [{"name", "definition", "definition_hash", "results":
 * [{"device": index into devices, "status", "reason", "default": record, "best": record},
 * ...]}, ...]}, records as sweep_run_options writes them; a report adds "sources": [{"file",
 * "clpart"}, ...] and each device's "source". */
#ifndef CLPART_PORTABILITY_H
#define CLPART_PORTABILITY_H

#include "internal.h"

#include <jansson.h>

/* Adds each ok result's efficiencies, with "architectural_efficiency_range" and
 * "application_efficiency_range" ([least, most]) where its records hold the spread of their
 * timed runs; each workload's "phi" and "mean" (each {"architectural", "application"}) over
 * "over_devices", the devices that ran it (a failed run counts 0); each device's "efficiency",
 * its mean over the workloads that every device ran ("common_workloads" of them; the others
 * are named in "left_out"); and the overall "phi" and "mean" over the devices of those
 * (nulls when no workload ran on every device). */
clp_status portability_compute(json_t *doc, clp_error *err);
/* "Φ architectural A, application B (over N workloads)", or why there is none. */
void portability_phi_text(const json_t *doc, char *out, size_t size);
/* A device probe's arrays against its cache, "128 MiB arrays, cache 32 MiB: beyond cache". */
void portability_probe_arrays(const json_t *probe, char *out, size_t size);
/* DIR/STEM.json (the document), DIR/STEM.md (the tables), and with gnuplot DIR/STEM.png (the
 * efficiencies, when there are workloads) and DIR/STEM-cascade.png (the cascade, when a
 * workload ran on every device), each from a .dat and a .gp beside it; `charts` gets
 * ", DIR/STEM.png, DIR/STEM-cascade.png" for those drawn, for a done line. */
clp_status portability_write(const json_t *doc, const char *dir, const char *stem,
                             const char *title, char *charts, size_t size, clp_error *err);

#endif
