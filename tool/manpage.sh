#!/bin/sh
#
# tool/manpage.sh -- the bloomfilter tool's manual page, bloomfilter(1),
# written from what the tool itself says: its --help, --version and
# `help COMMAND` for each command --help lists.  The page cannot then say
# something the tool does not; only the name line and the pointer to the
# documentation are written here.
#
#   tool/manpage.sh PATH_TO_TOOL > bloomfilter.1
#
# The help's paragraphs become filled paragraphs; its indented blocks
# (option tables, usage lines) stay as they are laid out.  Runs the tool,
# so it needs a tool built for this machine.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 PATH_TO_TOOL" >&2
	exit 2
fi
tool=$1

# Text as roff reads it literally: a backslash is \e, a hyphen in an option
# is a minus sign (\-, which a reader can paste), and a line opening with
# . or ' would be a request.
roff_text() {
	sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

# Help text as roff: blocks split at blank lines; a block of unindented
# lines is a paragraph, filled; any other is shown as it is laid out.
roff_blocks() {
	roff_text | awk '
		function flush() {
			if (n == 0)
				return
			if (indented) {
				print ".PP"
				print ".nf"
				for (i = 1; i <= n; i++)
					print lines[i]
				print ".fi"
			} else {
				print ".PP"
				for (i = 1; i <= n; i++)
					print lines[i]
			}
			n = 0
			indented = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		{
			lines[++n] = $0
			if ($0 ~ /^[[:space:]]/)
				indented = 1
		}
		END { flush() }'
}

version=$("$tool" --version)
help=$("$tool" --help)
# The commands --help lists, one a line: "  bloomfilter NAME ...".
synopsis=$(printf '%s\n' "$help" | sed -n '/^Commands:$/,/^$/{s/^  //p;}')
commands=$(printf '%s\n' "$synopsis" |
	awk '$2 !~ /^-/ && $2 != "help" { print $2 }')
if [ -z "$commands" ]; then
	echo "$0: found no commands in $tool --help" >&2
	exit 1
fi

cat <<EOF
.TH BLOOMFILTER 1 "" "${version}" "User Commands"
.nh
.ad l
.SH NAME
bloomfilter \\- build, probe, combine and inspect LevelDB bloom filters
.SH SYNOPSIS
.nf
EOF
printf '%s\n' "$synopsis" | roff_text
echo ".fi"
echo ".SH DESCRIPTION"
# Between the usage line and the command list, then what follows the list.
{
	printf '%s\n' "$help" | sed -n '2,/^Commands:$/p' | sed '$d'
	printf '%s\n' "$help" | sed -n '/^Commands:$/,$p' | sed '1,/^$/d'
} | roff_blocks
echo ".SH COMMANDS"
for command in $commands; do
	text=$("$tool" help "$command")
	echo ".SS $command"
	echo ".nf"
	printf '%s\n' "$text" | sed -n '1s/^usage: //p' | roff_text
	echo ".fi"
	printf '%s\n' "$text" | sed '1d' | roff_blocks
done
cat <<'EOF'
.SH SEE ALSO
The bloomfilter PostgreSQL extension's README.md, and doc/outside.md on
filters outside the database; with the Debian packages, under
/usr/share/doc/bloomfilter\-tools/.
EOF
