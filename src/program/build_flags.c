/* Build flags for a device and a set of options: -cl-std from the device's OpenCL C version
 * (never from its OpenCL version: NVIDIA reports OpenCL 3.0 but compiles OpenCL C 1.2),
 * then each option's flag from the schema, vendor flags only where the device lists the
 * extension that allows them. */
#include "options/options_schema.h"

#include <stdio.h>
#include <string.h>

/* clpart's device code is OpenCL C 1.2: ask for that, or for less where the device has less. */
static clp_status std_flag(const clp_device_info *dev, clp_strbuf *sb, clp_error *err) {
    int major = 0, minor = 0;
    if (sscanf(dev->opencl_c_version, "OpenCL C %d.%d", &major, &minor) != 2)
        return CLP_FAIL(err, CLP_CL, "device '%s': cannot read its OpenCL C version from \"%s\"",
                        dev->name, dev->opencl_c_version);
    if (major > 1 || (major == 1 && minor > 2)) {
        major = 1;
        minor = 2;
    }
    clp__sb_appendf(sb, "-cl-std=CL%d.%d", major, minor);
    return CLP_OK;
}

static void option_flag(clp_strbuf *sb, const clp__option_def *def, const clp_option_value *v,
                        const clp_device_info *dev) {
    bool on = def->type == CLP_OPT_BOOL ? v->b : def->type == CLP_OPT_INT && v->i != 0;
    if (!def->flag || !on)
        return;
    if (def->flag_extension && !clp_device_has_extension(dev, def->flag_extension)) {
        CLP_WARN(CLP_LOG_BUILD, "option %s is left out on device '%s': its flag %s needs %s",
                 def->name, dev->name, def->flag, def->flag_extension);
        return;
    }
    clp__sb_append(sb, " ");
    if (def->type == CLP_OPT_INT)
        clp__sb_appendf(sb, def->flag, v->i);
    else
        clp__sb_append(sb, def->flag);
}

clp_status clp_build_flags(const clp_device_info *dev, const clp_options *opts, char **out,
                           clp_error *err) {
    clp_strbuf sb = {0};
    clp_status st = std_flag(dev, &sb, err);
    if (st != CLP_OK) {
        clp__sb_free(&sb);
        return st;
    }
    const clp_schema *schema = clp_options_schema(opts);
    for (size_t i = 0; i < clp_schema_count(schema); i++)
        option_flag(&sb, clp__schema_option(schema, i), clp__options_value_at(opts, i), dev);
    char *flags = clp__sb_take(&sb);
    if (!flags)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    *out = flags;
    return CLP_OK;
}
