// SPDX-License-Identifier: MIT
// The PMI-1 line codec: valid lines, every kind of malformed line, encoders,
// and the hex codec.
#include <gtest/gtest.h>

#include <string>

#include "util/pmi_wire.hpp"

using namespace ch4lite;
using util::pmi_msg;
using util::pmi_parse;

namespace {

bool parses(std::string_view line, std::string* why = nullptr) {
    pmi_msg m;
    return pmi_parse(line, m, why) == status::ok;
}

}  // namespace

TEST(PmiWire, ParsesCommandAndPairs) {
    pmi_msg m;
    ASSERT_EQ(pmi_parse("cmd=get_result rc=0 msg=success value=(vector,(0,1,4))\n", m), status::ok);
    EXPECT_EQ(m.cmd(), "get_result");
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m.key(0), "rc");
    long rc = 7;
    EXPECT_TRUE(m.get_int("rc", rc));
    EXPECT_EQ(rc, 0);
    ASSERT_NE(m.find("value"), nullptr);
    EXPECT_EQ(*m.find("value"), "(vector,(0,1,4))");
    EXPECT_EQ(m.find("nope"), nullptr);
    EXPECT_FALSE(m.get_int("msg", rc));  // not a number
}

TEST(PmiWire, AcceptsExtraSpacesAndNoNewline) {
    pmi_msg m;
    ASSERT_EQ(pmi_parse("cmd=barrier_in", m), status::ok);
    EXPECT_EQ(m.cmd(), "barrier_in");
    EXPECT_EQ(m.size(), 0u);
    ASSERT_EQ(pmi_parse("cmd=put  key=a   value=b  \n", m), status::ok);
    EXPECT_EQ(m.size(), 2u);
}

TEST(PmiWire, LineLengthLimit) {
    std::string line = "cmd=put value=";
    line += std::string(1023 - line.size(), 'x');
    EXPECT_TRUE(parses(line + "\n"));  // 1024 bytes with the newline
    std::string why;
    EXPECT_FALSE(parses(line + "y\n", &why));
    EXPECT_NE(why.find("longer than 1024"), std::string::npos) << why;
    EXPECT_FALSE(parses(std::string(100000, 'c')));
}

TEST(PmiWire, RejectsMalformedLines) {
    const char* bad[] = {
        "",                              // empty
        "\n",                            // empty
        "key=value",                     // no cmd
        "value=1 cmd=init",              // cmd not first
        "cmd=",                          // empty command
        "cmd=init pmi_version",          // key without '='
        "cmd=init pmi_version=",         // empty value
        "cmd=init pmi_version= x=1",     // empty value before a space
        "cmd=put key=a value=b=c",       // '=' in a value
        "cmd=put key=a\tvalue=b",        // tab
        "cmd=put ke!y=a",                // bad key character
        "cmd=put key=a key=b",           // duplicate key
        "cmd=put cmd=get",               // duplicate cmd
        "cmd=in-it! a=1",                // bad command name
        "cmd=put key=\x01",              // control character
        "cmd=put key=\xff\xfe",          // non-ASCII in a plain value
        "cmd=put value=a b",             // space inside a plain value
        "cmd=put message=free text",     // free text only for abort
        "\x16\x03\x01\x02\x00garbage",   // TLS hello
        "    34cmd=fullinit;pmijobid=1;",  // PMI-2 wire
    };
    for (const char* line : bad) {
        std::string why;
        EXPECT_FALSE(parses(line, &why)) << "accepted: '" << line << "'";
        EXPECT_FALSE(why.empty()) << line;
    }
}

TEST(PmiWire, LongKeysAndTooManyPairs) {
    EXPECT_TRUE(parses("cmd=get key=" + std::string(64, 'k')));
    EXPECT_FALSE(parses("cmd=get " + std::string(65, 'k') + "=v"));
    std::string line = "cmd=x";
    for (int i = 0; i < 16; ++i) line += " k" + std::to_string(i) + "=v";
    EXPECT_TRUE(parses(line));
    EXPECT_FALSE(parses(line + " k16=v"));
}

TEST(PmiWire, AbortFreeText) {
    pmi_msg m;
    ASSERT_EQ(pmi_parse("cmd=abort exitcode=3 message=application called MPI_Abort: rc=5 \\\\ done\n", m),
              status::ok);
    long code = 0;
    EXPECT_TRUE(m.get_int("exitcode", code));
    EXPECT_EQ(code, 3);
    ASSERT_NE(m.find("message"), nullptr);
    EXPECT_EQ(*m.find("message"), "application called MPI_Abort: rc=5 \\ done");
    ASSERT_EQ(pmi_parse("cmd=abort exitcode=1 error_msg=it broke", m), status::ok);
    EXPECT_EQ(*m.find("error_msg"), "it broke");
    ASSERT_EQ(pmi_parse("cmd=abort exitcode=2", m), status::ok);  // MPICH 3 form
    EXPECT_FALSE(parses("cmd=abort exitcode=1 message=bell\x07"));
}

TEST(PmiWire, EncoderBuildsParsableLines) {
    std::string line;
    ASSERT_EQ(util::pmi_line("put").add("kvsname", "kvs_1_0").add("key", "a-0-1").add("value", "0a0b")
                  .finish(line),
              status::ok);
    EXPECT_EQ(line, "cmd=put kvsname=kvs_1_0 key=a-0-1 value=0a0b\n");
    ASSERT_EQ(util::pmi_line("init").add("pmi_version", 1L).finish(line), status::ok);
    EXPECT_EQ(line, "cmd=init pmi_version=1\n");
    EXPECT_TRUE(parses(line));
}

TEST(PmiWire, EncoderRejectsBadInput) {
    std::string line, why;
    EXPECT_NE(util::pmi_line("put").add("key", "a b").finish(line, &why), status::ok);
    EXPECT_NE(util::pmi_line("put").add("key", "").finish(line), status::ok);
    EXPECT_NE(util::pmi_line("put").add("k=y", "v").finish(line), status::ok);
    EXPECT_NE(util::pmi_line("bad cmd").finish(line), status::ok);
    EXPECT_NE(util::pmi_line("put").add("value", std::string(1100, 'x')).finish(line), status::ok);
    EXPECT_NE(util::pmi_line("abort").add_text("message", "x").add("k", "v").finish(line), status::ok);
}

TEST(PmiWire, FreeTextIsSanitisedAndCut) {
    std::string line;
    ASSERT_EQ(util::pmi_line("abort").add("exitcode", 4L).add_text("message", "two\nlines \\ ok")
                  .finish(line),
              status::ok);
    EXPECT_EQ(line, "cmd=abort exitcode=4 message=two lines \\\\ ok\n");
    pmi_msg m;
    ASSERT_EQ(pmi_parse(line, m), status::ok);
    EXPECT_EQ(*m.find("message"), "two lines \\ ok");
    ASSERT_EQ(util::pmi_line("abort").add_text("message", std::string(5000, 'z')).finish(line), status::ok);
    EXPECT_EQ(line.size(), util::pmi_max_line);
    EXPECT_TRUE(parses(line));
}

TEST(PmiWire, HexRoundTrip) {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
    const std::string hex = util::hex_encode(bytes.data(), bytes.size());
    EXPECT_EQ(hex.size(), 512u);
    EXPECT_EQ(hex.substr(0, 6), "000102");
    EXPECT_EQ(hex.substr(506), "fdfeff");
    EXPECT_TRUE(util::pmi_valid_value(hex.substr(0, 1000)));
    std::vector<std::byte> out;
    ASSERT_TRUE(util::hex_decode(hex, out));
    ASSERT_EQ(out.size(), 256u);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(static_cast<int>(out[i]), i);
    EXPECT_TRUE(util::hex_decode("ABcd", out));
    EXPECT_EQ(out.size(), 2u);
    EXPECT_TRUE(util::hex_decode("", out));
    EXPECT_TRUE(out.empty());
}

TEST(PmiWire, HexRejectsGarbage) {
    std::vector<std::byte> out;
    EXPECT_FALSE(util::hex_decode("abc", out));
    EXPECT_FALSE(util::hex_decode("zz", out));
    EXPECT_FALSE(util::hex_decode("0g", out));
    EXPECT_TRUE(out.empty());
}
