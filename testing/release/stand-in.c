/* A stand-in for the agentplex binary, to test the release packaging, the install
 * script and the npm packages in seconds without building the daemon. Built
 * static by testing/release/with-stand-in.sh:
 *   cc -static -Os -s -DNAME='"agentplex"' -DVERSION='"0.1.0"' -DTARGET='"x86_64-unknown-linux-musl"' stand-in.c
 *
 *   --version   prints "<NAME> <VERSION> (stand-in <TARGET>)", as the daemon does
 *   --help      prints "Usage: <the name it was called by> <COMMAND>", as clap does
 *   server ...  waits for a signal (and dies of it), like a daemon would run
 *   anything    else: a one-line usage error, exit 2 (clap's code)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("%s %s (stand-in %s)\n", NAME, VERSION, TARGET);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        const char *slash = strrchr(argv[0], '/');
        printf("Usage: %s <COMMAND>\n", slash ? slash + 1 : argv[0]);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "server") == 0) {
        for (;;) pause();
    }
    fprintf(stderr, "error: unrecognized subcommand '%s'\n", argc > 1 ? argv[1] : "");
    return 2;
}
