/*
 * io.c
 *		Errors, reading files, filters and lines, and writing outputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
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

/*
 * Dies with what is wrong with a filter file; text that is not the text
 * form may still be raw bytes, which --raw reads.
 */
static void
filter_error(const char *path, int rc)
{
	tool_die("%s: %s%s", tool_display_name(path), bloomfilter_strerror(rc),
			 rc == BLOOMFILTER_ERR_TEXT ?
			 " If the file does hold a filter's raw bytes, --raw reads it as they are." : "");
}

/*
 * A filter file read into *filter: with raw, the file's bytes as they are
 * (validated when checked); else the text form or raw bytes by
 * bloomfilter_parse's rule, which validates, or bloomfilter_read's, which
 * does not.
 */
static void
load_filter(const char *path, bool raw, bool checked, tool_filter *filter)
{
	size_t		input_len;
	uint8_t    *input = tool_read_file(path, &input_len);
	int			rc = BLOOMFILTER_OK;

	filter->path = path;
	filter->read_raw = raw;
	if (raw)
	{
		/* the file's bytes are the filter: this allocation is kept */
		if (checked)
			rc = bloomfilter_validate(input, input_len);
		filter->bytes = input;
		filter->len = input_len;
	}
	else
	{
		rc = checked ?
			bloomfilter_parse(input, input_len, &filter->bytes, &filter->len) :
			bloomfilter_read(input, input_len, &filter->bytes, &filter->len);
		free(input);
	}
	if (rc != BLOOMFILTER_OK)
		filter_error(path, rc);
}

void
tool_load_filter(const char *path, bool raw, tool_filter *filter)
{
	load_filter(path, raw, true, filter);
}

void
tool_load_filter_unchecked(const char *path, bool raw, tool_filter *filter)
{
	load_filter(path, raw, false, filter);
}

void
tool_filter_info(const tool_filter *filter, bool measure,
				 bloomfilter_info *info)
{
	int			rc = measure ?
		bloomfilter_get_info(filter->bytes, filter->len, info) :
		bloomfilter_get_info_fast(filter->bytes, filter->len, info);

	if (rc != BLOOMFILTER_OK)
		tool_die("%s: %s", tool_display_name(filter->path),
				 bloomfilter_strerror(rc));
}

void
tool_filter_free(tool_filter *filter)
{
	if (filter->read_raw)
		free(filter->bytes);
	else
		bloomfilter_free(filter->bytes);
	filter->bytes = NULL;
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

/*
 * What OUT is now decides how it may be replaced.  Only a regular file (or
 * nothing) is replaced: renaming over a symbolic link replaces the link,
 * not its target; over a device, a FIFO or a socket it would turn a special
 * file into a plain one (as root, /dev/full); a directory cannot be.  A
 * regular file with other hard links is refused too, since a rename would
 * leave them holding the old bytes while OUT alone gets the new.
 */
static const char *
special_file_kind(mode_t mode)
{
	static const struct
	{
		mode_t		type;
		const char *kind;
	}			kinds[] = {
		{S_IFLNK, "a symbolic link"}, {S_IFDIR, "a directory"},
		{S_IFCHR, "a character device"}, {S_IFBLK, "a block device"},
		{S_IFIFO, "a FIFO"}, {S_IFSOCK, "a socket"},
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((mode & S_IFMT) == kinds[i].type)
			return kinds[i].kind;
	return "not a regular file";
}

/* The directory that holds path, for its fsync after the rename. */
static char *
directory_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char	   *dir;

	if (slash == NULL)
		return strcpy(tool_xmalloc(2), ".");
	if (slash == path)
		return strcpy(tool_xmalloc(2), "/");
	dir = tool_xmalloc((size_t) (slash - path) + 1);
	memcpy(dir, path, (size_t) (slash - path));
	dir[slash - path] = '\0';
	return dir;
}

/* Removes the temporary file and ends with the error. */
static void
discard_and_die(char *tmp, const char *path, const char *what, int error)
		__attribute__((noreturn));

static void
discard_and_die(char *tmp, const char *path, const char *what, int error)
{
	unlink(tmp);
	free(tmp);
	tool_die("%s: %s: %s", path, what, strerror(error));
}

void
tool_write_output(const char *path, const void *data, size_t len, bool binary)
{
	struct stat old;
	bool		replacing;
	char	   *tmp;
	char	   *dir;
	int			fd;

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

	/* lstat: a symbolic link is judged as itself, and nothing is opened */
	if (lstat(path, &old) == 0)
	{
		if (!S_ISREG(old.st_mode))
			tool_die("%s: refusing to write: it is %s, not a regular file "
					 "(-o writes regular files only; use -o - and redirect)",
					 path, special_file_kind(old.st_mode));
		if (old.st_nlink > 1)
			tool_die("%s: refusing to replace a file with %ju hard links: "
					 "the others would keep the old bytes; remove it first "
					 "or write elsewhere",
					 path, (uintmax_t) old.st_nlink);
		replacing = true;
	}
	else if (errno == ENOENT)
		replacing = false;
	else
		tool_die("%s: %s", path, strerror(errno));

	/*
	 * A temporary file beside OUT, renamed over it once complete: rename is
	 * atomic within a directory, so OUT is either the old file or the new.
	 * mkstemp makes it 0600, which shows it to nobody but its owner; it
	 * takes OUT's owner and mode, or a new file's mode, before a byte of the
	 * filter is in it.
	 */
	tmp = tool_xmalloc(strlen(path) + sizeof(".XXXXXX"));
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0)
	{
		int			error = errno;

		free(tmp);
		tool_die("%s: cannot create a temporary file beside it: %s", path,
				 strerror(error));
	}
	if (replacing)
	{
		struct stat mine;

		/* chown first: it may clear set-id bits that fchmod then restores */
		if (fstat(fd, &mine) != 0)
			discard_and_die(tmp, path, "fstat", errno);
		if ((mine.st_uid != old.st_uid || mine.st_gid != old.st_gid) &&
			fchown(fd, old.st_uid, old.st_gid) != 0)
		{
			int			error = errno;

			close(fd);
			unlink(tmp);
			free(tmp);
			tool_die("%s: refusing to replace it: its owner (uid %ju, gid %ju) "
					 "could not be kept: %s", path, (uintmax_t) old.st_uid,
					 (uintmax_t) old.st_gid, strerror(error));
		}
		if (fchmod(fd, old.st_mode & 07777) != 0)
			discard_and_die(tmp, path, "keeping its mode", errno);
	}
	else
	{
		mode_t		mask = umask(0);

		umask(mask);
		if (fchmod(fd, 0666 & ~mask) != 0)
			discard_and_die(tmp, path, "setting its mode", errno);
	}
	if (!write_all(fd, data, len))
		discard_and_die(tmp, path, "writing", errno);
	/* on disk before the rename, so a crash leaves the old file or the new */
	if (fsync(fd) != 0)
		discard_and_die(tmp, path, "fsync", errno);
	if (close(fd) != 0)
		discard_and_die(tmp, path, "writing", errno);
	if (rename(tmp, path) != 0)
		discard_and_die(tmp, path, "renaming the temporary file over it", errno);
	free(tmp);

	/* the rename itself made durable; a directory that refuses is no error */
	dir = directory_of(path);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0)
	{
		(void) fsync(fd);
		close(fd);
	}
	free(dir);
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
