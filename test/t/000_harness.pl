# test/t/000_harness.pl -- the TAP harness itself: a cluster of the major
# under test starts, and the extension installed there is the tree's.
use strict;
use warnings;

use BloomFilter::Test;
use Test::More;

my $node = bloom_node('main');
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

my ($control) = grep { /^default_version/ } do {
	open my $fh, '<', bloom_root() . '/bloomfilter.control' or die $!;
	<$fh>;
};
$control =~ /'([^']+)'/;
is($node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
	$1, 'the installed extension is the tree\'s version');
is($node->safe_psql('postgres', 'SHOW server_version_num') =~ s/..$//r =~ s/..$//r + 0,
	pg_major(), 'the server is the major under test');
is($node->safe_psql('postgres', q{SELECT 'abc' <~ bloom_agg(x, 10) FROM (VALUES ('abc')) v(x)}),
	't', 'a probe answers');

$node->stop;
done_testing();
