/*
 * netcurl - a small libcurl client for the network collector's tests.
 *   netcurl easy [--insecure] [--out FILE] [--hold FILE] [--wait FILE] [--post DATA] URL...   one curl_easy_perform per URL, in turn
 *   netcurl multi URL...                 all at once through a multi handle
 * --wait FILE: start once FILE exists (a test changes settings meanwhile);
 * --hold FILE: after the transfers, exit only once FILE exists (a test reads
 * the live session meanwhile); --insecure: no certificate check; --out FILE:
 * the bodies go to FILE.
 * For each finished transfer it prints what libcurl measured, one line:
 *   URL STATUS BYTES_DOWN BYTES_UP TOTAL_US RESULT CONNECT_US APPCONNECT_US
 * (in the order transfers finish), so a test holds hookscope's figures
 * against the program's own.  Exit status 0 when every transfer ended
 * (whatever its result).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static FILE *out;                         /* --out, else the bodies go nowhere */
static long insecure;                     /* --insecure */

static size_t sink(char *p, size_t sz, size_t n, void *arg)
{
	(void)arg;
	return out != NULL ? fwrite(p, sz, n, out) * sz : sz * n;
}

static void report(CURL *h, CURLcode res)
{
	const char *url = "";
	long status = 0;
	curl_off_t down = 0, up = 0, total = 0, con = 0, app = 0;

	curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &url);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &down);
	curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &up);
	curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total);
	curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &con);
	curl_easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &app);
	printf("%s %ld %lld %lld %lld %d %lld %lld\n", url, status, (long long)down, (long long)up,
	    (long long)total, (int)res, (long long)con, (long long)app);
	fflush(stdout);
}

static CURL *handle(const char *url, const char *post)
{
	CURL *h = curl_easy_init();

	if (h == NULL) {
		fprintf(stderr, "netcurl: curl_easy_init failed\n");
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	if (post != NULL)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, post);
	if (insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return h;
}

int main(int argc, char **argv)
{
	const char *post = NULL, *hold = NULL;
	int i = 2;

	if (argc < 3 || (strcmp(argv[1], "easy") != 0 && strcmp(argv[1], "multi") != 0)) {
		fprintf(stderr, "usage: netcurl easy [--insecure] [--out FILE] [--hold FILE] [--wait FILE] [--post DATA] URL... | netcurl multi URL...\n");
		return 2;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return 1;
	if (strcmp(argv[1], "easy") == 0) {
		if (i < argc && strcmp(argv[i], "--insecure") == 0) {
			insecure = 1;
			i++;
		}
		if (i + 1 < argc && strcmp(argv[i], "--out") == 0) {
			if ((out = fopen(argv[i + 1], "wb")) == NULL) {
				perror(argv[i + 1]);
				return 1;
			}
			i += 2;
		}
		if (i + 1 < argc && strcmp(argv[i], "--hold") == 0) {
			hold = argv[i + 1];
			i += 2;
		}
		if (i + 1 < argc && strcmp(argv[i], "--wait") == 0) {
			while (access(argv[i + 1], F_OK) != 0)
				usleep(10000);
			i += 2;
		}
		if (i + 1 < argc && strcmp(argv[i], "--post") == 0) {
			post = argv[i + 1];
			i += 2;
		}
		for (; i < argc; i++) {
			CURL *h = handle(argv[i], post);

			if (h == NULL)
				return 1;
			report(h, curl_easy_perform(h));
			curl_easy_cleanup(h);
		}
	} else {
		CURLM *m = curl_multi_init();
		int running = 0, left;
		CURLMsg *msg;

		for (; i < argc; i++)
			curl_multi_add_handle(m, handle(argv[i], NULL));
		do {
			curl_multi_perform(m, &running);
			while ((msg = curl_multi_info_read(m, &left)) != NULL)
				if (msg->msg == CURLMSG_DONE) {
					report(msg->easy_handle, msg->data.result);
					curl_multi_remove_handle(m, msg->easy_handle);
					curl_easy_cleanup(msg->easy_handle);
				}
			if (running)
				curl_multi_poll(m, NULL, 0, 1000, NULL);
		} while (running);
		while ((msg = curl_multi_info_read(m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE) {
				report(msg->easy_handle, msg->data.result);
				curl_easy_cleanup(msg->easy_handle);
			}
		curl_multi_cleanup(m);
	}
	curl_global_cleanup();
	if (out != NULL)
		fclose(out);
	while (hold != NULL && access(hold, F_OK) != 0)
		usleep(10000);
	return 0;
}
