/* libFuzzer harness of the signature reader (signature/pas2p_signature.h: libxml2, the
 * RelaxNG schema, then the model's own checks): any bytes as a signature file.  The reader
 * answers 0 or -1 with a one-line message; a crash, a hang, a leak, an access outside a
 * buffer, or an error without a message or of several lines is a finding.  Built with
 * clang's -fsanitize=fuzzer,address,undefined (tests/CMakeLists.txt, the sanitizer
 * build) and run briefly by ctest from a real signature:
 *
 *   lf_signature [libFuzzer options] CORPUS_DIR */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pas2p_signature.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("signature.xml", 0);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            return 0;
        }
        done += (size_t)w;
    }
    char path[64], err[1024] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    pas2p_signature_t s;
    if (pas2p_signature_read(path, &s, err, sizeof err) == 0) {
        pas2p_signature_free(&s);
    } else if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "lf_signature: a refusal without a one-line message: '%s'\n", err);
        abort();
    }
    close(fd);
    return 0;
}
