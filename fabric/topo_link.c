/*
 * topo_link.c - the link annotation of an ibnetdiscover port line: the
 * comment of "[1] "H-..."[1](...)  # "hca-0" lid 3 4xQDR" says at which
 * width and speed that port's link runs.  ibsim applies it to the port's
 * enables (the link then trains to the best mode both ends enable), and
 * so does pzfabric:
 *
 *   width  1x: 1x    2x: 2x    4x: 1x|4x    8x: 8x    12x: 1x|4x|12x
 *   speed  SDR: SDR  DDR: SDR|DDR  QDR (and FDR10): SDR|DDR|QDR, no
 *          extended speed; FDR, EDR, HDR, NDR: SDR|DDR|QDR and the
 *          extended speeds up to the named one (FDR; FDR|EDR; ...)
 *
 * The annotation is the text from the first "lid" after the comment's last
 * '"': "lid N WxSPEED".  One that does not read so, or names an unknown
 * width or speed, sets nothing for that part (as ibsim, which warns).
 */
#include <stdio.h>
#include <string.h>

#include "topo_internal.h"

/* LinkWidthEnabled bits of a width annotation "Nx"; 0 if unknown. */
static uint8_t topo_link_width(int lanes)
{
    switch (lanes) {
    case 1:
        return 0x01;
    case 2:
        return 0x10;
    case 4:
        return 0x03;
    case 8:
        return 0x04;
    case 12:
        return 0x0B;
    default:
        return 0;
    }
}

/* One speed name and the enables it stands for. */
struct topo_link_speed {
    const char *name;
    uint8_t speed;     /* LinkSpeedEnabled */
    uint8_t speed_ext; /* LinkSpeedExtEnabled */
};

static const struct topo_link_speed topo_link_speeds[] = {
    {"SDR", 0x1, 0x0}, {"DDR", 0x3, 0x0}, {"QDR", 0x7, 0x0}, {"FDR10", 0x7, 0x0},
    {"FDR", 0x7, 0x1}, {"EDR", 0x7, 0x3}, {"HDR", 0x7, 0x7}, {"NDR", 0x7, 0xF},
};

/* The start of the annotation in comment ("lid ..." after the last '"'), or NULL. */
static const char *topo_link_find(const char *comment)
{
    const char *quote = strrchr(comment, '"');

    return strstr(quote ? quote + 1 : comment, "lid");
}

bool topo_link_annotation(const char *comment, struct topo_port *port)
{
    const char *a = topo_link_find(comment);
    char speed[10];
    int lid, lanes;
    uint8_t width;
    bool applied = false;

    if (!a || sscanf(a, "lid %d %dx%9s", &lid, &lanes, speed) != 3)
        return false;
    width = topo_link_width(lanes);
    if (width) {
        port->width = width;
        applied = true;
    }
    for (size_t i = 0; i < sizeof(topo_link_speeds) / sizeof(topo_link_speeds[0]); i++) {
        if (strcmp(speed, topo_link_speeds[i].name))
            continue;
        port->speed = topo_link_speeds[i].speed;
        port->speed_ext = topo_link_speeds[i].speed_ext;
        port->speed_ext_set = true;
        applied = true;
        break;
    }
    return applied;
}
