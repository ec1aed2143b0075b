/* main.c - hookscope, the terminal client of hookscoped (tui.h has the map). */
#include <locale.h>
#include <signal.h>

#include "tui.h"

/* Parse the options, then run the interactive view or a script mode. */
int main(int argc, char **argv)
{
	struct tui_opts o;
	int rc;

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");     /* JSON and tables want a '.' */
	signal(SIGPIPE, SIG_IGN);
	switch (tui_options_parse(argc, argv, &o)) {
	case TUI_OPTS_EXIT_OK:
		return 0;
	case TUI_OPTS_EXIT_USAGE:
		tui_options_free(&o);
		return 2;
	case TUI_OPTS_RUN:
		break;
	}
	if (o.check_theme != NULL)
		rc = tui_theme_check(o.check_theme);
	else if (tui_options_batch(&o))
		rc = tui_once_run(&o);
	else
		rc = tui_app_run(&o);
	tui_options_free(&o);
	return rc;
}
