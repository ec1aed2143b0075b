/*
 * tracer.c - a stand-in for strace or a debugger in tests/e2e/attach-refuse.sh:
 * it becomes the tracer of PID (PTRACE_SEIZE, which does not stop it), says
 * "tracing PID" and waits to be killed; the kernel then lets the target go.
 *   tracer PID
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid = argc > 1 ? (pid_t)atoi(argv[1]) : 0;

	if (pid <= 0 || ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0) {
		perror("tracer: PTRACE_SEIZE");
		return 1;
	}
	printf("tracing %d\n", (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}
