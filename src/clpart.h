/* clpart: particle simulations on any OpenCL device. The public API in two parts: the
 * toolkit (clpart_toolkit.h: errors, logging, devices, options, source assembly, the binary
 * cache, workers, the grid) and the application built on it (clpart_app.h: models, runs,
 * probes, split runs, the self-test). */
#ifndef CLPART_H
#define CLPART_H

#include "clpart_app.h"

#endif
