/*
 * main.c - hookscoped: the hookscope daemon.  main() only; everything else
 * lives in libhsdaemon.a so the unit tests can link it.
 */
#include <stdio.h>
#include <stdlib.h>
#include "daemon.h"
#include "attach.h"

/* Parse the options, then run the server until a signal stops it. */
int
main(int argc, char **argv)
{
	struct daemon_opts o;
	char err[PROTO_ERR_LEN];
	int rc;

	rc = daemon_opts_parse(&o, argc, argv, err, sizeof err);
	if (rc == DAEMON_OPTS_EXIT) {
		daemon_opts_free(&o);
		return 0;
	}
	if (rc == DAEMON_OPTS_ERROR) {
		fprintf(stderr, "hookscoped: %s\n"
		    "Try 'hookscoped --help' for more information.\n", err);
		daemon_opts_free(&o);
		return 2;
	}
	daemon_log_set_verbosity(o.verbose);
	if (o.attach_pid > 0 || o.detach_pid > 0)
		rc = daemon_attach_main(&o);   /* one-shot: inject or unload, then exit */
	else
		rc = daemon_server_run(&o);
	daemon_opts_free(&o);
	return rc;
}
