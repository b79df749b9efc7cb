/*
 * io.c
 *		Errors, reading files, filters and lines, and writing outputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* ---- errors ---------------------------------------------------------- */

void
tool_die(const char *fmt,...)
{
	va_list		ap;

	/* Whatever a command printed before the error still reaches stdout. */
	fflush(stdout);
	fputs(TOOL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_TROUBLE);
}

void
tool_usage_error(const char *command, const char *fmt,...)
{
	va_list		ap;
	const char *synopsis = tool_synopsis(command);

	fputs(TOOL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (synopsis != NULL)
		fprintf(stderr, "usage: %s\nTry '%s help %s' for more.\n",
				synopsis, TOOL_NAME, command);
	exit(EXIT_TROUBLE);
}

void *
tool_xmalloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		tool_die("out of memory (%zu bytes)", size);
	return p;
}

void *
tool_xrealloc(void *p, size_t size)
{
	void	   *q = realloc(p, size ? size : 1);

	if (q == NULL)
		tool_die("out of memory (%zu bytes)", size);
	return q;
}

const char *
tool_quote(const char *s, size_t len, char *buf, size_t bufsize)
{
	/* room for the worst character (\xNN), "..." and the closing quote */
	const size_t reserve = 4 + 3 + 2;
	size_t		o = 0;

	buf[o++] = '"';
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (o + reserve >= bufsize)
		{
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\')
		{
			buf[o++] = '\\';
			buf[o++] = (char) c;
		}
		else if (c < 0x20 || c == 0x7f)
			o += (size_t) snprintf(buf + o, bufsize - o, "\\x%02x", c);
		else
			buf[o++] = (char) c;	/* UTF-8 passes through to the terminal */
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* ---- input ----------------------------------------------------------- */

const char *
tool_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdin" : path;
}

uint8_t *
tool_read_file(const char *path, size_t *len)
{
	bool		is_stdin = strcmp(path, "-") == 0;
	FILE	   *f = is_stdin ? stdin : fopen(path, "rb");
	uint8_t    *buf;
	size_t		cap = 65536,
				n = 0;

	if (f == NULL)
		tool_die("%s: %s", path, strerror(errno));
	buf = tool_xmalloc(cap);
	for (;;)
	{
		size_t		got;

		if (n == cap)
		{
			if (cap > SIZE_MAX / 2)
				tool_die("%s: too large to read", tool_display_name(path));
			cap *= 2;
			buf = tool_xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		tool_die("%s: %s", tool_display_name(path), strerror(errno));
	if (!is_stdin)
		fclose(f);
	*len = n;
	return buf;
}

void
tool_load_filter(const char *path, tool_filter *filter)
{
	size_t		input_len;
	uint8_t    *input = tool_read_file(path, &input_len);
	int			rc;

	filter->path = path;
	rc = bloomfilter_parse(input, input_len, &filter->bytes, &filter->len);
	free(input);
	if (rc != BLOOMFILTER_OK)
		tool_die("%s: %s", tool_display_name(path), bloomfilter_strerror(rc));
}

void
tool_filter_info(const tool_filter *filter, bloomfilter_info *info)
{
	int			rc = bloomfilter_get_info(filter->bytes, filter->len, info);

	if (rc != BLOOMFILTER_OK)
		tool_die("%s: %s", tool_display_name(filter->path),
				 bloomfilter_strerror(rc));
}

void
tool_filter_free(tool_filter *filter)
{
	bloomfilter_free(filter->bytes);
	filter->bytes = NULL;
}

void
tool_load_filter_unchecked(const char *path, tool_filter *filter)
{
	size_t		whole;
	uint8_t    *input = tool_read_file(path, &whole);
	int			error = bloomfilter_read(input, whole, &filter->bytes, &filter->len);

	free(input);
	if (error != BLOOMFILTER_OK)
		tool_die("%s: %s", tool_display_name(path), bloomfilter_strerror(error));
	filter->path = path;
}

void
tool_lines_open(tool_lines *lines, const char *path)
{
	memset(lines, 0, sizeof(*lines));
	lines->name = tool_display_name(path);
	if (strcmp(path, "-") == 0)
		lines->file = stdin;
	else
	{
		lines->file = fopen(path, "rb");
		if (lines->file == NULL)
			tool_die("%s: %s", path, strerror(errno));
	}
}

ssize_t
tool_lines_next(tool_lines *lines, char **line)
{
	ssize_t		n;

	errno = 0;
	n = getline(&lines->buf, &lines->cap, lines->file);
	if (n < 0)
	{
		if (ferror(lines->file))
			tool_die("%s: %s", lines->name, strerror(errno ? errno : EIO));
		return -1;
	}
	lines->lineno++;
	if (n > 0 && lines->buf[n - 1] == '\n')
	{
		n--;
		if (n > 0 && lines->buf[n - 1] == '\r')
			n--;
	}
	lines->buf[n] = '\0';
	*line = lines->buf;
	return n;
}

void
tool_lines_close(tool_lines *lines)
{
	if (lines->file != stdin && lines->file != NULL)
		fclose(lines->file);
	free(lines->buf);
	lines->buf = NULL;
	lines->file = NULL;
}

/* ---- output ---------------------------------------------------------- */

void
tool_finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		tool_die("stdout: %s", strerror(errno ? errno : EIO));
}

static bool
write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 0)
	{
		ssize_t		w = write(fd, p, len);

		if (w < 0)
		{
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		len -= (size_t) w;
	}
	return true;
}

void
tool_write_output(const char *path, const void *data, size_t len, bool binary)
{
	char	   *tmp;
	int			fd;
	mode_t		mask;
	int			saved;

	if (path == NULL || strcmp(path, "-") == 0)
	{
		if (binary && isatty(STDOUT_FILENO))
			tool_die("refusing to write a filter's raw bytes to a terminal; "
					 "use -o FILE or --output-format text");
		if (fwrite(data, 1, len, stdout) != len)
			tool_die("stdout: %s", strerror(errno));
		tool_finish_stdout();
		return;
	}

	/*
	 * A temporary file beside OUT, renamed over it once complete: rename is
	 * atomic within a directory, so OUT is either the old file or the new.
	 */
	tmp = tool_xmalloc(strlen(path) + sizeof(".XXXXXX"));
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0)
		tool_die("%s: %s", path, strerror(errno));

	/* mkstemp makes the file 0600; OUT gets the mode a new file would get */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 ||
		!write_all(fd, data, len) ||
		close(fd) != 0)
	{
		saved = errno;
		unlink(tmp);
		tool_die("%s: %s", path, strerror(saved));
	}
	if (rename(tmp, path) != 0)
	{
		saved = errno;
		unlink(tmp);
		tool_die("%s: %s", path, strerror(saved));
	}
	free(tmp);
}

void
tool_write_filter(const char *path, tool_output_format format,
				  const uint8_t *filter, size_t len)
{
	char	   *text;
	size_t		textlen;
	int			rc;

	if (format == OUTPUT_RAW)
	{
		tool_write_output(path, filter, len, true);
		return;
	}
	rc = bloomfilter_to_text(filter, len, &text);
	if (rc != BLOOMFILTER_OK)
		tool_die("%s", bloomfilter_strerror(rc));
	textlen = strlen(text);
	/* the NUL's place takes the newline */
	text[textlen] = '\n';
	tool_write_output(path, text, textlen + 1, false);
	bloomfilter_free(text);
}
