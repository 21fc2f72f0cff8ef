// SPDX-License-Identifier: MIT
#include "device/match_queue.hpp"

#include <cstdlib>
#include <new>

#include "device/am.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

match_queues g_match_queues;

namespace {
util::object_pool<unexpected_msg> g_unexpected_pool;
}  // namespace

util::object_pool<unexpected_msg>& unexpected_pool() noexcept { return g_unexpected_pool; }

void unexpected_msg::release_data() noexcept {
    if (data != nullptr && data != inline_data) std::free(data);
    data = nullptr;
}

match_queues::ctx_lists* match_queues::lists(uint32_t ctx) noexcept {
    try {
        if (ctx >= by_ctx_.size()) by_ctx_.resize(ctx + 1);
        if (!by_ctx_[ctx]) by_ctx_[ctx] = std::make_unique<ctx_lists>();
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    return by_ctx_[ctx].get();
}

void match_queues::add_unexpected(unexpected_msg* m) noexcept {
    ctx_lists* l = lists(m->context);
    if (!l) util::fatal("out of memory queueing an unexpected message");
    l->unexpected.push_back(m);
}

request* match_queues::take_posted(uint32_t ctx, int rank, int tag) noexcept {
    ctx_lists* l = find(ctx);
    if (!l) return nullptr;
    for (request* r = l->posted.front(); r; r = l->posted.next(r)) {
        if (match_ok(r->match_rank, r->match_tag, rank, tag)) {
            l->posted.remove(r);
            return r;
        }
    }
    return nullptr;
}

unexpected_msg* match_queues::find_unexpected(uint32_t ctx, int rank, int tag) noexcept {
    ctx_lists* l = find(ctx);
    if (!l) return nullptr;
    for (unexpected_msg* m = l->unexpected.front(); m; m = l->unexpected.next(m))
        if (match_ok(rank, tag, m->src_rank, m->tag)) return m;
    return nullptr;
}

unexpected_msg* match_queues::take_unexpected(uint32_t ctx, int rank, int tag) noexcept {
    unexpected_msg* m = find_unexpected(ctx, rank, tag);
    if (m) find(ctx)->unexpected.remove(m);
    return m;
}

unexpected_msg* match_queues::take_sent(int src_lpid, uint32_t sreq_id) noexcept {
    for (auto& l : by_ctx_) {
        if (!l) continue;
        for (unexpected_msg* m = l->unexpected.front(); m; m = l->unexpected.next(m))
            if (m->src_lpid == src_lpid && m->sreq_id == sreq_id && (m->rts || (m->flags & amf_sync))) {
                l->unexpected.remove(m);
                return m;
            }
    }
    return nullptr;
}

bool match_queues::unpost(request* r) noexcept {
    if (!r->qlink.linked()) return false;
    find(r->context)->posted.remove(r);
    return true;
}

std::size_t match_queues::unexpected_count() const noexcept {
    std::size_t n = 0;
    for (const auto& l : by_ctx_)
        if (l) n += l->unexpected.size();
    return n;
}

std::size_t match_queues::drop_unexpected_if(bool (*stale)(uint32_t ctx)) noexcept {
    std::size_t n = 0;
    for (std::size_t c = 0; c < by_ctx_.size(); ++c) {
        ctx_lists* l = by_ctx_[c].get();
        if (!l || l->unexpected.empty() || !stale(static_cast<uint32_t>(c))) continue;
        while (unexpected_msg* m = l->unexpected.pop_front()) {
            m->release_data();
            unexpected_pool().free(m);
            ++n;
        }
    }
    return n;
}

void match_queues::clear() noexcept {
    for (auto& l : by_ctx_) {
        if (!l) continue;
        while (unexpected_msg* m = l->unexpected.pop_front()) {
            m->release_data();
            unexpected_pool().free(m);
        }
        while (l->posted.pop_front()) {
        }
    }
    by_ctx_.clear();
}

}  // namespace ch4lite::dev
