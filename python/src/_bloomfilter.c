/*
 * _bloomfilter.c
 *		The C half of the Python module bloomfilter: key conversion and
 *		hashing, and thin calls into libbloomfilter (../lib/bloomfilter.h),
 *		compiled into this extension together with the core.
 *
 * Filters travel as bytes objects; the class BloomFilter of the package's
 * __init__.py holds one and calls the functions here.  Keys are converted
 * to the bytes they are hashed as the way the SQL functions write them
 * (see bloomfilter.h): int -> 8 bytes big-endian, uuid.UUID -> its 16
 * bytes, str -> UTF-8, bytes/bytearray/memoryview -> as they are, tuple ->
 * a multi-column key (bloomfilter_compose_key) whose fields are converted
 * the same way, None being SQL's NULL.
 *
 * The module keeps no global mutable state: uuid.UUID lives in the
 * module's state (multi-phase initialisation).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <string.h>

#include "bloomfilter.h"

typedef struct module_state
{
	PyObject   *uuid_type;		/* uuid.UUID */
} module_state;

static inline module_state *
get_state(PyObject *module)
{
	return (module_state *) PyModule_GetState(module);
}

/* ---- errors ---- */

static PyObject *
raise_library_error(int error)
{
	PyObject   *type;

	switch (error)
	{
		case BLOOMFILTER_ERR_NO_MEMORY:
		case BLOOMFILTER_ERR_TOO_LARGE:
			type = PyExc_MemoryError;
			break;
		default:
			type = PyExc_ValueError;
			break;
	}
	PyErr_SetString(type, bloomfilter_strerror(error));
	return NULL;
}

/* ---- a growable byte buffer, on the stack while small ---- */

#define SCRATCH_LOCAL 256

typedef struct scratch
{
	uint8_t    *p;
	size_t		len;			/* bytes in use */
	size_t		cap;
	uint8_t		local[SCRATCH_LOCAL];
} scratch;

static void
scratch_init(scratch *s)
{
	s->p = s->local;
	s->len = 0;
	s->cap = SCRATCH_LOCAL;
}

static void
scratch_free(scratch *s)
{
	if (s->p != s->local)
		PyMem_Free(s->p);
	scratch_init(s);
}

/* Room for extra more bytes after len; returns where they go, or NULL. */
static uint8_t *
scratch_reserve(scratch *s, size_t extra)
{
	if (extra > PY_SSIZE_T_MAX - s->len)
	{
		PyErr_NoMemory();
		return NULL;
	}
	if (s->len + extra > s->cap)
	{
		size_t		cap = s->cap;
		uint8_t    *p;

		while (cap < s->len + extra)
			cap = cap > (size_t) PY_SSIZE_T_MAX / 2 ? (size_t) PY_SSIZE_T_MAX : cap * 2;
		if (s->p == s->local)
		{
			p = PyMem_Malloc(cap);
			if (p != NULL)
				memcpy(p, s->local, s->len);
		}
		else
			p = PyMem_Realloc(s->p, cap);
		if (p == NULL)
		{
			PyErr_NoMemory();
			return NULL;
		}
		s->p = p;
		s->cap = cap;
	}
	return s->p + s->len;
}

static int
scratch_append(scratch *s, const void *bytes, size_t n)
{
	uint8_t    *at = scratch_reserve(s, n);

	if (at == NULL)
		return -1;
	if (n > 0)
		memcpy(at, bytes, n);
	s->len += n;
	return 0;
}

/* ---- key conversion ---- */

static int
str_is_ascii(PyObject *str)
{
#if PY_VERSION_HEX < 0x030C0000
	if (PyUnicode_READY(str) < 0)
		return -1;
#endif
	return PyUnicode_IS_ASCII(str) ? 1 : 0;
}

/*
 * Append the UTF-8 of a str that is not all ASCII: what str.encode() gives,
 * written here so that probing a str does not leave a cached UTF-8 copy in
 * it.  A lone surrogate fails as str.encode() fails.
 */
static int
append_utf8(scratch *s, PyObject *str)
{
	int			kind = PyUnicode_KIND(str);
	const void *data = PyUnicode_DATA(str);
	Py_ssize_t	n = PyUnicode_GET_LENGTH(str);
	Py_ssize_t	i;
	size_t		need = 0;
	uint8_t    *out;

	for (i = 0; i < n; i++)
	{
		Py_UCS4		c = PyUnicode_READ(kind, data, i);

		if (c < 0x80)
			need += 1;
		else if (c < 0x800)
			need += 2;
		else if (c < 0x10000)
		{
			if (c >= 0xD800 && c <= 0xDFFF)
			{
				/* let Python say what is wrong, as str.encode() does */
				PyObject   *encoded = PyUnicode_AsUTF8String(str);

				if (encoded == NULL)
					return -1;
				Py_DECREF(encoded);
				PyErr_SetString(PyExc_ValueError, "str key with a surrogate");
				return -1;
			}
			need += 3;
		}
		else
			need += 4;
	}
	if ((out = scratch_reserve(s, need)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
	{
		Py_UCS4		c = PyUnicode_READ(kind, data, i);

		if (c < 0x80)
			*out++ = (uint8_t) c;
		else if (c < 0x800)
		{
			*out++ = (uint8_t) (0xC0 | (c >> 6));
			*out++ = (uint8_t) (0x80 | (c & 0x3F));
		}
		else if (c < 0x10000)
		{
			*out++ = (uint8_t) (0xE0 | (c >> 12));
			*out++ = (uint8_t) (0x80 | ((c >> 6) & 0x3F));
			*out++ = (uint8_t) (0x80 | (c & 0x3F));
		}
		else
		{
			*out++ = (uint8_t) (0xF0 | (c >> 18));
			*out++ = (uint8_t) (0x80 | ((c >> 12) & 0x3F));
			*out++ = (uint8_t) (0x80 | ((c >> 6) & 0x3F));
			*out++ = (uint8_t) (0x80 | (c & 0x3F));
		}
	}
	s->len += need;
	return 0;
}

static int
int64_of(PyObject *obj, int64_t *value)
{
	int			overflow = 0;
	long long	v = PyLong_AsLongLongAndOverflow(obj, &overflow);

	if (overflow != 0)
	{
		PyErr_SetString(PyExc_OverflowError,
						"int key out of the signed 64-bit range");
		return -1;
	}
	if (v == -1 && PyErr_Occurred())
		return -1;
	*value = (int64_t) v;
	return 0;
}

static PyObject *
key_type_error(PyObject *key, const char *what)
{
	PyErr_Format(PyExc_TypeError,
				 "%s must be int, str, bytes, bytearray, memoryview, "
				 "uuid.UUID or tuple, not %.200s",
				 what, Py_TYPE(key)->tp_name);
	return NULL;
}

/*
 * Append the bytes of one value that is not a tuple or None: a key of one
 * column, or one field of a multi-column key.  0 when done, -1 with an
 * exception set, 1 when the value is of no type a key can be (nothing set).
 */
static int
append_value(module_state *st, scratch *s, PyObject *obj)
{
	if (PyUnicode_Check(obj))
	{
		int			ascii = str_is_ascii(obj);

		if (ascii < 0)
			return -1;
		if (ascii)
			return scratch_append(s, PyUnicode_DATA(obj),
								  (size_t) PyUnicode_GET_LENGTH(obj));
		return append_utf8(s, obj);
	}
	if (PyBytes_Check(obj))
		return scratch_append(s, PyBytes_AS_STRING(obj),
							  (size_t) PyBytes_GET_SIZE(obj));
	if (PyLong_Check(obj))
	{
		int64_t		v;
		uint8_t		b[BLOOMFILTER_INT64_KEY_BYTES];

		if (PyBool_Check(obj))
		{
			PyErr_SetString(PyExc_TypeError,
							"bool is not a key type: use int(b) for an "
							"integer key");
			return -1;
		}
		if (int64_of(obj, &v) < 0)
			return -1;
		bloomfilter_int64_key(v, b);
		return scratch_append(s, b, sizeof(b));
	}
	if (PyByteArray_Check(obj))
		return scratch_append(s, PyByteArray_AS_STRING(obj),
							  (size_t) PyByteArray_GET_SIZE(obj));
	if (PyMemoryView_Check(obj))
	{
		Py_buffer	view;
		int			r;

		if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
			return -1;
		r = scratch_append(s, view.buf, (size_t) view.len);
		PyBuffer_Release(&view);
		return r;
	}
	{
		int			is_uuid = PyObject_IsInstance(obj, st->uuid_type);
		PyObject   *b;
		int			r;

		if (is_uuid < 0)
			return -1;
		if (!is_uuid)
			return 1;
		/* .bytes may run Python code; keep obj alive meanwhile */
		Py_INCREF(obj);
		b = PyObject_GetAttrString(obj, "bytes");
		Py_DECREF(obj);
		if (b == NULL)
			return -1;
		if (!PyBytes_Check(b) ||
			PyBytes_GET_SIZE(b) != BLOOMFILTER_UUID_KEY_BYTES)
		{
			Py_DECREF(b);
			PyErr_SetString(PyExc_ValueError,
							"uuid.UUID key whose .bytes is not 16 bytes");
			return -1;
		}
		r = scratch_append(s, PyBytes_AS_STRING(b), BLOOMFILTER_UUID_KEY_BYTES);
		Py_DECREF(b);
		return r;
	}
}

#define FIELDS_LOCAL 16

/* Append the multi-column key of a tuple to s. */
static int
append_tuple_key(module_state *st, scratch *s, PyObject *tuple)
{
	Py_ssize_t	n = PyTuple_GET_SIZE(tuple);
	bloomfilter_field local[FIELDS_LOCAL];
	bloomfilter_field *fields = local;
	size_t		local_offsets[FIELDS_LOCAL];
	size_t	   *offsets = local_offsets;
	size_t		base = s->len;
	size_t		keysize;
	size_t		written;
	uint8_t    *out;
	Py_ssize_t	i;
	int			result = -1;

	if (n == 0)
	{
		PyErr_SetString(PyExc_ValueError,
						"a tuple key needs at least one field");
		return -1;
	}
	if (n > FIELDS_LOCAL)
	{
		fields = PyMem_New(bloomfilter_field, (size_t) n);
		offsets = PyMem_New(size_t, (size_t) n);
		if (fields == NULL || offsets == NULL)
		{
			PyErr_NoMemory();
			goto done;
		}
	}
	/* the fields' bytes first, one after another; then the key after them */
	for (i = 0; i < n; i++)
	{
		PyObject   *item = PyTuple_GET_ITEM(tuple, i);
		size_t		start = s->len;
		int			r;

		if (item == Py_None)
		{
			fields[i].bytes = NULL;
			fields[i].len = 0;
			offsets[i] = 0;
			continue;
		}
		if (PyTuple_Check(item))
		{
			PyErr_SetString(PyExc_TypeError,
							"a field of a tuple key cannot be a tuple");
			goto done;
		}
		r = append_value(st, s, item);
		if (r < 0)
			goto done;
		if (r > 0)
		{
			key_type_error(item, "a field of a tuple key");
			goto done;
		}
		fields[i].bytes = s->p;	/* non-NULL: pointed properly below */
		fields[i].len = s->len - start;
		offsets[i] = start;
	}
	for (i = 0; i < n; i++)
		if (fields[i].bytes != NULL)
			fields[i].bytes = s->p + offsets[i];
	keysize = bloomfilter_key_size(fields, (size_t) n);
	if (keysize == 0)
	{
		PyErr_SetString(PyExc_OverflowError,
						"a field of a tuple key is longer than 0xFFFFFFFE bytes");
		goto done;
	}
	if ((out = scratch_reserve(s, keysize)) == NULL)
		goto done;
	for (i = 0; i < n; i++)		/* the buffer may have moved */
		if (fields[i].bytes != NULL)
			fields[i].bytes = s->p + offsets[i];
	written = bloomfilter_compose_key(fields, (size_t) n, out);
	if (written != keysize)
	{
		PyErr_SetString(PyExc_SystemError, "bloomfilter_compose_key failed");
		goto done;
	}
	/* keep the key only, at base */
	memmove(s->p + base, out, keysize);
	s->len = base + keysize;
	result = 0;

done:
	if (fields != local)
		PyMem_Free(fields);
	if (offsets != local_offsets)
		PyMem_Free(offsets);
	return result;
}

/*
 * The bytes a key is hashed as: *bytes, *len point into the key itself
 * (bytes, bytearray, an ASCII str) or into s.  The pointers stay good
 * while the key lives and s is untouched; no Python code runs after they
 * are set.
 */
static int
key_bytes_of(module_state *st, PyObject *key, scratch *s,
			 const uint8_t **bytes, size_t *len)
{
	int			r;

	if (PyUnicode_CheckExact(key))
	{
		int			ascii = str_is_ascii(key);

		if (ascii < 0)
			return -1;
		if (ascii)
		{
			*bytes = PyUnicode_DATA(key);
			*len = (size_t) PyUnicode_GET_LENGTH(key);
			return 0;
		}
	}
	else if (PyBytes_CheckExact(key))
	{
		*bytes = (const uint8_t *) PyBytes_AS_STRING(key);
		*len = (size_t) PyBytes_GET_SIZE(key);
		return 0;
	}
	s->len = 0;
	if (PyTuple_Check(key))
		r = append_tuple_key(st, s, key);
	else if (key == Py_None)
	{
		PyErr_SetString(PyExc_TypeError,
						"None is not a key (it is a NULL field only within "
						"a tuple key)");
		return -1;
	}
	else
	{
		r = append_value(st, s, key);
		if (r > 0)
		{
			key_type_error(key, "a key");
			return -1;
		}
	}
	if (r < 0)
		return -1;
	*bytes = s->p;
	*len = s->len;
	return 0;
}

/* The hash probes use for a key: the fast cases first. */
static inline int
key_hash(module_state *st, PyObject *key, scratch *s, uint32_t *hash)
{
	const uint8_t *bytes;
	size_t		len;

	if (PyLong_CheckExact(key))
	{
		int64_t		v;

		if (int64_of(key, &v) < 0)
			return -1;
		*hash = bloomfilter_hash_int64(v);
		return 0;
	}
	if (key_bytes_of(st, key, s, &bytes, &len) < 0)
		return -1;
	*hash = bloomfilter_hash(bytes, len);
	return 0;
}

/* ---- filter arguments ---- */

/* A filter given as bytes (the usual case) or any contiguous buffer. */
typedef struct filter_arg
{
	const uint8_t *bytes;
	size_t		len;
	Py_buffer	view;
	int			has_view;
} filter_arg;

static int
filter_arg_get(PyObject *obj, filter_arg *f)
{
	f->has_view = 0;
	if (PyBytes_Check(obj))
	{
		f->bytes = (const uint8_t *) PyBytes_AS_STRING(obj);
		f->len = (size_t) PyBytes_GET_SIZE(obj);
		return 0;
	}
	if (PyObject_GetBuffer(obj, &f->view, PyBUF_SIMPLE) < 0)
		return -1;
	f->has_view = 1;
	f->bytes = f->view.buf;
	f->len = (size_t) f->view.len;
	return 0;
}

static void
filter_arg_release(filter_arg *f)
{
	if (f->has_view)
		PyBuffer_Release(&f->view);
	f->has_view = 0;
}

/* A bytes object holding memory the library allocated, which it frees. */
static PyObject *
bytes_from_library(uint8_t *memory, size_t len)
{
	PyObject   *result;

	if (len > (size_t) PY_SSIZE_T_MAX)
	{
		bloomfilter_free(memory);
		return PyErr_NoMemory();
	}
	result = PyBytes_FromStringAndSize((const char *) memory, (Py_ssize_t) len);
	bloomfilter_free(memory);
	return result;
}

static int
check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t want)
{
	if (nargs != want)
	{
		PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)",
					 name, want, nargs);
		return -1;
	}
	return 0;
}

static int
bits_per_key_of(PyObject *obj, int *bits_per_key)
{
	int			overflow = 0;
	long		v;

	if (PyBool_Check(obj) || !PyLong_Check(obj))
	{
		PyErr_Format(PyExc_TypeError, "bits_per_key must be an int, not %.200s",
					 Py_TYPE(obj)->tp_name);
		return -1;
	}
	v = PyLong_AsLongAndOverflow(obj, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (v < 0 || overflow < 0)
	{
		PyErr_SetString(PyExc_ValueError, "bits_per_key must be 0 or more");
		return -1;
	}
	if (v > INT_MAX || overflow > 0)
	{
		PyErr_SetString(PyExc_OverflowError, "bits_per_key is too large");
		return -1;
	}
	*bits_per_key = (int) v;
	return 0;
}

/* ---- module functions ---- */

PyDoc_STRVAR(build_doc,
"build(keys, bits_per_key) -> bytes\n\n"
"The LevelDB filter of the keys (an iterable) at bits_per_key bits a key.");

static PyObject *
mod_build(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	module_state *st = get_state(module);
	int			bits_per_key;
	bloomfilter_builder *builder = NULL;
	PyObject   *iter = NULL;
	PyObject   *item;
	PyObject   *result = NULL;
	scratch		s;
	uint8_t    *filter;
	size_t		len;
	int			error;

	if (check_nargs("build", nargs, 2) < 0 ||
		bits_per_key_of(args[1], &bits_per_key) < 0)
		return NULL;
	if ((iter = PyObject_GetIter(args[0])) == NULL)
		return NULL;
	scratch_init(&s);
	if ((error = bloomfilter_builder_new(bits_per_key, &builder)) != BLOOMFILTER_OK)
	{
		raise_library_error(error);
		goto done;
	}
	while ((item = PyIter_Next(iter)) != NULL)
	{
		uint32_t	hash;

		if (key_hash(st, item, &s, &hash) < 0)
		{
			Py_DECREF(item);
			goto done;
		}
		Py_DECREF(item);
		if ((error = bloomfilter_builder_add_hash(builder, hash)) != BLOOMFILTER_OK)
		{
			raise_library_error(error);
			goto done;
		}
	}
	if (PyErr_Occurred())
		goto done;
	if ((error = bloomfilter_builder_finish(builder, &filter, &len)) != BLOOMFILTER_OK)
	{
		raise_library_error(error);
		goto done;
	}
	result = bytes_from_library(filter, len);

done:
	bloomfilter_builder_free(builder);
	scratch_free(&s);
	Py_XDECREF(iter);
	return result;
}

/*
 * A filter's bytes refused by the library: its sentence, and where the
 * input was text that may still be raw bytes, how to read it as such.
 */
static PyObject *
raise_parse_error(int error)
{
	if (error == BLOOMFILTER_ERR_TEXT)
	{
		PyErr_Format(PyExc_ValueError, "%s If it does hold a filter's raw "
					 "bytes, BloomFilter.from_bytes(data, raw=True) reads "
					 "them as they are.", bloomfilter_strerror(error));
		return NULL;
	}
	return raise_library_error(error);
}

PyDoc_STRVAR(parse_doc,
"parse(data) -> bytes\n\n"
"A validated filter from its raw bytes or its text form \"\\\\x...\" (bytes,\n"
"bytearray, memoryview), or from its text form only (str); text that is\n"
"not the text form is refused (libbloomfilter's bloomfilter_parse).");

static PyObject *
mod_parse(PyObject *module, PyObject *arg)
{
	filter_arg	f;
	uint8_t    *filter;
	size_t		len;
	int			error;

	(void) module;
	if (PyUnicode_Check(arg))
	{
		Py_ssize_t	n;
		const char *text = PyUnicode_AsUTF8AndSize(arg, &n);

		/* a str is the text form only: what is wrong with it is as text */
		if (text == NULL)
			return NULL;
		error = bloomfilter_parse_text(text, (size_t) n, &filter, &len);
		if (error != BLOOMFILTER_OK)
			return raise_parse_error(error);
		return bytes_from_library(filter, len);
	}
	if (filter_arg_get(arg, &f) < 0)
	{
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
					 "a filter must be bytes, bytearray, memoryview or str, "
					 "not %.200s", Py_TYPE(arg)->tp_name);
		return NULL;
	}
	error = bloomfilter_parse(f.bytes, f.len, &filter, &len);
	filter_arg_release(&f);
	if (error != BLOOMFILTER_OK)
		return raise_parse_error(error);
	return bytes_from_library(filter, len);
}

PyDoc_STRVAR(parse_raw_doc,
"parse_raw(data) -> bytes\n\n"
"A validated filter from its raw bytes (bytes, bytearray, memoryview),\n"
"taken as they are whatever they look like.");

static PyObject *
mod_parse_raw(PyObject *module, PyObject *arg)
{
	filter_arg	f;
	PyObject   *result;
	int			error;

	(void) module;
	if (PyUnicode_Check(arg) || filter_arg_get(arg, &f) < 0)
	{
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
					 "raw filter bytes must be bytes, bytearray or memoryview, "
					 "not %.200s", Py_TYPE(arg)->tp_name);
		return NULL;
	}
	error = bloomfilter_validate(f.bytes, f.len);
	result = error == BLOOMFILTER_OK ?
		PyBytes_FromStringAndSize((const char *) f.bytes, (Py_ssize_t) f.len) :
		raise_library_error(error);
	filter_arg_release(&f);
	return result;
}

PyDoc_STRVAR(may_contain_doc,
"may_contain(filter, key) -> bool\n\n"
"LevelDB's KeyMayMatch: False means the key was certainly not added.");

static PyObject *
mod_may_contain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	filter_arg	f;
	scratch		s;
	uint32_t	hash;
	bool		answer;

	if (check_nargs("may_contain", nargs, 2) < 0)
		return NULL;
	scratch_init(&s);
	if (key_hash(get_state(module), args[1], &s, &hash) < 0)
	{
		scratch_free(&s);
		return NULL;
	}
	scratch_free(&s);
	if (filter_arg_get(args[0], &f) < 0)
		return NULL;
	answer = bloomfilter_may_contain_hash(f.bytes, f.len, hash);
	filter_arg_release(&f);
	return PyBool_FromLong(answer);
}

#define PROBE_CHUNK 1024
#define PREFETCH_AHEAD 16

PyDoc_STRVAR(may_contain_many_doc,
"may_contain_many(filter, keys) -> list of bool\n\n"
"may_contain of each key, in order; keys is any iterable (a list or tuple\n"
"is read in place).");

static PyObject *
mod_may_contain_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	module_state *st = get_state(module);
	filter_arg	f;
	PyObject   *seq;
	PyObject   *result = NULL;
	Py_ssize_t	n,
				i;
	scratch		s;
	uint32_t	hashes[PROBE_CHUNK];
	bool		answers[PROBE_CHUNK];

	if (check_nargs("may_contain_many", nargs, 2) < 0)
		return NULL;
	seq = PySequence_Fast(args[1], "keys must be iterable");
	if (seq == NULL)
		return NULL;
	if (filter_arg_get(args[0], &f) < 0)
	{
		Py_DECREF(seq);
		return NULL;
	}
	scratch_init(&s);
	n = PySequence_Fast_GET_SIZE(seq);
	if ((result = PyList_New(n)) == NULL)
		goto done;
	for (i = 0; i < n; i += PROBE_CHUNK)
	{
		Py_ssize_t	m = n - i < PROBE_CHUNK ? n - i : PROBE_CHUNK;
		Py_ssize_t	j;

		for (j = 0; j < m; j++)
		{
			/*
			 * A uuid.UUID's .bytes may run Python code that changes the
			 * list: read its size and items afresh for every key.
			 */
			if (i + j >= PySequence_Fast_GET_SIZE(seq))
			{
				PyErr_SetString(PyExc_RuntimeError,
								"keys changed size during may_contain_many");
				goto fail;
			}
#ifdef __GNUC__
			/*
			 * Keys far apart in memory (references to objects made long
			 * ago) cost a cache miss each: ask for the header and the
			 * first bytes of a str or int a few keys ahead.
			 */
			if (i + j + PREFETCH_AHEAD < PySequence_Fast_GET_SIZE(seq))
			{
				const char *ahead = (const char *)
					PySequence_Fast_GET_ITEM(seq, i + j + PREFETCH_AHEAD);

				__builtin_prefetch(ahead);
				__builtin_prefetch(ahead + 63);
			}
#endif
			if (key_hash(st, PySequence_Fast_GET_ITEM(seq, i + j), &s,
						 &hashes[j]) < 0)
				goto fail;
		}
		bloomfilter_may_contain_hashes(f.bytes, f.len, hashes, (size_t) m,
									   answers);
		for (j = 0; j < m; j++)
		{
			PyObject   *b = answers[j] ? Py_True : Py_False;

			Py_INCREF(b);
			PyList_SET_ITEM(result, i + j, b);
		}
	}
	goto done;

fail:
	Py_CLEAR(result);
done:
	scratch_free(&s);
	filter_arg_release(&f);
	Py_DECREF(seq);
	return result;
}

PyDoc_STRVAR(hash_doc,
"hash(key) -> int\n\n"
"LevelDB's 32-bit hash of the key's bytes (seed 0xbc9f1d34): what every\n"
"probe of the key is derived from.");

static PyObject *
mod_hash(PyObject *module, PyObject *key)
{
	scratch		s;
	uint32_t	hash;

	scratch_init(&s);
	if (key_hash(get_state(module), key, &s, &hash) < 0)
	{
		scratch_free(&s);
		return NULL;
	}
	scratch_free(&s);
	return PyLong_FromUnsignedLong(hash);
}

PyDoc_STRVAR(key_bytes_doc,
"key_bytes(key) -> bytes\n\n"
"The bytes a key is hashed as, the way SQL writes it.");

static PyObject *
mod_key_bytes(PyObject *module, PyObject *key)
{
	scratch		s;
	const uint8_t *bytes;
	size_t		len;
	PyObject   *result;

	scratch_init(&s);
	if (key_bytes_of(get_state(module), key, &s, &bytes, &len) < 0)
	{
		scratch_free(&s);
		return NULL;
	}
	result = PyBytes_FromStringAndSize((const char *) bytes, (Py_ssize_t) len);
	scratch_free(&s);
	return result;
}

PyDoc_STRVAR(to_text_doc,
"to_text(filter) -> str\n\nSQL's text form: \"\\\\x\" and two hex digits a byte.");

static PyObject *
mod_to_text(PyObject *module, PyObject *arg)
{
	filter_arg	f;
	char	   *text;
	int			error;
	PyObject   *result;

	(void) module;
	if (filter_arg_get(arg, &f) < 0)
		return NULL;
	error = bloomfilter_to_text(f.bytes, f.len, &text);
	filter_arg_release(&f);
	if (error != BLOOMFILTER_OK)
		return raise_library_error(error);
	result = PyUnicode_DecodeASCII(text, (Py_ssize_t) strlen(text), NULL);
	bloomfilter_free(text);
	return result;
}

PyDoc_STRVAR(info_doc,
"info(filter, measure) -> (bytes, bits, k, bits_set, fill_ratio,\n"
"estimated_keys, false_positive_rate)\n\n"
"SQL's bloom_info figures: with measure true, exactly bloom_info's\n"
"(bloomfilter_get_info: as long as a build); else in one pass, the\n"
"estimates by the ideal filter's formulas (bloomfilter_get_info_fast).");

static PyObject *
mod_info(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	filter_arg	f;
	bloomfilter_info info;
	int			measure;
	int			error;

	(void) module;
	if (check_nargs("info", nargs, 2) < 0 ||
		(measure = PyObject_IsTrue(args[1])) < 0 ||
		filter_arg_get(args[0], &f) < 0)
		return NULL;
	error = measure ? bloomfilter_get_info(f.bytes, f.len, &info) :
		bloomfilter_get_info_fast(f.bytes, f.len, &info);
	filter_arg_release(&f);
	if (error != BLOOMFILTER_OK)
		return raise_library_error(error);
	return Py_BuildValue("(KKIKddd)",
						 (unsigned long long) info.bytes,
						 (unsigned long long) info.bits,
						 info.k,
						 (unsigned long long) info.bits_set,
						 info.fill_ratio, info.estimated_keys,
						 info.false_positive_rate);
}

PyDoc_STRVAR(combine_doc,
"combine(op, a, b) -> bytes\n\n"
"The bitwise OR (op \"union\") or AND (op \"intersect\") of two filters of\n"
"one geometry.");

static PyObject *
mod_combine(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	int			(*op) (uint8_t *, size_t, const uint8_t *, size_t);
	const char *name;
	filter_arg	a,
				b;
	PyObject   *result = NULL;
	int			error;

	(void) module;
	if (check_nargs("combine", nargs, 3) < 0)
		return NULL;
	if ((name = PyUnicode_AsUTF8(args[0])) == NULL)
		return NULL;
	if (strcmp(name, "union") == 0)
		op = bloomfilter_union_into;
	else if (strcmp(name, "intersect") == 0)
		op = bloomfilter_intersect_into;
	else
	{
		PyErr_Format(PyExc_ValueError,
					 "combine: op must be \"union\" or \"intersect\", not %R", args[0]);
		return NULL;
	}
	args++;
	if (filter_arg_get(args[0], &a) < 0)
		return NULL;
	if (filter_arg_get(args[1], &b) < 0)
	{
		filter_arg_release(&a);
		return NULL;
	}
	result = PyBytes_FromStringAndSize((const char *) a.bytes, (Py_ssize_t) a.len);
	if (result != NULL)
	{
		error = op((uint8_t *) PyBytes_AS_STRING(result), a.len, b.bytes, b.len);
		if (error != BLOOMFILTER_OK)
		{
			Py_CLEAR(result);
			raise_library_error(error);
		}
	}
	filter_arg_release(&a);
	filter_arg_release(&b);
	return result;
}

PyDoc_STRVAR(bits_per_key_figures_doc,
"bits_per_key_figures(bits_per_key) -> (int, float)\n\n"
"The probes a key makes at bits_per_key (k) and the false positive rate\n"
"a filter of bits_per_key bits a key is expected to have.");

static PyObject *
mod_bits_per_key_figures(PyObject *module, PyObject *arg)
{
	int			bits_per_key;

	(void) module;
	if (bits_per_key_of(arg, &bits_per_key) < 0)
		return NULL;
	return Py_BuildValue("(kd)",
						 (unsigned long) bloomfilter_k_for_bits_per_key(bits_per_key),
						 bloomfilter_expected_fpr(bits_per_key));
}

PyDoc_STRVAR(bits_per_key_for_fpr_doc,
"bits_per_key_for_fpr(target) -> int\n\n"
"SQL's bloom_bits_per_key: the bits a key that reach a false positive rate\n"
"of target, 0 < target < 1.");

static PyObject *
mod_bits_per_key_for_fpr(PyObject *module, PyObject *arg)
{
	double		target;
	int			bits;

	(void) module;
	target = PyFloat_AsDouble(arg);
	if (target == -1.0 && PyErr_Occurred())
		return NULL;
	if (!(target > 0 && target < 1))
	{
		PyErr_SetString(PyExc_ValueError,
						"target must be more than 0 and less than 1");
		return NULL;
	}
	bits = bloomfilter_bits_per_key_for_fpr(target);
	if (bits < 0)
	{
		PyErr_Format(PyExc_ValueError,
					 "no bits_per_key reaches a false positive rate of %R", arg);
		return NULL;
	}
	return PyLong_FromLong(bits);
}

/* ---- reserved filters: sized first, keys added in place ---- */

PyDoc_STRVAR(empty_doc,
"empty(expected_keys, bits_per_key) -> bytes\n\n"
"SQL's bloom_empty: the filter CreateFilter sizes for expected_keys keys,\n"
"no bit set.");

static PyObject *
mod_empty(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	int			bits_per_key;
	unsigned long long expected;
	uint8_t    *filter;
	size_t		len;
	int			error;

	(void) module;
	if (check_nargs("empty", nargs, 2) < 0)
		return NULL;
	if (PyBool_Check(args[0]) || !PyLong_Check(args[0]))
	{
		PyErr_Format(PyExc_TypeError, "the number of keys must be an int, not %.200s",
					 Py_TYPE(args[0])->tp_name);
		return NULL;
	}
	{
		int			overflow = 0;
		long long	v = PyLong_AsLongLongAndOverflow(args[0], &overflow);

		if (v == -1 && PyErr_Occurred())
			return NULL;
		if ((overflow == 0 && v < 0) || overflow < 0)
		{
			PyErr_SetString(PyExc_ValueError, "the number of keys must be 0 or more");
			return NULL;
		}
		if (overflow > 0)
		{
			PyErr_SetString(PyExc_OverflowError, "the number of keys is too large");
			return NULL;
		}
		expected = (unsigned long long) v;
	}
	if (bits_per_key_of(args[1], &bits_per_key) < 0)
		return NULL;
	if ((error = bloomfilter_empty((uint64_t) expected, bits_per_key, &filter, &len)) != BLOOMFILTER_OK)
	{
		if (error == BLOOMFILTER_ERR_ARGUMENT)
		{
			PyErr_SetString(PyExc_OverflowError, "the filter would be too large");
			return NULL;
		}
		return raise_library_error(error);
	}
	return bytes_from_library(filter, len);
}

PyDoc_STRVAR(update_doc,
"update(filter, keys) -> None\n\n"
"SQL's bloom_add, in place, for each key of keys (an iterable), in order:\n"
"sets the key's bits in filter (a bytearray or other writable buffer\n"
"holding a valid filter), its size and k unchanged.");

static PyObject *
mod_update(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	PyObject   *filter = nargs > 0 ? args[0] : NULL;
	PyObject   *keys = nargs > 1 ? args[1] : NULL;
	module_state *st = get_state(module);
	Py_buffer	view;
	PyObject   *iter = NULL;
	PyObject   *item;
	PyObject   *result = NULL;
	scratch		s;
	uint32_t	hash;
	int			error;

	if (check_nargs("update", nargs, 2) < 0 ||
		PyObject_GetBuffer(filter, &view, PyBUF_WRITABLE) < 0)
		return NULL;
	scratch_init(&s);
	if ((error = bloomfilter_validate(view.buf, (size_t) view.len)) != BLOOMFILTER_OK)
	{
		raise_library_error(error);
		goto done;
	}
	if ((iter = PyObject_GetIter(keys)) == NULL)
		goto done;
	while ((item = PyIter_Next(iter)) != NULL)
	{
		int			rc = key_hash(st, item, &s, &hash);

		Py_DECREF(item);
		if (rc < 0)
			goto done;
		bloomfilter_add_hash(view.buf, (size_t) view.len, hash);
	}
	if (PyErr_Occurred())
		goto done;
	Py_INCREF(Py_None);
	result = Py_None;

done:
	Py_XDECREF(iter);
	scratch_free(&s);
	PyBuffer_Release(&view);
	return result;
}

static PyMethodDef module_methods[] = {
	{"build", (PyCFunction) (void (*)(void)) mod_build, METH_FASTCALL, build_doc},
	{"parse", mod_parse, METH_O, parse_doc},
	{"parse_raw", mod_parse_raw, METH_O, parse_raw_doc},
	{"may_contain", (PyCFunction) (void (*)(void)) mod_may_contain, METH_FASTCALL,
	 may_contain_doc},
	{"may_contain_many", (PyCFunction) (void (*)(void)) mod_may_contain_many,
	 METH_FASTCALL, may_contain_many_doc},
	{"hash", mod_hash, METH_O, hash_doc},
	{"key_bytes", mod_key_bytes, METH_O, key_bytes_doc},
	{"to_text", mod_to_text, METH_O, to_text_doc},
	{"info", (PyCFunction) (void (*)(void)) mod_info, METH_FASTCALL, info_doc},
	{"combine", (PyCFunction) (void (*)(void)) mod_combine, METH_FASTCALL,
	 combine_doc},
	{"bits_per_key_figures", mod_bits_per_key_figures, METH_O,
	 bits_per_key_figures_doc},
	{"bits_per_key_for_fpr", mod_bits_per_key_for_fpr, METH_O,
	 bits_per_key_for_fpr_doc},
	{"empty", (PyCFunction) (void (*)(void)) mod_empty, METH_FASTCALL, empty_doc},
	{"update", (PyCFunction) (void (*)(void)) mod_update, METH_FASTCALL, update_doc},
	{NULL, NULL, 0, NULL}
};

static int
module_exec(PyObject *module)
{
	module_state *st = get_state(module);
	PyObject   *uuid_module = PyImport_ImportModule("uuid");

	if (uuid_module == NULL)
		return -1;
	st->uuid_type = PyObject_GetAttrString(uuid_module, "UUID");
	Py_DECREF(uuid_module);
	if (st->uuid_type == NULL)
		return -1;
	if (PyModule_AddStringConstant(module, "__version__", BLOOMFILTER_VERSION) < 0 ||
		PyModule_AddStringConstant(module, "LIBRARY_VERSION", bloomfilter_version()) < 0)
		return -1;
	return 0;
}

static int
module_traverse(PyObject *module, visitproc visit, void *arg)
{
	module_state *st = get_state(module);

	if (st != NULL)
		Py_VISIT(st->uuid_type);
	return 0;
}

static int
module_clear(PyObject *module)
{
	module_state *st = get_state(module);

	if (st != NULL)
		Py_CLEAR(st->uuid_type);
	return 0;
}

static void
module_free(void *module)
{
	module_clear((PyObject *) module);
}

static PyModuleDef_Slot module_slots[] = {
	{Py_mod_exec, (void *) module_exec},
	{0, NULL}
};

PyDoc_STRVAR(module_doc,
"The C half of the bloomfilter package: use bloomfilter.BloomFilter.");

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "bloomfilter._bloomfilter",
	.m_doc = module_doc,
	.m_size = sizeof(module_state),
	.m_methods = module_methods,
	.m_slots = module_slots,
	.m_traverse = module_traverse,
	.m_clear = module_clear,
	.m_free = module_free,
};

PyMODINIT_FUNC
PyInit__bloomfilter(void)
{
	return PyModuleDef_Init(&module_def);
}
