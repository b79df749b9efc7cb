# shellcheck shell=bash
#
# test/lib/doc_blocks.sh -- the SQL blocks of a Markdown file that a test
# runs itself: the blocks of doc/distributed.md that need several servers,
# marked by their info string (test/docs_test.sh lists the marks).  Source
# it.
#
#   doc_blocks FILE INFO DIR   each fenced block of FILE whose opening line
#                              is exactly ```INFO, written to
#                              DIR/NNNN-LINE.sql (LINE: its first line in
#                              FILE), in file order; prints how many

doc_blocks() {
	local file=$1 info=$2 dir=$3
	mkdir -p "$dir"
	awk -v info="$info" -v dir="$dir" '
		!inblock && $0 == "```" info {
			inblock = 1
			n++
			out = sprintf("%s/%04d-%d.sql", dir, n, NR + 1)
			printf "" > out
			next
		}
		inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
		inblock { print > out }
		END { print n + 0 }' "$file"
}

# doc_block_line FILE: the LINE of a block file DIR/NNNN-LINE.sql
doc_block_line() {
	local name=${1##*/}
	name=${name#*-}
	printf '%s\n' "${name%.sql}"
}
