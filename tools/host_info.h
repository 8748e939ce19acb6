/* The machine a measurement ran on, as bench.json records it beside each device: enough to
 * tell machines apart (the CPU model and count; the GPU and its driver are the device's). */
#ifndef CLPART_HOST_INFO_H
#define CLPART_HOST_INFO_H

#include <jansson.h>

/* {"hostname", "cpu": the CPU model of /proc/cpuinfo or "unknown", "cpus": the CPUs online}
 * (new object). */
json_t *host_info_json(void);

#endif
