/*
 * test_validate.c
 *		Unit tests of the core: the validator every input path shares.
 */
#include "unit.h"

void
test_validate(void)
{
	uint8_t		buf[16] = {0};
	unsigned	v;

	group_begin("validation");
	expect_status(bloom_validate(buf, 0), BLOOM_ERR_FILTER_TOO_SHORT, "len 0");
	buf[0] = 6;
	expect_status(bloom_validate(buf, 1), BLOOM_ERR_FILTER_TOO_SHORT,
				  "len 1 holding a valid k");
	buf[1] = 0;
	expect_status(bloom_validate(buf, 2), BLOOM_ERR_K_ZERO, "len 2, k=0");

	test_begin("every k byte 0..255 at lengths 2 and 9");
	for (v = 0; v < 256; v++)
	{
		bloom_status want = v == 0 ? BLOOM_ERR_K_ZERO :
			v > BLOOM_MAX_K ? BLOOM_ERR_K_RESERVED : BLOOM_OK;

		buf[1] = buf[8] = (uint8_t) v;
		check(bloom_validate(buf, 2) == want && bloom_validate(buf, 9) == want,
			  "k=%u: expected %s", v, status_name(want));
	}
	test_end();
	group_end();
}
