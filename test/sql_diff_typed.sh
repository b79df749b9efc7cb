#!/usr/bin/env bash
#
# test/sql_diff_typed.sh OUTDIR
#
# Checks the installed bloomfilter extension's typed keys (smallint,
# integer, bigint, uuid) and multi-column keys (bloom_key), through SQL,
# against filters and answers written by the real LevelDB over the bytes
# the key encoding gives (test/leveldb/leveldb_diff export-typed-sql, which
# writes those bytes itself).  OUTDIR holds four COPY-text files:
#
#   cases.tsv   case_id, kind, shape, bpk, nkeys, split, filter_hex
#   keys.tsv    case_id, ord, c1, c2, c3, c4
#   probes.tsv  case_id, ord, c1, c2, c3, c4, expected
#   labels.tsv  ord, label_hex
#
# kind is 'int', 'uuid' or 'multi'.  shape names the SQL types of the
# key's components, comma-separated: for 'int' the narrowest of smallint,
# integer and bigint that holds every key of the case, for 'uuid' uuid,
# for 'multi' the types of bloom_key's arguments (smallint, integer,
# bigint, uuid, text, varchar, char(20), name, bytea, boolean, float8 and
# sd_label, an enum of labels.tsv's labels in their order).  c1..c4 are
# the components, \N for NULL or unused: integers in decimal, uuids in
# their canonical text, booleans t or f, float8 as text that reads back
# exactly, and the bytes of everything else (text in UTF8) in hex, so
# every value survives COPY.  split cuts the keys (ord < split) for the
# two-phase aggregate.  filter_hex is LevelDB's filter of the case's keys,
# expected LevelDB's KeyMayMatch of the probe against it.
#
# Runs against the server the PG* environment points at, in a scratch UTF8
# database it creates and drops.  For every case, with key the typed value
# (bloom_key(...) of the components for 'multi'):
#   bloom_agg(key, bpk) equals filter_hex (NULL when there are no keys), and
#   so do bloom_agg(key, bpk, nkeys), bloom_add(bloom_empty(nkeys, bpk),
#   array_agg(key)), the window bloom_agg(key, bpk) OVER (PARTITION BY the
#   case) and bloom_agg_merge of bloom_agg_partial of the keys before and
#   after split (for 'int' the first part at the shape's width); for 'int'
#   cases that fit integer or smallint, bloom_agg, the fixed geometry and
#   bloom_add at those widths too;
#   every probe: key <~ filter and filter ~> key equal expected, and for
#   integers the same at every narrower width the value fits.
# Each case is one test; it passes when all of that holds.  The work is
# set-based; only if a set-based statement raises an error are the cases
# redone one by one, to tell which case raised it.
#
# Environment: SQL_DIFF_MAX_REPORT (failing cases listed, default 25),
# SQL_DIFF_PER_CASE=1 (skip the set-based pass; for testing this script),
# SQL_DIFF_KEEP_DB=1 (leave the scratch database for inspection).
#
# Last line: `sql-diff-typed: N passed, N failed`.  Exit 0 when nothing
# failed, 1 when a case failed, 2 when the check itself could not run (no
# count).

set -euo pipefail

# shellcheck source=test/lib/sql_diff_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/sql_diff_common.sh"
die() { sql_diff_die "$@"; }
SQL_DIFF_LABEL=sql-diff-typed

usage() {
	echo "usage: $0 OUTDIR" >&2
	exit 2
}

[ $# -eq 1 ] || usage
dir=$1
for f in cases keys probes labels; do
	[ -r "$dir/$f.tsv" ] || die "$dir/$f.tsv not found or not readable"
done
sql_diff_setup sql-diff-typed

# ---- schema and load -----------------------------------------------------------
sql_diff_schema
"${PSQL[@]}" -d "$db" <<'SQL' || die "the scratch schema failed"
CREATE TABLE cases (case_id text, kind text, shape text, bpk int, nkeys int,
	split int, filter_hex text);
CREATE TABLE keys (case_id text, ord int, c1 text, c2 text, c3 text, c4 text);
CREATE TABLE probes (case_id text, ord int, c1 text, c2 text, c3 text, c4 text,
	expected bool);
CREATE TABLE labels (ord int, label_hex text);

-- the typed keys made from the components, by their case's kind: k8, k4
-- and k2 for 'int' (k4 and k2 where the width holds them), ku for 'uuid',
-- kb = bloom_key(...) for 'multi'
CREATE TABLE tkeys (case_id text, ord int, k8 bigint, k4 integer, k2 smallint,
	ku uuid, kb bytea);
CREATE TABLE tprobes (case_id text, ord int, expected bool, k8 bigint, k4 integer,
	k2 smallint, ku uuid, kb bytea);
-- errors making a case's keys (only from the case-by-case retry)
CREATE TABLE make_err (case_id text, err text);

-- the filters (text form), per case: bloom_agg (fb), the fixed geometry
-- (fr), bloom_add (fa), and for 'int' at integer (f4, r4, a4) and at
-- smallint (f2, r2, a2) width; the window and the two-phase aggregates
CREATE TABLE built (case_id text, nk bigint, fb text, fr text, fa text,
	f4 text, r4 text, a4 text, f2 text, r2 text, a2 text, err text);
CREATE TABLE windowed (case_id text, fw text, err text);
CREATE TABLE merged (case_id text, fm text, err text);
CREATE TABLE pfilter (case_id text, f bloomfilter, err text);
CREATE TABLE probe_res (case_id text, ord int, expected bool,
	b1 bool, b2 bool, i1 bool, i2 bool, s1 bool, s2 bool, mismatch bool);
CREATE TABLE probe_err (case_id text, err text);

-- where-clause for one case, or none for all
CREATE FUNCTION sd_where(p_case text, alias text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN p_case IS NULL THEN ''
	            ELSE format(' AND %I.case_id = %L', alias, p_case) END
$$;

-- the SQL value of a component column of the given type
CREATE FUNCTION sd_component(typ text, col text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN CASE
		WHEN typ IN ('smallint', 'integer', 'bigint', 'uuid', 'boolean', 'float8')
		THEN format('%s::%s', col, typ)
		WHEN typ = 'bytea' THEN format('decode(%s, ''hex'')', col)
		WHEN typ = 'text' THEN format('convert_from(decode(%s, ''hex''), ''UTF8'')', col)
		WHEN typ IN ('varchar', 'char(20)', 'name', 'sd_label')
		THEN format('convert_from(decode(%s, ''hex''), ''UTF8'')::%s', col, typ)
	END;
END
$$;

-- the select list k8, k4, k2, ku, kb of a case's keys (probes: narrower
-- integers only where the value fits; keys: at the widths the shape says,
-- so a key that does not fit is an error)
CREATE FUNCTION sd_key_columns(kind text, shape text, probe bool) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	types text[] := string_to_array(shape, ',');
	args text[] := '{}';
	e text;
BEGIN
	IF kind = 'int' AND probe AND shape IN ('smallint', 'integer', 'bigint') THEN
		RETURN 'c1::bigint,
		        CASE WHEN c1::numeric BETWEEN -2147483648 AND 2147483647 THEN c1::integer END,
		        CASE WHEN c1::numeric BETWEEN -32768 AND 32767 THEN c1::smallint END,
		        NULL::uuid, NULL::bytea';
	ELSIF kind = 'int' AND shape IN ('smallint', 'integer', 'bigint') THEN
		RETURN format('c1::bigint, %s, %s, NULL::uuid, NULL::bytea',
		              CASE WHEN shape IN ('integer', 'smallint') THEN 'c1::integer' ELSE 'NULL::integer' END,
		              CASE WHEN shape = 'smallint' THEN 'c1::smallint' ELSE 'NULL::smallint' END);
	ELSIF kind = 'uuid' THEN
		RETURN 'NULL::bigint, NULL::integer, NULL::smallint, c1::uuid, NULL::bytea';
	ELSIF kind = 'multi' AND cardinality(types) BETWEEN 1 AND 4 THEN
		FOR i IN 1 .. cardinality(types) LOOP
			e := sd_component(types[i], 'c' || i);
			IF e IS NULL THEN
				RAISE EXCEPTION 'unknown component type "%" in shape "%"', types[i], shape;
			END IF;
			args := args || e;
		END LOOP;
		RETURN format('NULL::bigint, NULL::integer, NULL::smallint, NULL::uuid, bloom_key(%s)',
		              array_to_string(args, ', '));
	END IF;
	RAISE EXCEPTION 'unknown kind "%" or shape "%"', kind, shape;
END
$$;

-- the typed keys and probes of every case (or of one), one statement per
-- kind and shape
CREATE FUNCTION sd_make(p_case text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
	r record;
BEGIN
	FOR r IN EXECUTE format('SELECT DISTINCT kind, shape FROM cases c WHERE true %s',
	                        sd_where(p_case, 'c')) LOOP
		EXECUTE format($q$
			INSERT INTO tkeys (case_id, ord, k8, k4, k2, ku, kb)
			SELECT k.case_id, k.ord, %s
			FROM keys k JOIN cases c ON c.case_id = k.case_id
			WHERE c.kind IS NOT DISTINCT FROM %L AND c.shape IS NOT DISTINCT FROM %L %s$q$,
			sd_key_columns(r.kind, r.shape, false), r.kind, r.shape, sd_where(p_case, 'c'));
		EXECUTE format($q$
			INSERT INTO tprobes (case_id, ord, expected, k8, k4, k2, ku, kb)
			SELECT p.case_id, p.ord, p.expected, %s
			FROM probes p JOIN cases c ON c.case_id = p.case_id
			WHERE c.kind IS NOT DISTINCT FROM %L AND c.shape IS NOT DISTINCT FROM %L %s$q$,
			sd_key_columns(r.kind, r.shape, true), r.kind, r.shape, sd_where(p_case, 'c'));
	END LOOP;
END
$f$;

-- bloom_agg, its fixed geometry and bloom_add over the keys of every case
-- (or of one)
CREATE FUNCTION sd_build(p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO built (case_id, nk, fb, fr, fa, f4, r4, a4, f2, r2, a2)
		SELECT c.case_id, count(t.case_id),
		       CASE c.kind
		         WHEN 'int' THEN bloom_agg(t.k8, c.bpk ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		         WHEN 'uuid' THEN bloom_agg(t.ku, c.bpk ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		         ELSE bloom_agg(t.kb, c.bpk ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		       END::text,
		       CASE c.kind
		         WHEN 'int' THEN bloom_agg(t.k8, c.bpk, c.nkeys::bigint ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		         WHEN 'uuid' THEN bloom_agg(t.ku, c.bpk, c.nkeys::bigint ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		         ELSE bloom_agg(t.kb, c.bpk, c.nkeys::bigint ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL)
		       END::text,
		       CASE c.kind
		         WHEN 'int' THEN bloom_add(bloom_empty(c.nkeys, c.bpk),
		                                   coalesce(array_agg(t.k8 ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL), '{}'))
		         WHEN 'uuid' THEN bloom_add(bloom_empty(c.nkeys, c.bpk),
		                                    coalesce(array_agg(t.ku ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL), '{}'))
		         ELSE bloom_add(bloom_empty(c.nkeys, c.bpk),
		                        coalesce(array_agg(t.kb ORDER BY t.ord) FILTER (WHERE t.case_id IS NOT NULL), '{}'))
		       END::text,
		       (bloom_agg(t.k4, c.bpk ORDER BY t.ord) FILTER (WHERE t.k4 IS NOT NULL))::text,
		       (bloom_agg(t.k4, c.bpk, c.nkeys::bigint ORDER BY t.ord) FILTER (WHERE t.k4 IS NOT NULL))::text,
		       CASE WHEN c.kind = 'int' AND c.shape IN ('integer', 'smallint')
		            THEN bloom_add(bloom_empty(c.nkeys, c.bpk),
		                           coalesce(array_agg(t.k4 ORDER BY t.ord) FILTER (WHERE t.k4 IS NOT NULL), '{}')) END::text,
		       (bloom_agg(t.k2, c.bpk ORDER BY t.ord) FILTER (WHERE t.k2 IS NOT NULL))::text,
		       (bloom_agg(t.k2, c.bpk, c.nkeys::bigint ORDER BY t.ord) FILTER (WHERE t.k2 IS NOT NULL))::text,
		       CASE WHEN c.kind = 'int' AND c.shape = 'smallint'
		            THEN bloom_add(bloom_empty(c.nkeys, c.bpk),
		                           coalesce(array_agg(t.k2 ORDER BY t.ord) FILTER (WHERE t.k2 IS NOT NULL), '{}')) END::text
		FROM cases c
		LEFT JOIN tkeys t ON t.case_id = c.case_id
		WHERE c.kind IN ('int', 'uuid', 'multi') AND c.bpk IS NOT NULL AND c.nkeys IS NOT NULL %s
		GROUP BY c.case_id, c.kind, c.shape, c.nkeys, c.bpk$q$, sd_where(p_case, 'c'));
END
$f$;

-- bloom_agg as a window function over each case's keys
CREATE FUNCTION sd_window(p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO windowed (case_id, fw)
		SELECT DISTINCT ON (case_id) case_id, fw::text
		FROM (
			SELECT t.case_id,
			       CASE c.kind
			         WHEN 'int' THEN bloom_agg(t.k8, c.bpk) OVER w
			         WHEN 'uuid' THEN bloom_agg(t.ku, c.bpk) OVER w
			         ELSE bloom_agg(t.kb, c.bpk) OVER w
			       END AS fw
			FROM tkeys t JOIN cases c ON c.case_id = t.case_id
			WHERE c.bpk IS NOT NULL %s
			WINDOW w AS (PARTITION BY t.case_id ORDER BY t.ord
			             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
		) s
		ORDER BY case_id$q$, sd_where(p_case, 'c'));
END
$f$;

-- bloom_agg_merge of bloom_agg_partial of the keys before and after split;
-- for 'int' the first part at the shape's width, the second as bigint
CREATE FUNCTION sd_merge(p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO merged (case_id, fm)
		SELECT case_id, bloom_agg_merge(s)::text
		FROM (
			SELECT t.case_id,
			       CASE WHEN c.kind = 'int' AND t.ord < c.split AND c.shape = 'smallint'
			            THEN bloom_agg_partial(t.k2, c.bpk)
			            WHEN c.kind = 'int' AND t.ord < c.split AND c.shape = 'integer'
			            THEN bloom_agg_partial(t.k4, c.bpk)
			            WHEN c.kind = 'int' THEN bloom_agg_partial(t.k8, c.bpk)
			            WHEN c.kind = 'uuid' THEN bloom_agg_partial(t.ku, c.bpk)
			            ELSE bloom_agg_partial(t.kb, c.bpk)
			       END AS s
			FROM tkeys t JOIN cases c ON c.case_id = t.case_id
			WHERE c.bpk IS NOT NULL %s
			GROUP BY t.case_id, c.kind, c.shape, c.bpk, t.ord < c.split
		) p
		GROUP BY case_id$q$, sd_where(p_case, 'c'));
END
$f$;

-- every probe of every case that has a filter (or of one case)
CREATE FUNCTION sd_probe(p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO probe_res (case_id, ord, expected, b1, b2, i1, i2, s1, s2, mismatch)
		SELECT case_id, ord, expected, b1, b2, i1, i2, s1, s2,
		       b1 IS DISTINCT FROM expected OR b2 IS DISTINCT FROM expected
		       OR (k4 IS NOT NULL AND (i1 IS DISTINCT FROM expected OR i2 IS DISTINCT FROM expected))
		       OR (k2 IS NOT NULL AND (s1 IS DISTINCT FROM expected OR s2 IS DISTINCT FROM expected))
		FROM (
			SELECT p.case_id, p.ord, p.expected, p.k4, p.k2,
			       CASE c.kind WHEN 'int' THEN p.k8 <~ pf.f
			                   WHEN 'uuid' THEN p.ku <~ pf.f
			                   ELSE p.kb <~ pf.f END AS b1,
			       CASE c.kind WHEN 'int' THEN pf.f ~> p.k8
			                   WHEN 'uuid' THEN pf.f ~> p.ku
			                   ELSE pf.f ~> p.kb END AS b2,
			       p.k4 <~ pf.f AS i1, pf.f ~> p.k4 AS i2,
			       p.k2 <~ pf.f AS s1, pf.f ~> p.k2 AS s2
			FROM tprobes p
			JOIN cases c ON c.case_id = p.case_id
			JOIN pfilter pf ON pf.case_id = p.case_id
			WHERE pf.f IS NOT NULL %s
		) s
		$q$, sd_where(p_case, 'p'));
END
$f$;
SQL

for t in cases keys probes labels; do
	case $t in
	cases) cols="case_id, kind, shape, bpk, nkeys, split, filter_hex" ;;
	keys) cols="case_id, ord, c1, c2, c3, c4" ;;
	probes) cols="case_id, ord, c1, c2, c3, c4, expected" ;;
	labels) cols="ord, label_hex" ;;
	esac
	"${PSQL[@]}" -d "$db" -c "\\copy $t ($cols) FROM pstdin" <"$dir/$t.tsv" ||
		die "loading $dir/$t.tsv failed"
done

# The enum's labels come with the export, so the two cannot drift apart.
"${PSQL[@]}" -d "$db" <<'SQL' || die "cannot create the enum of labels.tsv"
DO $$
BEGIN
	EXECUTE format('CREATE TYPE sd_label AS ENUM (%s)',
	               (SELECT coalesce(string_agg(quote_literal(convert_from(decode(label_hex, 'hex'), 'UTF8')),
	                                           ', ' ORDER BY ord), '')
	                FROM labels));
END
$$;
SQL

# ---- check ---------------------------------------------------------------------
"${PSQL[@]}" -d "$db" -At -F $'\t' -v max_report="$max_report" -v dir="$dir" -v per_case="$per_case" \
	>"$tmp/out" <<'SQL' || die "the check queries failed (see above)"
SET client_min_messages = notice;
SET sd.per_case = :'per_case';

CREATE INDEX ON keys (case_id);
CREATE INDEX ON probes (case_id);
CREATE INDEX ON cases (case_id);
ANALYZE cases; ANALYZE keys; ANALYZE probes;

SELECT 'LOADED', format('%s: %s cases, %s keys, %s probes, %s labels', :'dir',
       (SELECT count(*) FROM cases), (SELECT count(*) FROM keys),
       (SELECT count(*) FROM probes), (SELECT count(*) FROM labels));

-- 1. the typed keys from the components
CALL sd_set_based_else_per_case('sd_make', 'making the keys',
	$$SELECT DISTINCT case_id FROM cases WHERE case_id IS NOT NULL ORDER BY 1$$, 'make_err');
CREATE INDEX ON tkeys (case_id);
CREATE INDEX ON tprobes (case_id);
ANALYZE tkeys; ANALYZE tprobes;

-- 2. the filters, set-based; case by case only to isolate an error
CALL sd_set_based_else_per_case('sd_build', 'bloom_agg',
	$$SELECT DISTINCT case_id FROM cases WHERE kind IN ('int', 'uuid', 'multi')
	  AND bpk IS NOT NULL AND nkeys IS NOT NULL ORDER BY 1$$, 'built');
CALL sd_set_based_else_per_case('sd_window', 'the window bloom_agg',
	$$SELECT DISTINCT case_id FROM tkeys ORDER BY 1$$, 'windowed');
CALL sd_set_based_else_per_case('sd_merge', 'bloom_agg_merge',
	$$SELECT DISTINCT case_id FROM tkeys ORDER BY 1$$, 'merged');

-- 3. LevelDB's filter, to probe
INSERT INTO pfilter (case_id, f, err)
SELECT case_id, (t).f, (t).err
FROM (SELECT DISTINCT ON (case_id) case_id, sd_try_filter(lower(filter_hex)) AS t
      FROM cases WHERE case_id IS NOT NULL AND filter_hex IS NOT NULL
      ORDER BY case_id) c;

-- 4. probes, set-based; case by case only to isolate an error
CALL sd_set_based_else_per_case('sd_probe', 'probing',
	$$SELECT case_id FROM pfilter WHERE f IS NOT NULL ORDER BY 1$$, 'probe_err');

-- 5. one verdict per case id seen in any of the three files
CREATE TABLE verdict AS
WITH ids AS (
	SELECT case_id FROM cases WHERE case_id IS NOT NULL
	UNION SELECT case_id FROM keys WHERE case_id IS NOT NULL
	UNION SELECT case_id FROM probes WHERE case_id IS NOT NULL
),
crow AS (
	SELECT DISTINCT ON (case_id) *, count(*) OVER (PARTITION BY case_id) AS nrows
	FROM cases ORDER BY case_id
),
kc AS (SELECT case_id, count(*) AS n FROM keys GROUP BY 1),
pc AS (SELECT case_id, count(*) AS n FROM probes GROUP BY 1),
tk AS (SELECT case_id, count(*) AS n FROM tkeys GROUP BY 1),
tp AS (SELECT case_id, count(*) AS n FROM tprobes GROUP BY 1),
me AS (SELECT case_id, string_agg(err, '; ') AS err FROM make_err GROUP BY 1),
pr AS (
	SELECT case_id, count(*) AS n, count(*) FILTER (WHERE mismatch) AS bad,
	       min(ord) FILTER (WHERE mismatch) AS first_bad
	FROM probe_res GROUP BY 1
),
pe AS (SELECT case_id, string_agg(err, '; ') AS err FROM probe_err GROUP BY 1),
bt AS (
	SELECT case_id, count(*) AS nrows, max(nk) AS nk, max(fb) AS fb, max(fr) AS fr,
	       max(fa) AS fa, max(f4) AS f4, max(r4) AS r4, max(a4) AS a4,
	       max(f2) AS f2, max(r2) AS r2, max(a2) AS a2, string_agg(err, '; ') AS err
	FROM built GROUP BY 1
),
wd AS (SELECT case_id, max(fw) AS fw, string_agg(err, '; ') AS err FROM windowed GROUP BY 1),
mg AS (SELECT case_id, max(fm) AS fm, string_agg(err, '; ') AS err FROM merged GROUP BY 1),
j AS (
	SELECT i.case_id, c.case_id IS NOT NULL AS in_cases, c.nrows, c.kind, c.shape,
	       coalesce(c.kind = 'int' AND c.shape IN ('integer', 'smallint'), false) AS fits4,
	       coalesce(c.kind = 'int' AND c.shape = 'smallint', false) AS fits2,
	       c.bpk, c.nkeys, c.split, lower(c.filter_hex) AS filter_hex,
	       coalesce(kc.n, 0) AS nk, coalesce(pc.n, 0) AS np,
	       coalesce(tk.n, 0) AS ntk, coalesce(tp.n, 0) AS ntp, me.err AS make_err,
	       b.case_id IS NOT NULL AS has_built, b.err AS build_err,
	       b.fb, b.fr, b.fa, b.f4, b.r4, b.a4, b.f2, b.r2, b.a2,
	       wd.fw, wd.err AS window_err, mg.fm, mg.err AS merge_err,
	       pf.f IS NOT NULL AS has_pf, pf.err AS cast_err,
	       coalesce(pr.n, 0) AS np_done, coalesce(pr.bad, 0) AS np_bad, pr.first_bad,
	       pe.err AS probe_err
	FROM ids i
	LEFT JOIN crow c ON c.case_id = i.case_id
	LEFT JOIN kc ON kc.case_id = i.case_id
	LEFT JOIN pc ON pc.case_id = i.case_id
	LEFT JOIN tk ON tk.case_id = i.case_id
	LEFT JOIN tp ON tp.case_id = i.case_id
	LEFT JOIN me ON me.case_id = i.case_id
	LEFT JOIN bt b ON b.case_id = i.case_id
	LEFT JOIN wd ON wd.case_id = i.case_id
	LEFT JOIN mg ON mg.case_id = i.case_id
	LEFT JOIN pfilter pf ON pf.case_id = i.case_id
	LEFT JOIN pr ON pr.case_id = i.case_id
	LEFT JOIN pe ON pe.case_id = i.case_id
),
-- the filters each case must give, and which are NULL by rule
m AS (
	SELECT j.case_id, x.how, x.got, x.want_null
	FROM j CROSS JOIN LATERAL (VALUES
		('bloom_agg(key, bpk)', fb, nk = 0, true),
		('bloom_agg(key, bpk, nkeys)', fr, false, nk > 0),
		('bloom_add(bloom_empty(nkeys, bpk), keys)', fa, false, true),
		('bloom_agg(key, bpk) OVER (PARTITION BY the case)', fw, false, nk > 0),
		('bloom_agg_merge(bloom_agg_partial(key, bpk))', fm, false, nk > 0),
		('bloom_agg(key::integer, bpk)', f4, false, nk > 0 AND fits4),
		('bloom_agg(key::integer, bpk, nkeys)', r4, false, nk > 0 AND fits4),
		('bloom_add(bloom_empty(nkeys, bpk), keys::integer[])', a4, false, fits4),
		('bloom_agg(key::smallint, bpk)', f2, false, nk > 0 AND fits2),
		('bloom_agg(key::smallint, bpk, nkeys)', r2, false, nk > 0 AND fits2),
		('bloom_add(bloom_empty(nkeys, bpk), keys::smallint[])', a2, false, fits2)
	) x(how, got, want_null, applies)
	WHERE j.in_cases AND j.nrows = 1 AND j.make_err IS NULL AND j.has_built
	  AND j.build_err IS NULL AND j.nkeys = j.nk AND j.filter_hex IS NOT NULL
	  AND x.applies
	  AND CASE WHEN x.want_null THEN x.got IS NOT NULL
	           ELSE x.got IS DISTINCT FROM '\x' || j.filter_hex END
),
mm AS (
	SELECT case_id, string_agg(format('%s = %s', hows, sd_abbrev(got)), '; ' ORDER BY hows) AS wrong
	FROM (SELECT case_id, got, string_agg(how, ', ' ORDER BY how) AS hows
	      FROM m GROUP BY case_id, got) g
	GROUP BY case_id
)
SELECT j.case_id, array_remove(ARRAY[
	CASE WHEN NOT in_cases
	     THEN format('case id not in cases.tsv (%s keys, %s probes refer to it)', nk, np) END,
	CASE WHEN nrows > 1 THEN format('%s rows in cases.tsv', nrows) END,
	CASE WHEN in_cases AND kind IS DISTINCT FROM 'int' AND kind IS DISTINCT FROM 'uuid'
	          AND kind IS DISTINCT FROM 'multi'
	     THEN format('unknown kind %s', coalesce(quote_literal(kind), 'NULL')) END,
	CASE WHEN in_cases AND (bpk IS NULL OR nkeys IS NULL) THEN 'case without bpk or nkeys' END,
	CASE WHEN in_cases AND nkeys IS DISTINCT FROM nk
	     THEN format('nkeys is %s but keys.tsv has %s keys', nkeys, nk) END,
	CASE WHEN in_cases AND filter_hex IS NULL THEN 'case without filter_hex' END,
	CASE WHEN make_err IS NOT NULL THEN 'making the keys raised: ' || make_err END,
	CASE WHEN make_err IS NULL AND in_cases AND (ntk <> nk OR ntp <> np)
	     THEN format('only %s of %s keys and %s of %s probes were made', ntk, nk, ntp, np) END,
	CASE WHEN in_cases AND bpk IS NOT NULL AND nkeys IS NOT NULL AND NOT has_built
	     THEN 'no bloom_agg result was computed' END,
	CASE WHEN build_err IS NOT NULL THEN 'bloom_agg raised: ' || build_err END,
	CASE WHEN window_err IS NOT NULL THEN 'the window bloom_agg raised: ' || window_err END,
	CASE WHEN merge_err IS NOT NULL THEN 'bloom_agg_merge raised: ' || merge_err END,
	CASE WHEN mm.wrong IS NOT NULL
	     THEN format('%s (%s, bpk %s, %s keys); LevelDB wrote %s',
	                 mm.wrong, shape, bpk, nk, sd_abbrev('\x' || filter_hex)) END,
	CASE WHEN cast_err IS NOT NULL
	     THEN 'LevelDB''s filter is rejected by bloomfilter input: ' || cast_err END,
	CASE WHEN np > 0 AND NOT coalesce(has_pf, false) AND cast_err IS NULL
	     THEN format('%s probes but no filter to probe them with', np) END,
	CASE WHEN probe_err IS NOT NULL THEN 'probing raised: ' || probe_err END,
	CASE WHEN has_pf AND probe_err IS NULL AND make_err IS NULL AND np_done <> np
	     THEN format('only %s of %s probes were evaluated', np_done, np) END,
	CASE WHEN np_bad > 0
	     THEN (SELECT format('%s of %s probes disagree with LevelDB (%s); first: ord %s key (%s) expected %s, got key<~f %s, f~>key %s%s%s',
	                         np_bad, np, shape, r.ord,
	                         array_to_string((ARRAY[p.c1, p.c2, p.c3, p.c4])[1:cardinality(string_to_array(shape, ','))],
	                                         ', ', 'NULL'),
	                         r.expected, coalesce(r.b1::text, 'NULL'), coalesce(r.b2::text, 'NULL'),
	                         CASE WHEN tp.k4 IS NOT NULL
	                              THEN format(', ::integer %s %s', coalesce(r.i1::text, 'NULL'),
	                                          coalesce(r.i2::text, 'NULL')) ELSE '' END,
	                         CASE WHEN tp.k2 IS NOT NULL
	                              THEN format(', ::smallint %s %s', coalesce(r.s1::text, 'NULL'),
	                                          coalesce(r.s2::text, 'NULL')) ELSE '' END)
	           FROM probe_res r
	           JOIN probes p ON p.case_id = r.case_id AND p.ord = r.ord
	           JOIN tprobes tp ON tp.case_id = r.case_id AND tp.ord = r.ord
	           WHERE r.case_id = j.case_id AND r.ord = j.first_bad AND r.mismatch
	           LIMIT 1) END
], NULL) AS reasons
FROM j LEFT JOIN mm ON mm.case_id = j.case_id;

-- rows without a case id belong to no case: one failure per file
INSERT INTO verdict
SELECT '(NULL case_id)', ARRAY[format('%s row(s) with case_id \N in %s.tsv', count(*), t)]
FROM (SELECT 'cases' AS t FROM cases WHERE case_id IS NULL
      UNION ALL SELECT 'keys' FROM keys WHERE case_id IS NULL
      UNION ALL SELECT 'probes' FROM probes WHERE case_id IS NULL) n
GROUP BY t;

-- an export that holds no case is a failure too
INSERT INTO verdict
SELECT '(no cases)', ARRAY['no cases in cases.tsv']
WHERE NOT EXISTS (SELECT 1 FROM cases);

-- 6. report
CREATE VIEW report AS SELECT coalesce(case_id, 'NULL') AS name, reasons FROM verdict;
SELECT * FROM sd_report(:max_report);
SQL

sql_diff_report
