/* A stand-in for the sandbox-agent binary, to test the release packaging, the
 * install script and the npm packages in seconds without building the daemon.
 * Built static by testing/release/with-stand-in.sh:
 *   cc -static -Os -s -DVERSION='"0.1.0"' -DTARGET='"x86_64-unknown-linux-musl"' stand-in.c
 *
 *   --version   prints "sandbox-agent <VERSION> (commit stand-in, target <TARGET>)"
 *   server ...  waits for a signal (and dies of it), like a daemon would run
 *   anything    else: a one-line usage error, exit 2 (clap's code)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("sandbox-agent %s (commit stand-in, target %s)\n", VERSION, TARGET);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "server") == 0) {
        for (;;) pause();
    }
    fprintf(stderr, "error: unrecognized subcommand '%s'\n", argc > 1 ? argv[1] : "");
    return 2;
}
