/*
 * test-net.c - the network collector's pure parts: URLs split into the
 * request row's key (query and user name left out), the tables' lookup
 * (same key, same row; a full table counts into "other"), the errno text,
 * and the endpoint text of IPv4 and IPv6 addresses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "net_int.h"

static void split(const char *url, bool keep, const char *s, const char *h, const char *p)
{
	char scheme[16], host[96], path[160];

	net_url_split(url, keep, scheme, sizeof scheme, host, sizeof host, path, sizeof path);
	assert_string_equal(scheme, s);
	assert_string_equal(host, h);
	assert_string_equal(path, p);
}

static void test_url(void **state)
{
	(void)state;
	split("http://127.0.0.1:8000/file.bin?token=secret", false, "http", "127.0.0.1:8000", "/file.bin");
	split("http://127.0.0.1:8000/file.bin?token=secret#x", true, "http", "127.0.0.1:8000",
	    "/file.bin?token=secret");
	split("https://user:pw@example.com/a/b#frag", false, "https", "example.com", "/a/b");
	split("https://example.com", false, "https", "example.com", "/");
	split("https://example.com?q=1", false, "https", "example.com", "/");
	split("https://example.com?q=1", true, "https", "example.com", "/?q=1");
	split("ftp://[::1]:21/x", false, "ftp", "[::1]:21", "/x");
	split("", false, "", "", "/");
}

static void test_tables(void **state)
{
	uint16_t a, b, c;
	char name[32];

	(void)state;
	a = net_ep_get("tcp", "127.0.0.1:80");
	b = net_ep_get("udp", "127.0.0.1:80");
	c = net_ep_get("tcp", "127.0.0.1:80");
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	assert_string_equal(net_tab.ep[b].proto, "udp");
	for (int i = 0; i < NET_MAX_DNS + 5; i++) {
		snprintf(name, sizeof name, "host%d.example", i);
		net_dns_get(name);
	}
	assert_int_equal(net_tab.ndns, NET_MAX_DNS);
	assert_string_equal(net_tab.dns[NET_MAX_DNS - 1].name, "other");
	assert_int_equal(net_dns_get("host70.example"), NET_MAX_DNS - 1);
	assert_int_equal(net_dns_get("host3.example"), 3);
	a = net_http_get("GET", "https", "h", "/p");
	assert_int_equal(net_http_get("GET", "https", "h", "/p"), a);
	assert_int_not_equal(net_http_get("POST", "https", "h", "/p"), a);
}

static void test_text(void **state)
{
	char buf[128];
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(8000) };

	(void)state;
	assert_string_equal(net_errno_text(ECONNREFUSED, buf, sizeof buf), "Connection refused (ECONNREFUSED)");
	assert_true(net_errno_fails(ECONNRESET));
	assert_false(net_errno_fails(EAGAIN));
	assert_false(net_errno_fails(EINPROGRESS));
	inet_pton(AF_INET6, "::1", &s6.sin6_addr);
	inet_pton(AF_INET, "10.1.2.3", &s4.sin_addr);
	assert_string_equal(net_ep_text(net_addr_ep(SOCK_STREAM, (struct sockaddr *)&s6, sizeof s6), buf,
	    sizeof buf), "tcp [::1]:443");
	assert_string_equal(net_ep_text(net_addr_ep(SOCK_DGRAM, (struct sockaddr *)&s4, sizeof s4), buf,
	    sizeof buf), "udp 10.1.2.3:8000");
	assert_false(net_is_inet(NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
