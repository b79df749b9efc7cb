#!/usr/bin/env bash
#
# test/sql_diff.sh OUTDIR...
#
# Checks the installed bloomfilter extension, through SQL, against filters
# and answers written by the real LevelDB.  Each OUTDIR holds the three
# COPY-text files written by `test/unit/vectors2tsv` or
# `test/leveldb/leveldb_diff export-sql`:
#
#   cases.tsv   case_id, kind ('create'|'match'), bpk, nkeys, text_ok,
#               filter_hex, filter_sha256
#   keys.tsv    case_id, ord, key_hex
#   probes.tsv  case_id, ord, key_hex, expected
#
# Runs against the server the PG* environment points at, in a scratch UTF8
# database it creates and drops.  For every case:
#   create: bloom_agg(bytea key, bpk) over its keys equals the LevelDB filter
#           (filter_hex, else filter_sha256); NULL when it has no keys; for
#           text_ok cases bloom_agg(text key, bpk) gives the same bytes;
#   every probe: key <~ filter and filter ~> key (bytea, and text when
#           text_ok) equal LevelDB's KeyMayMatch, the filter being
#           filter_hex when given, else the one bloom_agg built.
# Each case is one test; it passes when all of that holds.  The work is
# set-based; only if a set-based statement raises an error are the cases
# redone one by one, to tell which case raised it.
#
# Environment: SQL_DIFF_MAX_REPORT (failing cases listed, default 25),
# SQL_DIFF_PER_CASE=1 (skip the set-based pass; for testing this script),
# SQL_DIFF_KEEP_DB=1 (leave the scratch database for inspection).
#
# Last line: `sql-diff: N passed, N failed`.  Exit 0 when nothing failed,
# 1 when a case failed, 2 when the check itself could not run (no count).

set -euo pipefail

# shellcheck source=test/lib/sql_diff_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/sql_diff_common.sh"
die() { sql_diff_die "$@"; }
SQL_DIFF_LABEL=sql-diff

usage() {
	echo "usage: $0 OUTDIR..." >&2
	exit 2
}

[ $# -ge 1 ] || usage
for dir in "$@"; do
	for f in cases keys probes; do
		[ -r "$dir/$f.tsv" ] || die "$dir/$f.tsv not found or not readable"
	done
done
sql_diff_setup sql-diff

# ---- schema ------------------------------------------------------------------
sql_diff_schema
"${PSQL[@]}" -d "$db" <<'SQL' || die "the scratch schema failed"
CREATE TABLE srcs (src int PRIMARY KEY, dir text NOT NULL);
CREATE TABLE cases (
	src int NOT NULL, case_id text, kind text, bpk int, nkeys int,
	text_ok bool, filter_hex text, filter_sha256 text);
CREATE TABLE keys (src int NOT NULL, case_id text, ord int, key_hex text);
CREATE TABLE probes (src int NOT NULL, case_id text, ord int, key_hex text, expected bool);

-- bloom_agg's filters (text form), per create case
-- and the reserved-filter paths: bloom_agg(bytea key, bpk, nkeys) and
-- bloom_add(bloom_empty(nkeys, bpk), keys[])
CREATE TABLE built (src int, case_id text, nk bigint, fb text, ft text, fr text, fa text, err text);
-- the filter each case's probes run against
CREATE TABLE pfilter (src int, case_id text, text_ok bool, origin text, f bloomfilter, err text);
-- one row per evaluated probe
CREATE TABLE probe_res (
	src int, case_id text, ord int, key_hex text, expected bool,
	b1 bool, b2 bool, t1 bool, t2 bool, mismatch bool);
-- probing errors, per case (only from the case-by-case retry)
CREATE TABLE probe_err (src int, case_id text, err text);

-- a filter's text form against the expected bytes, given as hex or as
-- their sha256 (NULL when neither is given)
CREATE FUNCTION sd_filter_ok(f text, filter_hex text, filter_sha256 text) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN filter_hex IS NOT NULL THEN f = '\x' || filter_hex
	            WHEN filter_sha256 IS NOT NULL
	            THEN encode(sha256(decode(substr(f, 3), 'hex')), 'hex') = filter_sha256
	       END
$$;

-- where-clause for one case, or none for all
CREATE FUNCTION sd_where(p_src int, p_case text, alias text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN p_src IS NULL THEN ''
	            ELSE format(' AND %I.src = %s AND %I.case_id = %L', alias, p_src, alias, p_case) END
$$;

-- bloom_agg over the keys of every create case (or of one case)
CREATE FUNCTION sd_build(p_src int, p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO built (src, case_id, nk, fb, ft, fr, fa)
		SELECT c.src, c.case_id, count(k.case_id),
		       (bloom_agg(decode(k.key_hex, 'hex'), c.bpk ORDER BY k.ord)
		            FILTER (WHERE k.case_id IS NOT NULL))::text,
		       (bloom_agg(CASE WHEN c.text_ok
		                       THEN convert_from(decode(k.key_hex, 'hex'), 'UTF8') END,
		                  c.bpk ORDER BY k.ord)
		            FILTER (WHERE k.case_id IS NOT NULL AND c.text_ok))::text,
		       (bloom_agg(decode(k.key_hex, 'hex'), c.bpk, c.nkeys::bigint ORDER BY k.ord)
		            FILTER (WHERE k.case_id IS NOT NULL))::text,
		       bloom_add(bloom_empty(c.nkeys, c.bpk),
		                 coalesce(array_agg(decode(k.key_hex, 'hex') ORDER BY k.ord)
		                              FILTER (WHERE k.case_id IS NOT NULL), '{}'))::text
		FROM cases c
		LEFT JOIN keys k ON k.src = c.src AND k.case_id = c.case_id
		WHERE c.kind = 'create' AND c.bpk IS NOT NULL %s
		GROUP BY c.src, c.case_id, c.nkeys, c.bpk$q$, sd_where(p_src, p_case, 'c'));
END
$f$;

-- every probe of every case that has a filter (or of one case)
CREATE FUNCTION sd_probe(p_src int, p_case text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$
		INSERT INTO probe_res (src, case_id, ord, key_hex, expected, b1, b2, t1, t2, mismatch)
		SELECT src, case_id, ord, key_hex, expected, b1, b2, t1, t2,
		       b1 IS DISTINCT FROM expected OR b2 IS DISTINCT FROM expected
		       OR (text_ok AND (t1 IS DISTINCT FROM expected OR t2 IS DISTINCT FROM expected))
		FROM (
			SELECT p.src, p.case_id, p.ord, p.key_hex, p.expected, pf.text_ok,
			       decode(p.key_hex, 'hex') <~ pf.f AS b1,
			       pf.f ~> decode(p.key_hex, 'hex') AS b2,
			       CASE WHEN pf.text_ok
			            THEN convert_from(decode(p.key_hex, 'hex'), 'UTF8') <~ pf.f END AS t1,
			       CASE WHEN pf.text_ok
			            THEN pf.f ~> convert_from(decode(p.key_hex, 'hex'), 'UTF8') END AS t2
			FROM probes p
			JOIN pfilter pf ON pf.src = p.src AND pf.case_id = p.case_id
			WHERE pf.f IS NOT NULL %s
		) s
		$q$, sd_where(p_src, p_case, 'p'));
END
$f$;
SQL

# ---- load ----------------------------------------------------------------------
src=0
for dir in "$@"; do
	src=$((src + 1))
	echo "INSERT INTO srcs VALUES (:src, :'dir');" |
		"${PSQL[@]}" -d "$db" -v src="$src" -v dir="$dir" || die "cannot record $dir"
	for t in cases keys probes; do
		case $t in
		cases) cols="case_id, kind, bpk, nkeys, text_ok, filter_hex, filter_sha256" ;;
		keys) cols="case_id, ord, key_hex" ;;
		probes) cols="case_id, ord, key_hex, expected" ;;
		esac
		"${PSQL[@]}" -d "$db" \
			-c "ALTER TABLE $t ALTER COLUMN src SET DEFAULT $src" \
			-c "\\copy $t ($cols) FROM pstdin" <"$dir/$t.tsv" ||
			die "loading $dir/$t.tsv failed"
	done
done

# ---- check ---------------------------------------------------------------------
"${PSQL[@]}" -d "$db" -At -F $'\t' -v max_report="$max_report" -v per_case="$per_case" \
	>"$tmp/out" <<'SQL' || die "the check queries failed (see above)"
SET client_min_messages = notice;
SET sd.per_case = :'per_case';

CREATE INDEX ON keys (src, case_id);
CREATE INDEX ON probes (src, case_id);
CREATE INDEX ON cases (src, case_id);
ANALYZE cases; ANALYZE keys; ANALYZE probes;

SELECT 'LOADED', format('%s: %s cases, %s keys, %s probes', s.dir,
       (SELECT count(*) FROM cases c WHERE c.src = s.src),
       (SELECT count(*) FROM keys k WHERE k.src = s.src),
       (SELECT count(*) FROM probes p WHERE p.src = s.src))
FROM srcs s ORDER BY s.src;

-- 1. bloom_agg, set-based; case by case only to isolate an error
CALL sd_set_based_else_per_case('sd_build', 'bloom_agg',
	$$SELECT DISTINCT src, case_id FROM cases
	  WHERE kind = 'create' AND bpk IS NOT NULL ORDER BY 1, 2$$, 'built');

-- 2. the filter to probe with: LevelDB's (filter_hex) when given, else ours
INSERT INTO pfilter (src, case_id, text_ok, origin, f, err)
SELECT c.src, c.case_id, coalesce(c.text_ok, false),
       CASE WHEN c.filter_hex IS NOT NULL THEN 'filter_hex' ELSE 'bloom_agg' END,
       (t).f, (t).err
FROM (
	SELECT DISTINCT ON (c.src, c.case_id) c.*, b.fb
	FROM cases c
	LEFT JOIN built b ON b.src = c.src AND b.case_id = c.case_id
	ORDER BY c.src, c.case_id
) c
CROSS JOIN LATERAL (
	SELECT sd_try_filter(coalesce(lower(c.filter_hex), substr(c.fb, 3))) AS t
) x;

-- 3. probes, set-based; case by case only to isolate an error
CALL sd_set_based_else_per_case('sd_probe', 'probing',
	$$SELECT src, case_id FROM pfilter WHERE f IS NOT NULL ORDER BY 1, 2$$, 'probe_err');

-- 4. one verdict per case id seen in any of the three files
CREATE TABLE verdict AS
WITH ids AS (
	SELECT src, case_id FROM cases WHERE case_id IS NOT NULL
	UNION SELECT src, case_id FROM keys WHERE case_id IS NOT NULL
	UNION SELECT src, case_id FROM probes WHERE case_id IS NOT NULL
),
crow AS (
	SELECT DISTINCT ON (src, case_id) *, count(*) OVER (PARTITION BY src, case_id) AS nrows
	FROM cases ORDER BY src, case_id
),
kc AS (SELECT src, case_id, count(*) AS n FROM keys GROUP BY 1, 2),
pc AS (SELECT src, case_id, count(*) AS n FROM probes GROUP BY 1, 2),
pr AS (
	SELECT src, case_id, count(*) AS n, count(*) FILTER (WHERE mismatch) AS bad,
	       min(ord) FILTER (WHERE mismatch) AS first_bad
	FROM probe_res GROUP BY 1, 2
),
pe AS (SELECT src, case_id, string_agg(err, '; ') AS err FROM probe_err GROUP BY 1, 2),
bt AS (
	SELECT src, case_id, count(*) AS nrows, max(fb) AS fb, max(ft) AS ft,
	       max(fr) AS fr, max(fa) AS fa,
	       string_agg(err, '; ') AS err
	FROM built GROUP BY 1, 2
),
j AS (
	SELECT i.src, i.case_id, c.case_id IS NOT NULL AS in_cases, c.nrows,
	       c.kind, c.bpk, c.nkeys, coalesce(c.text_ok, false) AS text_ok,
	       lower(c.filter_hex) AS filter_hex, lower(c.filter_sha256) AS filter_sha256,
	       coalesce(kc.n, 0) AS nk, coalesce(pc.n, 0) AS np,
	       b.src IS NOT NULL AS has_built, b.fb, b.ft, b.fr, b.fa, b.err AS build_err,
	       pf.f IS NOT NULL AS has_pf, pf.origin, pf.err AS cast_err,
	       coalesce(pr.n, 0) AS np_done, coalesce(pr.bad, 0) AS np_bad, pr.first_bad,
	       pe.err AS probe_err
	FROM ids i
	LEFT JOIN crow c ON c.src = i.src AND c.case_id = i.case_id
	LEFT JOIN kc ON kc.src = i.src AND kc.case_id = i.case_id
	LEFT JOIN pc ON pc.src = i.src AND pc.case_id = i.case_id
	LEFT JOIN bt b ON b.src = i.src AND b.case_id = i.case_id
	LEFT JOIN pfilter pf ON pf.src = i.src AND pf.case_id = i.case_id
	LEFT JOIN pr ON pr.src = i.src AND pr.case_id = i.case_id
	LEFT JOIN pe ON pe.src = i.src AND pe.case_id = i.case_id
),
e AS (
	-- does each filter (text form) match the expected one?
	SELECT j.*,
	       sd_filter_ok(fb, filter_hex, filter_sha256) AS fb_ok,
	       sd_filter_ok(ft, filter_hex, filter_sha256) AS ft_ok,
	       sd_filter_ok(fr, filter_hex, filter_sha256) AS fr_ok,
	       sd_filter_ok(fa, filter_hex, filter_sha256) AS fa_ok,
	       coalesce('\x' || filter_hex, 'sha256 ' || filter_sha256) AS expected_txt,
	       kind = 'create' AS is_create
	FROM j
)
SELECT e.src, e.case_id, array_remove(ARRAY[
	CASE WHEN NOT in_cases
	     THEN format('case id not in cases.tsv (%s keys, %s probes refer to it)', nk, np) END,
	CASE WHEN nrows > 1 THEN format('%s rows in cases.tsv', nrows) END,
	CASE WHEN in_cases AND kind IS DISTINCT FROM 'create' AND kind IS DISTINCT FROM 'match'
	     THEN format('unknown kind %s', coalesce(quote_literal(kind), 'NULL')) END,
	-- create cases: the filter bloom_agg builds
	CASE WHEN is_create AND (bpk IS NULL OR nkeys IS NULL)
	     THEN 'create case without bpk or nkeys' END,
	CASE WHEN is_create AND nkeys IS DISTINCT FROM nk
	     THEN format('nkeys is %s but keys.tsv has %s keys', nkeys, nk) END,
	CASE WHEN is_create AND filter_hex IS NULL AND filter_sha256 IS NULL
	     THEN 'create case with neither filter_hex nor filter_sha256' END,
	CASE WHEN is_create AND filter_hex IS NOT NULL AND filter_sha256 IS NOT NULL
	          AND encode(sha256(decode(filter_hex, 'hex')), 'hex') <> filter_sha256
	     THEN 'inconsistent vector: sha256(filter_hex) <> filter_sha256' END,
	CASE WHEN is_create AND bpk IS NOT NULL AND NOT has_built
	     THEN 'no bloom_agg result was computed' END,
	CASE WHEN is_create AND build_err IS NOT NULL
	     THEN 'bloom_agg raised: ' || build_err END,
	CASE WHEN is_create AND has_built AND build_err IS NULL AND nk > 0 AND fb IS NULL
	     THEN 'bloom_agg(bytea) returned NULL' END,
	CASE WHEN is_create AND nk > 0 AND fb IS NOT NULL AND fb_ok IS NOT TRUE
	     THEN format('bloom_agg(bytea, %s) = %s, LevelDB wrote %s',
	                 bpk, sd_abbrev(fb), sd_abbrev(expected_txt)) END,
	CASE WHEN is_create AND has_built AND build_err IS NULL AND nk > 0 AND text_ok AND ft IS NULL
	     THEN 'bloom_agg(text) returned NULL' END,
	CASE WHEN is_create AND nk > 0 AND text_ok AND ft IS NOT NULL AND ft_ok IS NOT TRUE
	     THEN format('bloom_agg(text, %s) = %s, LevelDB wrote %s',
	                 bpk, sd_abbrev(ft), sd_abbrev(expected_txt)) END,
	CASE WHEN is_create AND nk > 0 AND nkeys = nk AND fr_ok IS NOT TRUE
	     THEN format('bloom_agg(bytea, %s, %s) = %s, LevelDB wrote %s',
	                 bpk, nkeys, sd_abbrev(fr), sd_abbrev(expected_txt)) END,
	CASE WHEN is_create AND has_built AND build_err IS NULL AND nkeys = nk AND fa_ok IS NOT TRUE
	     THEN format('bloom_add(bloom_empty(%s, %s), keys) = %s, LevelDB wrote %s',
	                 nkeys, bpk, sd_abbrev(fa), sd_abbrev(expected_txt)) END,
	CASE WHEN is_create AND nk = 0 AND fb IS NOT NULL
	     THEN 'bloom_agg(bytea) over no keys = ' || sd_abbrev(fb) || ', expected NULL' END,
	CASE WHEN is_create AND nk = 0 AND ft IS NOT NULL
	     THEN 'bloom_agg(text) over no keys = ' || sd_abbrev(ft) || ', expected NULL' END,
	-- match cases
	CASE WHEN kind = 'match' AND filter_hex IS NULL THEN 'match case without filter_hex' END,
	-- probes
	CASE WHEN cast_err IS NOT NULL
	     THEN format('the filter (%s) is rejected by bloomfilter input: %s', origin, cast_err) END,
	CASE WHEN np > 0 AND NOT coalesce(has_pf, false) AND cast_err IS NULL
	     THEN format('%s probes but no filter to probe them with', np) END,
	CASE WHEN probe_err IS NOT NULL THEN 'probing raised: ' || probe_err END,
	CASE WHEN has_pf AND probe_err IS NULL AND np_done <> np
	     THEN format('only %s of %s probes were evaluated', np_done, np) END,
	CASE WHEN np_bad > 0
	     THEN (SELECT format('%s of %s probes disagree with LevelDB (filter from %s); first: ord %s key %s expected %s, got key<~f %s, f~>key %s%s',
	                         np_bad, np, origin, r.ord, sd_abbrev(CASE WHEN r.key_hex = '' THEN '(empty)' ELSE r.key_hex END),
	                         r.expected, coalesce(r.b1::text, 'NULL'), coalesce(r.b2::text, 'NULL'),
	                         CASE WHEN text_ok THEN format(', text<~f %s, f~>text %s',
	                                  coalesce(r.t1::text, 'NULL'), coalesce(r.t2::text, 'NULL')) ELSE '' END)
	           FROM probe_res r
	           WHERE r.src = e.src AND r.case_id = e.case_id AND r.ord = e.first_bad AND r.mismatch
	           LIMIT 1) END
], NULL) AS reasons
FROM e;

-- rows without a case id belong to no case: one failure per file
INSERT INTO verdict
SELECT src, '(NULL case_id)', ARRAY[format('%s row(s) with case_id \N in %s.tsv', count(*), t)]
FROM (SELECT src, 'cases' AS t FROM cases WHERE case_id IS NULL
      UNION ALL SELECT src, 'keys' FROM keys WHERE case_id IS NULL
      UNION ALL SELECT src, 'probes' FROM probes WHERE case_id IS NULL) n
GROUP BY src, t;

-- an input directory that contributed no case is a failure too
INSERT INTO verdict
SELECT s.src, '(no cases)', ARRAY['no cases in ' || s.dir || '/cases.tsv']
FROM srcs s WHERE NOT EXISTS (SELECT 1 FROM cases c WHERE c.src = s.src);

-- 5. report
CREATE VIEW report AS
SELECT CASE WHEN (SELECT count(*) FROM srcs) > 1 THEN s.dir || ': ' ELSE '' END
       || coalesce(v.case_id, 'NULL') AS name, v.reasons
FROM verdict v JOIN srcs s USING (src);
SELECT * FROM sd_report(:max_report);
SQL

sql_diff_report
