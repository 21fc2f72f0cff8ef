// SPDX-License-Identifier: MIT
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "dame/dame.hpp"
#include "dame/ir.hpp"
#include "dame/parse.hpp"
#include "dame/program.hpp"
#include "gen.hpp"

namespace dame_test {

// Parses and commits; fails the test on error.
inline type_ref committed(const char* text) {
    type* t = nullptr;
    std::string err;
    EXPECT_EQ(parse_type(text, &t, &err), status::ok) << text << ": " << err;
    if (!t) return type_ref();
    EXPECT_EQ(t->commit(), status::ok);
    return type_ref(t);
}
inline std::string normal(const char* text) {
    type_ref t = committed(text);
    return t.get() ? normal_form(*t.get()) : "";
}

}  // namespace dame_test
