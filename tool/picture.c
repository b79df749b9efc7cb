/*
 * picture.c
 *		bloomfilter picture: an SVG map of how full the bit array is.
 *
 * A filter answers well while about half its bits are set; a filter given
 * far more keys than it was sized for is nearly all ones and answers
 * "may contain" to almost everything.  Figures say so too, but a picture
 * shows it at a glance, and shows uneven regions that an overall ratio
 * hides (a filter assembled from parts, a corrupted stretch).
 *
 * The output depends on the filter alone (no dates, no locale), so that
 * pictures can be compared and kept under version control.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

typedef struct strbuf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} strbuf;

static void
sb_printf(strbuf *sb, const char *fmt,...)
	__attribute__((format(printf, 2, 3)));

static void
sb_printf(strbuf *sb, const char *fmt,...)
{
	for (;;)
	{
		va_list		ap;
		int			n;

		va_start(ap, fmt);
		n = vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			tool_die("picture: cannot format the SVG");
		if ((size_t) n < sb->cap - sb->len)
		{
			sb->len += (size_t) n;
			return;
		}
		sb->cap = sb->cap * 2 + (size_t) n + 1;
		sb->data = tool_xrealloc(sb->data, sb->cap);
	}
}

/* Text for XML: markup characters escaped, bytes outside ASCII replaced,
 * since a file name need not be valid UTF-8 and the SVG must stay valid. */
static void
sb_xml_text(strbuf *sb, const char *s)
{
	static const struct
	{
		char		c;
		const char *entity;
	}			entities[] = {
		{'<', "&lt;"}, {'>', "&gt;"}, {'&', "&amp;"}, {'"', "&quot;"},
	};

	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;
		const char *entity = NULL;

		for (size_t i = 0; i < sizeof(entities) / sizeof(entities[0]); i++)
			if (entities[i].c == *s)
				entity = entities[i].entity;
		if (entity != NULL)
			sb_printf(sb, "%s", entity);
		else
			sb_printf(sb, "%c", (c < 0x20 || c >= 0x7f) ? '?' : (char) c);
	}
}

/* Set bits among bits [from, to) of the array; bit b is bit b % 8 of byte b / 8. */
static uint64_t
count_set(const uint8_t *bytes, uint64_t from, uint64_t to)
{
	uint64_t	n = 0;

	while (from < to && from % 8 != 0)
	{
		n += (bytes[from / 8] >> (from % 8)) & 1;
		from++;
	}
	while (to - from >= 8)
	{
		n += (uint64_t) __builtin_popcount(bytes[from / 8]);
		from += 8;
	}
	while (from < to)
	{
		n += (bytes[from / 8] >> (from % 8)) & 1;
		from++;
	}
	return n;
}

/*
 * The shade of a fill ratio: pale at 0, blue at the ideal 0.5, dark red at
 * 1, so that too empty and too full look different from right.  The
 * legend's gradient has the same three stops, so cells match it.
 */
static const unsigned char shade_stops[3][3] = {
	{247, 251, 255},
	{33, 113, 181},
	{153, 0, 13},
};

static void
shade(double t, char out[8])
{
	const unsigned char *a,
			   *b;
	double		f;
	int			c[3];

	if (!(t >= 0))
		t = 0;
	if (t > 1)
		t = 1;
	if (t <= 0.5)
	{
		a = shade_stops[0];
		b = shade_stops[1];
		f = t / 0.5;
	}
	else
	{
		a = shade_stops[1];
		b = shade_stops[2];
		f = (t - 0.5) / 0.5;
	}
	for (int i = 0; i < 3; i++)
		c[i] = (int) lround(a[i] + (b[i] - a[i]) * f);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

int
cmd_picture(int argc, char **argv)
{
	tool_args	args;
	tool_filter filter;
	bloomfilter_info info;
	strbuf		sb = {0};
	uint64_t	bits,
				regions,
				cols,
				rows;
	double		width,
				margin = 16,
				cell,
				grid_top = 82,
				legend_top,
				bar_w,
				height;
	char		color[8];
	char		estimate[64];

	tool_parse_args(argc, argv, OPT_WIDTH | OPT_REGIONS | OPT_OUTPUT | OPT_RAW, &args);
	if (args.npositional != 1)
		tool_usage_error("picture", "picture takes one FILTER");

	tool_load_filter(args.positional[0], args.raw, &filter);
	/* the legend's estimates are bloom_info's, as the pictures in doc/img show */
	tool_filter_info(&filter, true, &info);

	bits = info.bits;
	/* a region of no bits would have no fill to show */
	regions = (uint64_t) args.regions < bits ? (uint64_t) args.regions : bits;
	cols = (uint64_t) ceil(sqrt((double) regions));
	while (cols * cols < regions)
		cols++;
	while (cols > 1 && (cols - 1) * (cols - 1) >= regions)
		cols--;
	rows = (regions + cols - 1) / cols;

	width = (double) args.width;
	cell = (width - 2 * margin) / (double) cols;
	legend_top = grid_top + cell * (double) rows + 24;
	bar_w = width - 2 * margin;
	height = legend_top + 16 + 52;

	if (isinf(info.estimated_keys))
		snprintf(estimate, sizeof(estimate), "saturated (estimated keys: Infinity)");
	else
		snprintf(estimate, sizeof(estimate), "about %.0f keys", info.estimated_keys);

	sb.cap = 4096;
	sb.data = tool_xmalloc(sb.cap);
	sb.data[0] = '\0';

	sb_printf(&sb,
			  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
			  " viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
			  width, ceil(height), width, ceil(height));
	sb_printf(&sb, "<title>bloom filter ");
	sb_xml_text(&sb, tool_display_name(filter.path));
	sb_printf(&sb, ": %llu bits, k=%u, %.1f%% full, %s</title>\n",
			  (unsigned long long) bits, info.k, info.fill_ratio * 100, estimate);
	sb_printf(&sb,
			  "<desc>Each cell is one of %llu regions of the bit array, in order"
			  " left to right, top to bottom, shaded by the fraction of its bits"
			  " set.</desc>\n",
			  (unsigned long long) regions);
	sb_printf(&sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");

	sb_printf(&sb, "<text x=\"%.0f\" y=\"24\" font-size=\"15\" font-weight=\"bold\">",
			  margin);
	sb_xml_text(&sb, tool_display_name(filter.path));
	sb_printf(&sb, ": %llu bits, k=%u</text>\n", (unsigned long long) bits, info.k);
	/* two lines: one would run past the right edge of a narrow picture */
	sb_printf(&sb,
			  "<text x=\"%.0f\" y=\"46\" font-size=\"13\">%llu of %llu bits set"
			  " (%.1f%% full)</text>\n",
			  margin, (unsigned long long) info.bits_set,
			  (unsigned long long) bits, info.fill_ratio * 100);
	sb_printf(&sb,
			  "<text x=\"%.0f\" y=\"64\" font-size=\"13\">%s, false positive rate %.3g%%</text>\n",
			  margin, estimate, info.false_positive_rate * 100);

	/* the grid */
	sb_printf(&sb, "<g id=\"regions\" stroke=\"white\" stroke-width=\"%s\">\n",
			  cell >= 6 ? "1" : "0");
	for (uint64_t i = 0; i < regions; i++)
	{
		/* floor(i * bits / regions), without overflowing the product */
		uint64_t	from = (bits / regions) * i + (bits % regions) * i / regions;
		uint64_t	to = (bits / regions) * (i + 1) +
			(bits % regions) * (i + 1) / regions;
		uint64_t	set = count_set(filter.bytes, from, to);
		double		fill = (double) set / (double) (to - from);

		shade(fill, color);
		sb_printf(&sb,
				  "<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\""
				  " height=\"%.2f\" fill=\"%s\"><title>region %llu: bits %llu-%llu,"
				  " %llu of %llu set (%.1f%%)</title></rect>\n",
				  margin + cell * (double) (i % cols),
				  grid_top + cell * (double) (i / cols),
				  cell, cell, color,
				  (unsigned long long) i, (unsigned long long) from,
				  (unsigned long long) (to - 1), (unsigned long long) set,
				  (unsigned long long) (to - from), fill * 100);
	}
	sb_printf(&sb, "</g>\n");

	/* the legend: the shade scale, the ideal half, and this filter's fill */
	sb_printf(&sb,
			  "<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">\n");
	for (int s = 0; s < 3; s++)
		sb_printf(&sb, "<stop offset=\"%d%%\" stop-color=\"#%02x%02x%02x\"/>\n",
				  s * 50, shade_stops[s][0], shade_stops[s][1], shade_stops[s][2]);
	sb_printf(&sb, "</linearGradient></defs>\n");
	sb_printf(&sb, "<g id=\"legend\" font-size=\"11\">\n");
	sb_printf(&sb,
			  "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"16\""
			  " fill=\"url(#scale)\" stroke=\"#444\" stroke-width=\"0.5\"/>\n",
			  margin, legend_top, bar_w);
	for (int t = 0; t <= 4; t++)
	{
		double		x = margin + bar_w * t / 4;
		const char *anchor = t == 0 ? "start" : t == 4 ? "end" : "middle";

		sb_printf(&sb,
				  "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n",
				  x, legend_top + 16, x, legend_top + 20);
		sb_printf(&sb,
				  "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">%d%%%s</text>\n",
				  x, legend_top + 31, anchor, t * 25,
				  t == 2 ? " set: ideal" : "");
	}
	{
		double		x = margin + bar_w * (info.fill_ratio > 1 ? 1 : info.fill_ratio);
		const char *anchor = info.fill_ratio < 0.15 ? "start" :
			info.fill_ratio > 0.85 ? "end" : "middle";

		sb_printf(&sb,
				  "<path d=\"M %.2f %.2f l -5 -7 l 10 0 z\" fill=\"black\"/>\n",
				  x, legend_top);
		sb_printf(&sb,
				  "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">this filter: %.1f%%</text>\n",
				  x, legend_top + 47, anchor, info.fill_ratio * 100);
	}
	sb_printf(&sb, "</g>\n</svg>\n");

	tool_write_output(args.output, sb.data, sb.len, false);
	free(sb.data);
	tool_filter_free(&filter);
	free(args.positional);
	return 0;
}
