// SPDX-License-Identifier: MIT
// dame-dump: shows what a datatype becomes after commit.
//   dame-dump 'vector(10, 3, 6, double)'
//   dame-dump --iov 2 'hvector(2, 1, 4096, vector(4, 1, 64, double))'
// Prints the type's bounds, its normal form (the IR after normalization), the
// program's nodes with their kernels, and optionally the IOV of `count` instances.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dame/dame.hpp"
#include "dame/dump.hpp"
#include "dame/parse.hpp"

using namespace ch4lite;

static int usage() {
    std::fprintf(stderr,
                 "usage: dame-dump [--iov COUNT] TYPE...\n"
                 "TYPE: double | contig(n,T) | vector(n,bl,stride,T) | hvector(n,bl,bytes,T)\n"
                 "      indexed([bl..],[d..],T) | hindexed(..) | blkidx(bl,[d..],T) | hblkidx(..)\n"
                 "      struct([bl..],[bytes..],[T,..]) | resized(lb,extent,T) | dup(T)\n"
                 "      subarray([sizes],[subsizes],[starts],C|F,T)\n"
                 "      darray(size,rank,[gsizes],[distribs],[dargs],[psizes],C|F,T)\n"
                 "      nest(n,B,T): T applied n times over B, `_` in T the level below\n");
    return 2;
}

int main(int argc, char** argv) {
    int64_t iov = 0;
    int first = 1;
    if (argc > 2 && std::strcmp(argv[1], "--iov") == 0) {
        iov = std::atoll(argv[2]);
        first = 3;
    }
    if (first >= argc) return usage();
    int rc = 0;
    for (int a = first; a < argc; ++a) {
        dame::type* t = nullptr;
        std::string err;
        if (dame::parse_type(argv[a], &t, &err) != status::ok) {
            std::fprintf(stderr, "dame-dump: %s: %s\n", argv[a], err.c_str());
            rc = 1;
            continue;
        }
        if (t->commit() != status::ok) {
            std::fprintf(stderr, "dame-dump: %s: commit failed\n", argv[a]);
            t->release();
            rc = 1;
            continue;
        }
        std::printf("%s\n%s", argv[a], dame::dump(*t).c_str());
        if (iov > 0) {
            const int64_t n = dame::iov_count(*t, iov);
            std::printf("iov of %lld instance(s) at address 0: %lld segment(s)\n",
                        static_cast<long long>(iov), static_cast<long long>(n));
            std::vector<dame::iov_seg> segs(static_cast<size_t>(n < 64 ? n : 64));
            const dame::iov_result r = dame::to_iov(*t, nullptr, iov, 0, segs.data(),
                                                    static_cast<int64_t>(segs.size()), INT64_MAX);
            for (int64_t i = 0; i < r.segs; ++i)
                std::printf("  [%lld] +%lld len %zu\n", static_cast<long long>(i),
                            static_cast<long long>(reinterpret_cast<intptr_t>(segs[i].base)), segs[i].len);
            if (r.segs < n) std::printf("  ...\n");
        }
        t->release();
    }
    return rc;
}
