/*
 * bloom_shared_cache.c
 *		Read a big stored filter from its table once per server, not once
 *		per backend.
 *
 * The session cache (bloom_stored_cache.c) reads a stored filter once per
 * backend.  Citus runs a query's shard tasks on each worker over several
 * connections and, by default, closes all but one of them after the query,
 * so each query meets fresh backends, and each read the filter from its
 * table again: some 6,000 TOAST chunks, fetched one index entry at a time,
 * for 12.5 MB.  So the first backend to read a filter also writes it to a
 * file, and any backend whose session cache misses reads that file instead:
 * one sequential read of bytes that are usually in the kernel's page cache,
 * which frees them under memory pressure like any file's.  A file is used
 * only after the same validation the session cache makes (chunk 0's tuple,
 * looked up now, is the one the file was made from: same TID, raw xmin and
 * bytes, and the same TOAST pointer), for the same reasons.
 *
 * The files live in pg_stat_tmp/bloomfilter, a directory of the data
 * directory that base backups, pg_rewind and pg_upgrade leave out, and are
 * named by the server's start time, database and TOAST identity.  A file is
 * used only by the server start that wrote it: whatever a crash, a restart
 * or pg_resetwal did to the counters the validation relies on, an older
 * file is never read, and the next write deletes it.  A file is written
 * under a temporary name and renamed when complete, so a reader sees a
 * whole file or none.  Its head holds a CRC-32C of the head and chunk 0,
 * checked on every read, and one of the filter, checked where the cluster
 * has data checksums (see bloom_shared_cache_map).
 *
 * Writers make room first: they delete the least recently used files (a
 * read touches its file's modification time) until the files fit
 * bloomfilter.shared_filter_cache.  Writers that race may each find room,
 * so the files can pass the bound by what is being written at that moment.
 * Nothing here is ever an error: a file that cannot be read or written is
 * skipped, and the filter is read from its table as without the cache.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/timestamp.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_shared_cache.h"

#define SHARED_DIR		PG_STAT_TMP_DIR "/bloomfilter"

/* Names this layout of the file: a reader skips any other. */
#define SHARED_MAGIC	"bfcache1"

/* Bytes a read or write call moves at most, so that a big one stays short. */
#define IO_PIECE_BYTES	((Size) 1 << 20)

int			bloom_shared_cache_kb = 256 << 10;

/*
 * The file's head; then chunk 0's bytes, then zeros up to filter_offset(),
 * then the filter's.
 */
typedef struct SharedFileHeader
{
	char		magic[8];
	uint32		header_bytes;	/* sizeof(SharedFileHeader) */
	uint32		chunk0_bytes;
	uint32		filter_bytes;
	Oid			database;
	TimestampTz server_start;
	struct varatt_external pointer;
	ItemPointerData tid;
	TransactionId xmin;
	pg_crc32c	head_crc;		/* of the head (both CRCs as 0) and chunk 0 */
	pg_crc32c	filter_crc;		/* of the filter; 0 without data checksums */
} SharedFileHeader;

typedef struct SharedFile
{
	char		name[MAXPGPATH];
	off_t		bytes;
	time_t		used;
} SharedFile;

static Size
bound_bytes(void)
{
	return (Size) bloom_shared_cache_kb * 1024;
}

/* The prefix of this server start's file names, as "<start>-". */
static void
start_prefix(char *out, size_t len)
{
	snprintf(out, len, "%016llx-", (unsigned long long) PgStartTime);
}

static void
file_path(const BloomStoredIdentity *id, char *out, size_t len)
{
	char		prefix[32];

	start_prefix(prefix, sizeof(prefix));
	snprintf(out, len, "%s/%s%u-%u-%u", SHARED_DIR, prefix, MyDatabaseId,
			 id->pointer.va_toastrelid, id->pointer.va_valueid);
}

static void
fill_header(SharedFileHeader *header, const BloomStoredIdentity *id, Size filter_bytes)
{
	/* zeroed whole: the padding is in the checksum */
	MemSet(header, 0, sizeof(*header));
	memcpy(header->magic, SHARED_MAGIC, sizeof(header->magic));
	header->header_bytes = sizeof(*header);
	header->chunk0_bytes = VARSIZE(id->chunk0);
	header->filter_bytes = (uint32) filter_bytes;
	header->database = MyDatabaseId;
	header->server_start = PgStartTime;
	header->pointer = id->pointer;
	header->tid = id->tid;
	header->xmin = id->xmin;
}

static pg_crc32c
head_crc(const SharedFileHeader *header, const void *chunk0)
{
	SharedFileHeader zeroed = *header;
	pg_crc32c	crc;

	zeroed.head_crc = 0;
	zeroed.filter_crc = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &zeroed, sizeof(zeroed));
	COMP_CRC32C(crc, chunk0, header->chunk0_bytes);
	FIN_CRC32C(crc);
	return crc;
}

static pg_crc32c
filter_crc(const void *filter, Size bytes)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, filter, bytes);
	FIN_CRC32C(crc);
	return crc;
}

static bool
read_fully(int fd, void *buf, Size len)
{
	char	   *p = buf;

	while (len > 0)
	{
		ssize_t		got = read(fd, p, Min(len, IO_PIECE_BYTES));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		len -= got;
	}
	return true;
}

static bool
write_fully(int fd, const void *buf, Size len)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		put = write(fd, p, Min(len, IO_PIECE_BYTES));

		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
		{
			if (put == 0)
				errno = ENOSPC;
			return false;
		}
		p += put;
		len -= put;
	}
	return true;
}

/* Where the filter starts: after the head and chunk 0, aligned for a varlena. */
static Size
filter_offset(uint32 chunk0_bytes)
{
	return MAXALIGN(sizeof(SharedFileHeader) + chunk0_bytes);
}

typedef struct SharedMapping
{
	void	   *base;
	Size		bytes;
} SharedMapping;

static void
unmap_file(void *arg)
{
	SharedMapping *mapping = (SharedMapping *) arg;

	(void) munmap(mapping->base, mapping->bytes);
}

static void
remove_damaged(const char *path)
{
	ereport(LOG,
			(errmsg("bloomfilter: removed the damaged filter cache file \"%s\"", path),
			 errdetail("Its bytes do not match its checksum or its size; the filter is read from its table instead.")));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not remove file \"%s\": %m", path)));
}

const bytea *
bloom_shared_cache_map(const BloomStoredIdentity *id, MemoryContext cxt)
{
	char		path[MAXPGPATH];
	SharedFileHeader expected;
	SharedFileHeader header;
	Size		filter_bytes = (Size) id->pointer.va_rawsize;
	Size		offset = filter_offset(VARSIZE(id->chunk0));
	Size		file_bytes = offset + filter_bytes;
	struct stat st;
	int			fd;
	int			flags = MAP_SHARED;
	bool		check_filter;
	char	   *base;
	SharedMapping *mapping;
	MemoryContextCallback *callback;
	const bytea *filter;

	if (file_bytes > bound_bytes())
		return NULL;
	file_path(id, path, sizeof(path));
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return NULL;			/* none yet, or evicted */
	/* first: no error may come between the map and its unmap's callback */
	mapping = MemoryContextAlloc(cxt, sizeof(SharedMapping));
	callback = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	fill_header(&expected, id, filter_bytes);
	if (fstat(fd, &st) != 0 || !read_fully(fd, &header, sizeof(header)))
	{
		CloseTransientFile(fd);
		remove_damaged(path);
		return NULL;
	}
	expected.head_crc = header.head_crc;
	expected.filter_crc = header.filter_crc;
	if (memcmp(&expected, &header, sizeof(header)) != 0)
	{
		/* another value under the same OIDs, or another layout */
		CloseTransientFile(fd);
		return NULL;
	}
	if ((Size) st.st_size != file_bytes)
	{
		CloseTransientFile(fd);
		remove_damaged(path);
		return NULL;
	}

	/*
	 * Mapped, not copied: every backend reads the same pages of the kernel's
	 * cache.  The file is never written again under this name (a new one is
	 * renamed over it), so the mapping's bytes stay those checked below.
	 *
	 * The filter's own checksum is checked as the server checks its pages:
	 * when the cluster has data checksums.  Its bytes come from a checked
	 * write of this server start, so what it guards against is the storage
	 * changing them, which is what data checksums are for; and it costs a
	 * read of every byte, the larger part of a mapping's cost, paid by each
	 * new connection that a distributed query opens.  That read then maps
	 * every page anyway: map them all at once.
	 */
	check_filter = DataChecksumsEnabled();
#ifdef MAP_POPULATE
	if (check_filter)
		flags |= MAP_POPULATE;
#endif
	base = mmap(NULL, file_bytes, PROT_READ, flags, fd, 0);
	if (base != MAP_FAILED)
		(void) futimens(fd, NULL);	/* recently used: the last to be evicted */
	CloseTransientFile(fd);
	if (base == MAP_FAILED)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not map file \"%s\": %m", path)));
		return NULL;
	}
	if (head_crc(&header, base + sizeof(header)) != header.head_crc)
	{
		(void) munmap(base, file_bytes);
		remove_damaged(path);
		return NULL;
	}
	if (memcmp(base + sizeof(header), id->chunk0, header.chunk0_bytes) != 0)
	{
		/* a value of the same chunk 0 tuple but other bytes */
		(void) munmap(base, file_bytes);
		return NULL;
	}
	filter = (const bytea *) (base + offset);

	/*
	 * Checked when written; checked again, as the session cache checks what
	 * it reads, but as damage to the file: the table still has the filter.
	 */
	if (VARSIZE(filter) != filter_bytes ||
		(check_filter && filter_crc(filter, filter_bytes) != header.filter_crc) ||
		bloom_validate(BloomFilterBytes(filter), BloomFilterLength(filter)) != BLOOM_OK)
	{
		(void) munmap(base, file_bytes);
		remove_damaged(path);
		return NULL;
	}

	mapping->base = base;
	mapping->bytes = file_bytes;
	callback->func = unmap_file;
	callback->arg = mapping;
	MemoryContextRegisterResetCallback(cxt, callback);
	return filter;
}

static int
oldest_first(const void *a, const void *b)
{
	const SharedFile *fa = a;
	const SharedFile *fb = b;

	if (fa->used != fb->used)
		return fa->used < fb->used ? -1 : 1;
	return strcmp(fa->name, fb->name);
}

/*
 * Deletes the files of earlier server starts, then this start's least
 * recently used ones until need more bytes fit under bound.
 */
static void
make_room(Size need, Size bound)
{
	char		prefix[32];
	size_t		prefix_len;
	DIR		   *dir;
	struct dirent *de;
	SharedFile *files;
	int			nfiles = 0;
	int			capacity = 16;
	Size		total = 0;

	start_prefix(prefix, sizeof(prefix));
	prefix_len = strlen(prefix);
	dir = AllocateDir(SHARED_DIR);
	if (dir == NULL)
		return;
	files = palloc(capacity * sizeof(SharedFile));
	while ((de = ReadDirExtended(dir, SHARED_DIR, LOG)) != NULL)
	{
		char		path[MAXPGPATH];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", SHARED_DIR, de->d_name);
		if (strncmp(de->d_name, prefix, prefix_len) != 0)
		{
			(void) unlink(path);	/* never read again */
			continue;
		}
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (nfiles == capacity)
		{
			capacity *= 2;
			files = repalloc(files, capacity * sizeof(SharedFile));
		}
		memcpy(files[nfiles].name, path, sizeof(path));
		files[nfiles].bytes = st.st_size;
		files[nfiles].used = st.st_mtime;
		nfiles++;
		total += st.st_size;
	}
	FreeDir(dir);

	if (total + need > bound)
	{
		qsort(files, nfiles, sizeof(SharedFile), oldest_first);
		for (int i = 0; i < nfiles && total + need > bound; i++)
			if (unlink(files[i].name) == 0)
				total -= files[i].bytes;
	}
	pfree(files);
}

void
bloom_shared_cache_write(const BloomStoredIdentity *id, const bytea *filter)
{
	char		path[MAXPGPATH];
	char		temp_path[MAXPGPATH];
	SharedFileHeader header;
	Size		offset = filter_offset(VARSIZE(id->chunk0));
	Size		file_bytes = offset + VARSIZE(filter);
	static const char padding[MAXIMUM_ALIGNOF] = {0};
	Size		padding_bytes = offset - sizeof(header) - VARSIZE(id->chunk0);
	int			fd;
	bool		written;

	if (file_bytes > bound_bytes())
		return;
	if (MakePGDirectory(SHARED_DIR) != 0 && errno != EEXIST)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not create directory \"%s\": %m", SHARED_DIR)));
		return;
	}
	make_room(file_bytes, bound_bytes());

	fill_header(&header, id, VARSIZE(filter));
	/*
	 * Only a cluster with data checksums reads the filter's CRC (see
	 * bloom_shared_cache_map), and a file is read only by the server start
	 * that wrote it, under the same setting: without them the CRC would be
	 * a read of every byte for nothing.
	 */
	header.filter_crc = DataChecksumsEnabled() ? filter_crc(filter, VARSIZE(filter)) : 0;
	header.head_crc = head_crc(&header, id->chunk0);
	file_path(id, path, sizeof(path));
	snprintf(temp_path, sizeof(temp_path), "%s.%d.tmp", path, MyProcPid);
	(void) unlink(temp_path);	/* left by a backend of this PID that died */
	fd = OpenTransientFile(temp_path, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY);
	if (fd < 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not create file \"%s\": %m", temp_path)));
		return;
	}
	written = write_fully(fd, &header, sizeof(header)) &&
		write_fully(fd, id->chunk0, VARSIZE(id->chunk0)) &&
		write_fully(fd, padding, padding_bytes) &&
		write_fully(fd, filter, VARSIZE(filter));
	if (!written)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not write file \"%s\": %m", temp_path)));
	if (CloseTransientFile(fd) != 0 && written)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("bloomfilter: could not close file \"%s\": %m", temp_path)));
		written = false;
	}
	/* a reader sees the whole file or none */
	if (!written || rename(temp_path, path) != 0)
	{
		if (written)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("bloomfilter: could not rename file \"%s\" to \"%s\": %m",
							temp_path, path)));
		(void) unlink(temp_path);
		return;
	}
	elog(DEBUG2, "bloomfilter: wrote a stored filter of %zu bytes to the server's filter cache files",
		 (Size) VARSIZE(filter));
}
