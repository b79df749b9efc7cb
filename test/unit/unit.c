/*
 * unit.c
 *		The unit tests' bookkeeping (unit.h): groups, tests, checks and their
 *		counts, and helpers several test files share.
 */
#include "unit.h"

/* A broken case could otherwise print thousands of probe lines. */
#define MAX_FAIL_LINES	10

unsigned long n_passed;
unsigned long n_failed;

const char *group_name;
static unsigned long group_passed;
static unsigned long group_failed;

static char test_name[200];
bool test_failed;
static unsigned test_fail_lines;

void
group_begin(const char *name)
{
	group_name = name;
	group_passed = group_failed = 0;
}

void
group_end(void)
{
	if (group_failed == 0)
		printf("ok   %s: %lu tests\n", group_name, group_passed);
	else
		printf("FAIL %s: %lu of %lu tests failed\n", group_name,
			   group_failed, group_passed + group_failed);
}

static void
vbegin(const char *fmt, va_list ap)
{
	vsnprintf(test_name, sizeof(test_name), fmt, ap);
	test_failed = false;
	test_fail_lines = 0;
}

void
test_begin(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vbegin(fmt, ap);
	va_end(ap);
}

static void
vfail(const char *fmt, va_list ap)
{
	test_failed = true;
	if (test_fail_lines < MAX_FAIL_LINES)
	{
		printf("FAIL %s: %s: ", group_name, test_name);
		vprintf(fmt, ap);
		putchar('\n');
	}
	else if (test_fail_lines == MAX_FAIL_LINES)
		printf("FAIL %s: %s: (further failures of this test not shown)\n",
			   group_name, test_name);
	test_fail_lines++;
}

void
fail(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
}

/* Fail the current test with the message unless cond holds. */

bool
check(bool cond, const char *fmt, ...)
{
	va_list		ap;

	if (!cond)
	{
		va_start(ap, fmt);
		vfail(fmt, ap);
		va_end(ap);
	}
	return cond;
}

void
test_end(void)
{
	if (test_failed)
	{
		n_failed++;
		group_failed++;
	}
	else
	{
		n_passed++;
		group_passed++;
	}
}

const char *
status_name(bloom_status s)
{
	switch (s)
	{
		case BLOOM_OK:
			return "BLOOM_OK";
		case BLOOM_ERR_NEGATIVE_BITS_PER_KEY:
			return "BLOOM_ERR_NEGATIVE_BITS_PER_KEY";
		case BLOOM_ERR_SIZE_OVERFLOW:
			return "BLOOM_ERR_SIZE_OVERFLOW";
		case BLOOM_ERR_FILTER_TOO_SHORT:
			return "BLOOM_ERR_FILTER_TOO_SHORT";
		case BLOOM_ERR_K_ZERO:
			return "BLOOM_ERR_K_ZERO";
		case BLOOM_ERR_K_RESERVED:
			return "BLOOM_ERR_K_RESERVED";
		case BLOOM_ERR_HEX_PREFIX:
			return "BLOOM_ERR_HEX_PREFIX";
		case BLOOM_ERR_HEX_ODD:
			return "BLOOM_ERR_HEX_ODD";
		case BLOOM_ERR_HEX_DIGIT:
			return "BLOOM_ERR_HEX_DIGIT";
		case BLOOM_ERR_STATE_TOO_SHORT:
			return "BLOOM_ERR_STATE_TOO_SHORT";
		case BLOOM_ERR_STATE_VERSION:
			return "BLOOM_ERR_STATE_VERSION";
		case BLOOM_ERR_STATE_RESERVED:
			return "BLOOM_ERR_STATE_RESERVED";
		case BLOOM_ERR_STATE_COUNT:
			return "BLOOM_ERR_STATE_COUNT";
		case BLOOM_ERR_GAPS_CODE:
			return "BLOOM_ERR_GAPS_CODE";
		case BLOOM_ERR_NO_MEMORY:
			return "BLOOM_ERR_NO_MEMORY";
		case BLOOM_ERR_THREAD:
			return "BLOOM_ERR_THREAD";
		case BLOOM_ERR_CANCELLED:
			return "BLOOM_ERR_CANCELLED";
	}
	return "(unknown status)";
}

/* One-check tests, the bulk of the edge cases. */
void
expect_status(bloom_status got, bloom_status want, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vbegin(fmt, ap);
	va_end(ap);
	check(got == want, "expected %s, got %s", status_name(want),
		  status_name(got));
	test_end();
}

/* Hex of a key or filter for messages: "-" when empty, cut when long. */
const char *
hexs(const uint8_t *data, size_t len)
{
	static char bufs[4][80];
	static int	next;
	char	   *buf = bufs[next++ % 4];
	size_t		i,
				shown = len > 24 ? 24 : len;
	char	   *p = buf;

	if (len == 0)
		return "-";
	for (i = 0; i < shown; i++)
		p += sprintf(p, "%02x", data[i]);
	if (shown < len)
		sprintf(p, "...(%zu bytes)", len);
	return buf;
}

void *
xcalloc(size_t n)
{
	void	   *p = calloc(n ? n : 1, 1);

	if (p == NULL)
	{
		fprintf(stderr, "test_core: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* Deterministic, so that a failure reproduces. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

uint64_t
rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

void
rng_bytes(uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t) rng_next();
}

int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

bool
count_ask(void *arg)
{
	counted_asks *asks = arg;

	return ++asks->calls != asks->no_at;
}

/* Sort v[0..n-1] with qsort and drop its repeats; returns the distinct count. */
size_t
sort_distinct(uint32_t *v, size_t n)
{
	size_t		m = 0;

	qsort(v, n, sizeof(uint32_t), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

uint8_t *
gaps_code_of(const uint32_t *hashes, size_t m, uint32_t **sorted, size_t *d,
			 size_t *len)
{
	uint32_t   *scratch = malloc(m * sizeof(uint32_t));
	uint8_t    *code;
	unsigned	r;

	*sorted = malloc(m * sizeof(uint32_t));
	memcpy(*sorted, hashes, m * sizeof(uint32_t));
	*d = bloom_sort_unique_hashes(*sorted, m, scratch);
	free(scratch);
	r = bloom_gaps_rice_param(*d);
	code = malloc(bloom_gaps_max_bytes(*d, r));
	*len = bloom_gaps_encode(*sorted, *d, r, code);
	return code;
}

/* n random distinct hashes, sorted; returns how many (duplicates dropped) */
uint64_t
random_hash_set(uint32_t *out, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		out[i] = (uint32_t) rng_next();
	return sort_distinct(out, (size_t) n);
}
