// SPDX-License-Identifier: MIT
// Human-readable dump of a committed program (dame-dump, tests, debugging):
// the type's summary, its normal form, then one line per node.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "dame/dump.hpp"
#include "dame/kernels.hpp"
#include "dame/program.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {
namespace {

const char* kind_name(op k) {
    switch (k) {
        case op::leaf: return "CONTIG";
        case op::vector: return "VECTOR";
        case op::blkindex: return "BLKINDEX";
        case op::indexed: return "INDEXED";
        case op::struct_: return "STRUCT";
    }
    return "?";
}

void appendf(std::string& s, const char* fmt, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, args...);
    s += buf;
}

void node_line(std::string& s, const program& p, uint32_t i, int depth) {
    const node& n = p.at(i);
    appendf(s, "  %*s[%u] %-8s%s count=%" PRId64 " size=%" PRId64, depth * 2, "", i, kind_name(n.kind),
            is_final(n) ? " FINAL" : "", n.count, n.size);
    if (n.disp) appendf(s, " disp=%" PRId64, n.disp);
    if (n.kind == op::vector || (n.kind == op::indexed && !n.kern)) appendf(s, " stride=%" PRId64, n.stride);
    if (is_final(n) || n.kind == op::leaf) appendf(s, " block=%" PRId64 "B", n.blen);
    appendf(s, " align=%d", 1 << n.align_log2);
    if (n.kern) appendf(s, " kernel=%s", kernel_name(n.kern));
    if (n.disps && n.kind != op::vector) {
        const bool w = n.wide || n.kind == op::struct_;
        appendf(s, " disps(i%d)=[", w ? 64 : 32);
        for (int64_t k = 0; k < n.count && k < 6; ++k) {
            const int64_t d = w ? static_cast<const int64_t*>(n.disps)[k] : static_cast<const int32_t*>(n.disps)[k];
            appendf(s, k ? ",%" PRId64 : "%" PRId64, d);
        }
        s += n.count > 6 ? ",...]" : "]";
    }
    s += '\n';
}

// Every node, root first, children indented below their parent (a stack of
// its own rather than recursion, like every walk in DAME).
void node_lines(std::string& s, const program& p) {
    std::vector<std::pair<uint32_t, int>> st{{0, 0}};
    while (!st.empty()) {
        const auto [i, depth] = st.back();
        st.pop_back();
        node_line(s, p, i, depth);
        const node& n = p.at(i);
        if (n.kind == op::struct_) {
            for (int64_t k = n.count; k-- > 0;) st.emplace_back(p.kid(n.child + static_cast<uint32_t>(k)), depth + 1);
        } else if (n.kind != op::leaf && !is_final(n)) {
            st.emplace_back(n.child, depth + 1);
        }
    }
}

}  // namespace

std::string dump(const type& t) {
    std::string s;
    appendf(s, "size %" PRId64 "  extent %" PRId64 "  lb %" PRId64 "  true_lb %" PRId64
               "  true_extent %" PRId64 "\n",
            t.size(), t.extent(), t.lb(), t.true_lb(), t.true_extent());
    appendf(s, "elements %" PRId64 "  basic %s  alignment %d  contiguous %s\n", t.elements(),
            to_string(t.basic()), t.alignment(), t.contiguous() ? "yes" : "no");
    const program* p = t.prog();
    if (!p) return s + "(not committed)\n";
    s += "normal form: " + normal_form(t) + "\n";
    appendf(s, "program: %zu node(s), depth %d, %zu bytes; segments/instance %" PRId64 "; kernels %s\n",
            p->nodes(), p->depth(), p->footprint(), p->segments_per_instance(), kernel_isa());
    node_lines(s, *p);
    return s;
}

}  // namespace ch4lite::dame
