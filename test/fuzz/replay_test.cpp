// SPDX-License-Identifier: MIT
// Replays the committed fuzz corpora (test/fuzz/corpus/<target>/) through
// the fuzz targets, so every input the fuzzers found interesting keeps being
// checked by `make check`, with gcc and without libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "targets.hpp"

namespace fs = std::filesystem;

namespace {
int replay(const char* dir, int (*target)(const uint8_t*, size_t)) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(fs::path(CH4LITE_FUZZ_CORPUS) / dir)) {
        std::ifstream f(e.path(), std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        ++n;
    }
    return n;
}
}  // namespace

TEST(DameFuzzCorpus, Types) { EXPECT_GT(replay("types", dame_fuzz::types), 10); }
TEST(DameFuzzCorpus, Unpack) { EXPECT_GT(replay("unpack", dame_fuzz::unpack), 5); }
TEST(DameFuzzCorpus, External32) { EXPECT_GT(replay("external32", dame_fuzz::external32), 5); }
