// image.c: PNG files as plain pixels, for comparing screenshots. See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

#include <stdlib.h>
#include <string.h>

struct nw_image {
    cairo_surface_t *surface;   // owned, CAIRO_FORMAT_ARGB32
};

nw_image *nw_image_read_png(const char *path, char **error) {
    *error = NULL;
    cairo_surface_t *loaded = cairo_image_surface_create_from_png(path);
    cairo_status_t status = cairo_surface_status(loaded);
    if (status != CAIRO_STATUS_SUCCESS) {
        *error = strdup(cairo_status_to_string(status));
        cairo_surface_destroy(loaded);
        return NULL;
    }
    cairo_surface_t *surface = loaded;
    if (cairo_image_surface_get_format(loaded) != CAIRO_FORMAT_ARGB32) {
        // Grey, RGB and paletted files: painted onto 32-bit pixels.
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, cairo_image_surface_get_width(loaded),
                                             cairo_image_surface_get_height(loaded));
        cairo_t *cr = cairo_create(surface);
        cairo_set_source_surface(cr, loaded, 0, 0);
        cairo_paint(cr);
        cairo_destroy(cr);
        cairo_surface_destroy(loaded);
    }
    cairo_surface_flush(surface);
    nw_image *image = calloc(1, sizeof *image);
    image->surface = surface;
    return image;
}

nw_image *nw_image_new(int width, int height) {
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return NULL;
    }
    nw_image *image = calloc(1, sizeof *image);
    image->surface = surface;
    return image;
}

int nw_image_width(const nw_image *image) { return cairo_image_surface_get_width(image->surface); }
int nw_image_height(const nw_image *image) { return cairo_image_surface_get_height(image->surface); }
int nw_image_stride(const nw_image *image) { return cairo_image_surface_get_stride(image->surface); }
unsigned char *nw_image_data(nw_image *image) { return cairo_image_surface_get_data(image->surface); }

char *nw_image_write_png(nw_image *image, const char *path) {
    cairo_surface_mark_dirty(image->surface);
    cairo_status_t status = cairo_surface_write_to_png(image->surface, path);
    return status == CAIRO_STATUS_SUCCESS ? NULL : strdup(cairo_status_to_string(status));
}

void nw_image_free(nw_image *image) {
    if (!image) return;
    cairo_surface_destroy(image->surface);
    free(image);
}
