/* pictures.c DIR -- the renderer chapter's pictures, made when the book is built:
 * the CPU reference (tangled/renderer/render_ref.h) renders every scene
 * at SIDE x SIDE and libpng writes DIR/<scene>.png; DIR/heat.png is the
 * number of circles whose box meets each 16 x 16 tile of biglittle at
 * 1024 x 1024, one tile a pixel, scaled up four times; DIR/heat.tex names
 * the largest and smallest counts for the caption.  Plain C, no CUDA. */
#include <png.h>
#include <stdio.h>
#include "renderer/render_ref.h"

#define SIDE 192

static int write_png(const char *path, const unsigned char *rgb, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                              NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * w * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f);
}

static unsigned char byte(float v)
{
    return (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : v * 255.0f + 0.5f);
}

/* Black, red, yellow, white as t goes from 0 to 1. */
static void heat_colour(double t, unsigned char *p)
{
    const double r = 3 * t, g = 3 * t - 1, b = 3 * t - 2;
    p[0] = byte((float)r);
    p[1] = byte((float)g);
    p[2] = byte((float)b);
}

static int heat(const char *dir)
{
    enum { W = 1024, TILES = W / RENDER_TILE, SCALE = 4, S = TILES * SCALE };
    static unsigned count[TILES * TILES];
    static unsigned char rgb[S * S * 3];
    scene sc;
    if (scene_make("biglittle", &sc)) return -1;
    for (size_t k = 0; k < sc.n; k++) {
        const pixbox b = sh_box(&sc.c[k], W, W);
        for (int ty = 0; ty < TILES; ty++)
            for (int tx = 0; tx < TILES; tx++)
                count[ty * TILES + tx] += (unsigned)sh_box_meets(
                    b, tx * RENDER_TILE, ty * RENDER_TILE,
                    (tx + 1) * RENDER_TILE, (ty + 1) * RENDER_TILE);
    }
    unsigned lo = count[0], hi = count[0];
    for (int i = 0; i < TILES * TILES; i++) {
        if (count[i] < lo) lo = count[i];
        if (count[i] > hi) hi = count[i];
    }
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++)
            heat_colour((double)count[(y / SCALE) * TILES + x / SCALE] / hi,
                        &rgb[((size_t)y * S + x) * 3]);
    char path[1024];
    snprintf(path, sizeof path, "%s/heat.png", dir);
    if (write_png(path, rgb, S, S)) return -1;
    snprintf(path, sizeof path, "%s/heat.tex", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "\\def\\renderheatlo{%u}\\def\\renderheathi{%u}\n", lo, hi);
    scene_free(&sc);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pictures DIR\n");
        return 2;
    }
    static rgba img[SIDE * SIDE];
    static unsigned char rgb[SIDE * SIDE * 3];
    for (int k = 0; k < SCENE_COUNT; k++) {
        scene sc;
        char path[1024];
        if (scene_make(scene_names[k], &sc)) return 1;
        render_ref(sc.c, sc.n, sc.mode, sc.background, img, SIDE, SIDE);
        for (int i = 0; i < SIDE * SIDE; i++) {
            rgb[3 * i] = byte(img[i].r);
            rgb[3 * i + 1] = byte(img[i].g);
            rgb[3 * i + 2] = byte(img[i].b);
        }
        snprintf(path, sizeof path, "%s/%s.png", argv[1], sc.name);
        if (write_png(path, rgb, SIDE, SIDE)) {
            fprintf(stderr, "pictures: cannot write %s\n", path);
            return 1;
        }
        scene_free(&sc);
    }
    if (heat(argv[1])) {
        fprintf(stderr, "pictures: cannot write the heat map\n");
        return 1;
    }
    return 0;
}
