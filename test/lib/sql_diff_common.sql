-- test/lib/sql_diff_common.sql -- the SQL that test/sql_diff.sh and
-- test/sql_diff_typed.sh share, loaded by sql_diff_schema
-- (test/lib/sql_diff_common.sh) into their scratch database after
-- CREATE EXTENSION bloomfilter.

-- a filter from its hex, or the error its input raises
CREATE FUNCTION sd_try_filter(h text, OUT f bloomfilter, OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
	f := ('\x' || h)::bloomfilter;
EXCEPTION WHEN OTHERS THEN
	err := SQLERRM;
END
$$;

-- a value short enough for a report line
CREATE FUNCTION sd_abbrev(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN t IS NULL THEN 'NULL'
	            WHEN length(t) > 72 THEN left(t, 60) || '...(' || length(t) || ' chars)'
	            ELSE t END
$$;

-- Run step(NULL, ...) for all cases at once (what = its name in the
-- notice); only if that raises, or under SQL_DIFF_PER_CASE=1, undo it and
-- run step(KEY) for each row cases_sql lists, whose columns are a case's
-- key (the step's arguments, in order, named as err_table's columns), an
-- error going to err_table (the key's columns, err), to tell which case
-- raised it.
CREATE PROCEDURE sd_set_based_else_per_case(step regproc, what text,
	cases_sql text, err_table regclass)
LANGUAGE plpgsql AS $f$
DECLARE
	r record;
	all_cases text;
	cols text;
	args text;
BEGIN
	SELECT array_to_string(array_fill('NULL'::text, ARRAY[pronargs::int]), ', ')
	INTO all_cases FROM pg_proc WHERE oid = step;
	BEGIN
		IF current_setting('sd.per_case') = 'on' THEN
			RAISE EXCEPTION 'SQL_DIFF_PER_CASE=1';
		END IF;
		EXECUTE format('SELECT %s(%s)', step, all_cases);
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'set-based % raised "%"; redoing the cases one by one', what, SQLERRM;
		FOR r IN EXECUTE cases_sql LOOP
			SELECT string_agg(quote_ident(key), ', ' ORDER BY n),
			       string_agg(quote_nullable(value), ', ' ORDER BY n)
			INTO cols, args
			FROM json_each_text(row_to_json(r)) WITH ORDINALITY AS k(key, value, n);
			BEGIN
				EXECUTE format('SELECT %s(%s)', step, args);
			EXCEPTION WHEN OTHERS THEN
				EXECUTE format('INSERT INTO %s (%s, err) VALUES (%s, $1)', err_table, cols, args)
					USING SQLERRM;
			END;
		END LOOP;
	END;
END
$f$;

-- The report's lines, which sql_diff_report reads: FAIL NAME REASONS for
-- the first max_report failing cases, then RESULT PASSED FAILED, from the
-- view report (name, reasons: none when the case passed) that each script
-- makes of its verdicts.
CREATE FUNCTION sd_report(max_report int) RETURNS TABLE (tag text, a text, b text)
LANGUAGE plpgsql AS $f$
BEGIN
	RETURN QUERY EXECUTE $q$
		SELECT 'FAIL', name,
		       regexp_replace(array_to_string(reasons, ' | '), '[\t\n\r]+', ' ', 'g')
		FROM report
		WHERE cardinality(reasons) > 0
		ORDER BY name
		LIMIT $1$q$ USING max_report;
	RETURN QUERY EXECUTE $q$
		SELECT 'RESULT', count(*) FILTER (WHERE cardinality(reasons) = 0)::text,
		       count(*) FILTER (WHERE cardinality(reasons) > 0)::text
		FROM report$q$;
END
$f$;
