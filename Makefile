# PGXS build of the bloomfilter extension, plus the server-free tests.
#
#   make && make install && make installcheck   against your own server
#   make unittest                               core tests, no server
#   make leveldbtest                            core vs. libleveldb (libleveldb-dev)
#   scripts/test.sh                             everything, on a throw-away cluster

EXTENSION = bloomfilter
MODULE_big = bloomfilter
DATA = bloomfilter--1.0.sql bloomfilter--1.1.sql bloomfilter--1.0--1.1.sql bloomfilter--1.1--1.2.sql bloomfilter--1.2--1.3.sql bloomfilter--1.3--1.4.sql

# src/core: the PostgreSQL-free core (no PostgreSQL header); src/pg: the
# SQL-facing glue that calls it.
CORE_OBJS = src/core/bloom_hash.o src/core/bloom_filter.o src/core/bloom_hex.o \
	src/core/bloom_state.o src/core/bloom_stats.o src/core/bloom_setops.o \
	src/core/bloom_scheme.o src/core/bloom_scheme_table.o src/core/bloom_gaps.o \
	src/core/bloom_hash_run.o src/core/bloom_build.o src/core/bloom_final.o \
	src/core/bloom_kmv.o src/core/bloom_sample.o src/core/bloom_sort.o \
	src/core/bloom_flatten.o src/core/bloom_barrier.o src/core/bloom_team.o
OBJS = $(CORE_OBJS) \
	src/pg/bloom_pg.o src/pg/bloom_type_io.o src/pg/bloom_type_ops.o \
	src/pg/bloom_agg_state.o src/pg/bloom_agg_runs.o src/pg/bloom_agg_flat.o \
	src/pg/bloom_agg_state_io.o src/pg/bloom_agg_handoff.o src/pg/bloom_agg.o src/pg/bloom_probe.o \
	src/pg/bloom_filter_cache.o src/pg/bloom_stored_cache.o src/pg/bloom_shared_cache.o src/pg/bloom_combine.o \
	src/pg/bloom_info.o src/pg/bloom_reserved.o src/pg/bloom_selfuncs.o src/pg/bloom_function_is.o \
	src/pg/bloom_subquery_estimate.o src/pg/bloom_join_filter.o src/pg/bloom_join_filter_cost.o src/pg/bloom_fdw_encoding.o src/pg/bloom_analyze.o src/pg/bloom_final_pg.o \
	src/pg/bloom_key.o src/pg/bloom_key_encode.o src/pg/bloom_key_collation.o src/pg/bloom_module.o

REGRESS = bloomfilter_type bloom_agg bloom_agg_contexts bloom_probe bloom_agg_state bloom_agg_parallel bad_input \
	bloomfilter_cast bloomfilter_eq bloom_info bloom_combine bloom_btree bloom_reserved bloom_estimates bloom_two_phase bloom_keys \
	bloom_key_rules bloom_hostile bloom_names bloom_threads bloom_subquery_estimates bloom_stored_cache
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CFLAGS += -Wall -Wextra
# The final function's threads (src/core/bloom_final.c): glibc before 2.34
# (Debian 11, PostgreSQL 13) keeps pthreads in a library of its own.
SHLIB_LINK += -pthread
# Recursive, so $(srcdir) is PGXS's: the source tree in a VPATH build.
PG_CPPFLAGS = -I$(srcdir)/src/core -I$(srcdir)/src/pg
# make BLOOM_TRACE=1: log lines with the time of each of bloom_agg's steps
# (src/pg/bloom_trace_pg.h), for bench/manycore_bench.sh's table of steps.
ifdef BLOOM_TRACE
PG_CPPFLAGS += -DBLOOM_TRACE
OBJS += src/pg/bloom_trace_pg.o
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
# before the include: pgxs.mk tests it with ifdef when it is read
EXTRA_CLEAN = test/stats/stats_accuracy bench/micro/scheme_table test/unit/test_core test/unit/test_core_sanitize test/unit/test_core_s390x bloomfilter-*.zip test/unit/vectors2tsv test/leveldb/leveldb_diff test/leveldb/obj test/fuzz/build bench/core_bench bench/obj bench/micro/fault_cost
include $(PGXS)

# PGXS tracks no header dependencies (autodepend is off in Debian's build).
$(OBJS): $(wildcard $(srcdir)/src/*/*.h)

# A VPATH build (Debian's pg_buildext builds in build-N/) writes the
# objects below the build directory, whose subdirectories nothing else makes.
ifdef VPATH
$(shell mkdir -p src/core src/pg)
endif

# ---- server-free tests of the core -------------------------------------

CORE_SRCS = $(CORE_OBJS:.o=.c)
CORE_HDRS = $(wildcard src/core/*.h)
TEST_CC ?= cc
TEST_CXX ?= c++
TEST_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra -Werror
TEST_CXXFLAGS ?= -std=gnu++17 -O2 -g -Wall -Wextra -Werror

# the unit tests: main in test_core.c, one file per part of the core
UNIT_SRCS = $(addprefix test/unit/,test_core.c unit.c vectors.c test_vectors.c \
	test_geometry.c test_filter.c test_validate.c test_hex.c test_state.c \
	test_final.c test_flatten.c test_team.c test_stats.c test_gaps.c test_setops.c \
	test_hash.c test_keys.c test_prepared.c test_kmv.c test_sample.c)
# test_team.c fails the core's thread starts on demand: every create comes
# through its __wrap_pthread_create.
UNIT_LIBS = -lm -pthread -Wl,--wrap=pthread_create
UNIT_DEPS = $(UNIT_SRCS) test/unit/unit.h test/unit/vectors.h test/lib/bloom_reference.h $(CORE_SRCS) $(CORE_HDRS)

test/unit/test_core: $(UNIT_DEPS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ $(UNIT_SRCS) $(CORE_SRCS) $(UNIT_LIBS)

unittest: test/unit/test_core
	test/unit/test_core test/data/vectors

test/unit/vectors2tsv: test/unit/vectors2tsv.c test/unit/vectors.c test/unit/vectors.h test/lib/bloom_reference.h $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ test/unit/vectors2tsv.c test/unit/vectors.c $(CORE_SRCS) -lm -pthread

# The core is C and is compiled as C, into objects of its own: PGXS's
# src/core/*.o carry the server's flags and must not be mixed in.
LEVELDB_DIFF_CORE_OBJS = $(patsubst src/core/%.c,test/leveldb/obj/%.o,$(CORE_SRCS))

$(LEVELDB_DIFF_CORE_OBJS): test/leveldb/obj/%.o: src/core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -c -o $@ $<

LEVELDB_DIFF_SRCS = $(addprefix test/leveldb/,leveldb_diff.cc cases.cc typed_cases.cc \
	implementations.cc check.cc export.cc)

# vec_is_text, the check of what PostgreSQL takes as text, is the unit tests'
test/leveldb/obj/vectors.o: test/unit/vectors.c test/unit/vectors.h test/lib/bloom_reference.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -c -o $@ test/unit/vectors.c

test/leveldb/leveldb_diff: $(LEVELDB_DIFF_SRCS) test/leveldb/leveldb_diff.h $(CORE_HDRS) $(LEVELDB_DIFF_CORE_OBJS) test/leveldb/obj/vectors.o
	$(TEST_CXX) $(TEST_CXXFLAGS) -Isrc/core -o $@ $(LEVELDB_DIFF_SRCS) $(LEVELDB_DIFF_CORE_OBJS) test/leveldb/obj/vectors.o -lleveldb -pthread

leveldbtest: test/leveldb/leveldb_diff
	test/leveldb/leveldb_diff check

# The core against libleveldb, for speed (bench/run.sh).  The core is
# compiled with the flags PGXS compiles the extension with.
BENCH_CORE_OBJS = $(patsubst src/core/%.c,bench/obj/%.o,$(CORE_SRCS))

$(BENCH_CORE_OBJS): bench/obj/%.o: src/core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc/core -c -o $@ $<

bench/core_bench: bench/core_bench.cc $(CORE_HDRS) $(BENCH_CORE_OBJS)
	$(TEST_CXX) $(TEST_CXXFLAGS) -Isrc/core -o $@ bench/core_bench.cc $(BENCH_CORE_OBJS) -lleveldb -pthread

# The same unit tests under AddressSanitizer (with LeakSanitizer) and UBSan,
# in a binary of their own.  Any report stops the run with a non-zero exit.
SANITIZE_CC ?= clang
SANITIZE_CFLAGS ?= -std=gnu11 -O1 -g -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

test/unit/test_core_sanitize: $(UNIT_DEPS)
	$(SANITIZE_CC) $(SANITIZE_CFLAGS) -Isrc/core -o $@ $(UNIT_SRCS) $(CORE_SRCS) $(UNIT_LIBS)

unittest-sanitize: test/unit/test_core_sanitize
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	test/unit/test_core_sanitize test/data/vectors

# The same unit tests on a big-endian machine: cross-compiled for s390x,
# statically (no s390x libraries needed), and run under qemu's user-mode
# emulator, named directly so that no binfmt registration is needed.
S390X_CC ?= s390x-linux-gnu-gcc
QEMU_S390X ?= qemu-s390x-static

# The threaded final under ThreadSanitizer: any data race is a report, and
# a report is a failure (halt_on_error).
test/unit/final_tsan: test/unit/final_tsan.c $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) -std=gnu11 -O1 -g -fsanitize=thread -Wall -Wextra -Werror -DBLOOM_TRACE -Isrc/core -o $@ test/unit/final_tsan.c $(CORE_SRCS) -lm -pthread

unittest-tsan: test/unit/final_tsan
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 test/unit/final_tsan

test/unit/test_core_s390x: $(UNIT_DEPS)
	$(S390X_CC) -static -std=gnu11 -O2 -Wall -Wextra -Werror -Isrc/core -o $@ $(UNIT_SRCS) $(CORE_SRCS) $(UNIT_LIBS)

unittest-s390x: test/unit/test_core_s390x
	$(QEMU_S390X) test/unit/test_core_s390x test/data/vectors

# The statistics against measurement (test/stats/stats_accuracy.c), and the
# checked-in table of rates against the program that made it.
test/stats/stats_accuracy: test/stats/stats_accuracy.c $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ test/stats/stats_accuracy.c $(CORE_SRCS) -lm -pthread

bench/micro/gaps_bench: bench/micro/gaps_bench.c $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ bench/micro/gaps_bench.c $(CORE_SRCS) -lm -pthread

gaps-bench: bench/micro/gaps_bench
	bench/micro/gaps_bench

bench/micro/set_bench: bench/micro/set_bench.c $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ bench/micro/set_bench.c $(CORE_SRCS) -lm -pthread

set-bench: bench/micro/set_bench
	bench/micro/set_bench

# What first touching memory costs on the machine it runs on (doc/performance.md).
bench/micro/fault_cost: bench/micro/fault_cost.c
	$(TEST_CC) $(TEST_CFLAGS) -o $@ bench/micro/fault_cost.c

fault-cost: bench/micro/fault_cost
	bench/micro/fault_cost

bench/micro/scheme_table: bench/micro/scheme_table.c $(CORE_SRCS) $(CORE_HDRS)
	$(TEST_CC) $(TEST_CFLAGS) -Isrc/core -o $@ bench/micro/scheme_table.c $(CORE_SRCS) -lm -pthread

statstest: test/stats/stats_accuracy bench/micro/scheme_table
	bench/micro/scheme_table --check 4 10 20
	test/stats/stats_accuracy

# Remake src/core/bloom_scheme_table.c (about 20 s); it changes only when
# the scheme, the measuring or the table's shape does.
scheme-table: bench/micro/scheme_table
	bench/micro/scheme_table > src/core/bloom_scheme_table.c.new
	mv src/core/bloom_scheme_table.c.new src/core/bloom_scheme_table.c

# PGXN: the committed tree (DIST_REF) as bloomfilter-VERSION.zip, VERSION
# being META.json's, the control file's default_version as a semantic
# version (test/meta_test.sh checks that they agree).
DIST_VERSION = $(shell sed -n 's/^   "version": "\([^"]*\)".*/\1/p' $(srcdir)/META.json)
DIST_REF ?= HEAD

dist:
	git archive --format zip --prefix=bloomfilter-$(DIST_VERSION)/ -o bloomfilter-$(DIST_VERSION).zip $(DIST_REF)

.PHONY: unittest leveldbtest unittest-sanitize unittest-tsan gaps-bench set-bench fault-cost unittest-s390x dist statstest scheme-table

