// SPDX-License-Identifier: MIT
// The bootstrap's key/value exchange.
//
// put() only records the value. fence() publishes everything
// this rank ever put as ONE blob (entries "name, length, bytes", base64) under
// the key "c4-<fence>-<rank>", split over "c4-<fence>-<rank>-<i>" when
// longer than the server's value limit (~450 bytes per key over PMI-1), then
// runs the PMI barrier. A reader fetches a peer's blob once per fence, with
// one get when it fits one key, and serves every name of it from a cache.
// So per rank and fence: one put (more for long blobs), one barrier, and one
// get per peer actually read. A rank that never put anything publishes
// nothing; reading it costs one get that finds no key.
//
// PMIx: the blob is one byte object "ch4lite.c4-<fence>-<rank>", put and
// committed at the fence, which collects everyone's data; every get is then
// answered by the local library, without a round trip to the server.
#include <charconv>
#include <cstring>

#include "device/bootstrap.hpp"
#include "device/pmi2_client.hpp"
#include "device/pmi_client.hpp"
#include "device/pmix_client.hpp"
#include "util/log.hpp"
#include "util/pmi2_wire.hpp"
#include "util/pmi_wire.hpp"

namespace ch4lite::dev {

namespace {

std::string blob_key(int epoch, int rank) {
    return "c4-" + std::to_string(epoch) + "-" + std::to_string(rank);
}

void put_u32(std::vector<std::byte>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

std::vector<std::byte> encode(const std::vector<std::pair<std::string, std::vector<std::byte>>>& es) {
    std::vector<std::byte> b;
    for (const auto& [name, data] : es) {
        put_u32(b, static_cast<uint32_t>(name.size()));
        for (char c : name) b.push_back(static_cast<std::byte>(c));
        put_u32(b, static_cast<uint32_t>(data.size()));
        b.insert(b.end(), data.begin(), data.end());
    }
    return b;
}

bool decode(const std::vector<std::byte>& b,
            std::vector<std::pair<std::string, std::vector<std::byte>>>& out) {
    out.clear();
    std::size_t i = 0;
    auto u32 = [&](uint32_t& v) {
        if (b.size() - i < 4) return false;
        v = 0;
        for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(b[i + k]) << (8 * k);
        i += 4;
        return true;
    };
    while (i < b.size()) {
        uint32_t n = 0, len = 0;
        if (!u32(n) || b.size() - i < n) return false;
        std::string name(reinterpret_cast<const char*>(b.data() + i), n);
        i += n;
        if (!u32(len) || b.size() - i < len) return false;
        out.emplace_back(std::move(name), std::vector<std::byte>(b.begin() + static_cast<std::ptrdiff_t>(i),
                                                                 b.begin() + static_cast<std::ptrdiff_t>(i + len)));
        i += len;
    }
    return true;
}

}  // namespace

status bootstrap::kv_put(const std::string& key, const std::string& value) {
    std::string error;
    ++stats_.round_trips;
    const status st = pmi1_ ? pmi1_->put(key, value, error) : pmi2_->put(key, value, error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::kv_get(const std::string& key, std::string& value, bool& found) {
    std::string error;
    ++stats_.round_trips;
    const status st = pmi1_ ? pmi1_->get(key, value, found, error) : pmi2_->get(key, value, found, error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::kv_fence() {
    std::string error;
    status st;
    ++stats_.round_trips;
    if (pmi1_) {
        st = pmi1_->barrier(error);
    } else {
        st = pmi2_->fence(error);
        // Slurm's kvs-fence returns once every task fenced. Hydra's returns
        // at once; its kvs-get of a key nobody put waits until every task
        // reached this fence, which makes the barrier callers rely on.
        if (!failed(st) && launcher_ != "slurm") {
            std::string v;
            bool found = false;
            ++stats_.round_trips;
            st = pmi2_->get("c4-bar-" + std::to_string(++barrier_seq_), v, found, error);
        }
    }
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::put(const char* name, const void* data, std::size_t len) {
    if (!name || !util::pmi_valid_key(name) || std::strlen(name) > 32) {
        util::warn("bootstrap: put name '%s' is not a short [A-Za-z0-9_-] word", name ? name : "(null)");
        return status::invalid;
    }
    ++stats_.puts;
    const auto* b = static_cast<const std::byte*>(data);
    std::vector<std::byte> v(b, b + len);
    for (auto& e : mine_)
        if (e.first == name) {
            e.second = std::move(v);
            return status::ok;
        }
    mine_.emplace_back(name, std::move(v));
    return status::ok;
}

status bootstrap::fence() {
    if (singleton_) return status::ok;
    ++stats_.fences;
    ++epoch_;
    std::fill(fetched_.begin(), fetched_.end(), 0);
    for (auto& c : cache_) c.clear();
    if (pmix_) {
        // A committed value is visible to the node's ranks at once (PMIx's
        // shared data store): a blob per fence keeps a replaced value from
        // reaching readers of the previous fence.
        std::string error;
        status st = status::ok;
        if (!mine_.empty()) {
            const std::vector<std::byte> raw = encode(mine_);
            st = pmix_->put(blob_key(epoch_, rank_), raw.data(), raw.size(), error);
        }
        ++stats_.round_trips;
        if (!failed(st)) st = pmix_->fence(true, error);
        if (failed(st)) util::warn("%s", error.c_str());
        return st;
    }
    if (!mine_.empty()) {
        const std::vector<std::byte> raw = encode(mine_);
        const std::string text = util::b64_encode(raw.data(), raw.size());
        const std::string key = blob_key(epoch_, rank_);
        // Room for the longest chunk key and the "<chunks>:" prefix.
        const std::size_t key_max = key.size() + 11, prefix_max = 11;
        const std::size_t limit =
            (pmi1_ ? pmi1_->max_value_len(key_max) : pmi2_client::max_value_len) - prefix_max;
        const std::size_t n = text.empty() ? 1 : (text.size() + limit - 1) / limit;
        for (std::size_t i = 0; i < n; ++i) {
            std::string v = text.substr(i * limit, limit);
            if (i == 0) v = std::to_string(n) + ":" + v;
            if (status st = kv_put(i == 0 ? key : key + "-" + std::to_string(i), v); failed(st))
                return st;
        }
    }
    return kv_fence();
}

status bootstrap::fetch_blob(int rank) {
    const std::size_t r = static_cast<std::size_t>(rank);
    fetched_[r] = 1;
    cache_[r].clear();
    const std::string key = blob_key(epoch_, rank);
    if (pmix_) {  // answered by the local library
        std::vector<std::byte> raw;
        std::string error;
        const status st = pmix_->get(rank, key, raw, error);
        if (st == status::invalid) return status::ok;  // that rank published nothing
        if (failed(st)) {
            util::warn("%s", error.c_str());
            return st;
        }
        if (!decode(raw, cache_[r])) {
            util::warn("bootstrap: corrupt values from rank %d", rank);
            return status::io;
        }
        return status::ok;
    }
    std::string first, part;
    bool found = false;
    if (status st = kv_get(key, first, found); failed(st)) return st;
    if (!found) return status::ok;  // that rank published nothing
    const std::size_t colon = first.find(':');
    std::size_t n = 0;
    const char* c = first.c_str();
    if (colon == std::string::npos || std::from_chars(c, c + colon, n).ptr != c + colon || n < 1 ||
        n > (1u << 20)) {
        util::warn("bootstrap: bad blob header from rank %d", rank);
        return status::io;
    }
    std::string text = first.substr(colon + 1);
    for (std::size_t i = 1; i < n; ++i) {
        if (status st = kv_get(key + "-" + std::to_string(i), part, found); failed(st)) return st;
        if (!found) {
            util::warn("bootstrap: part %zu of rank %d's values is missing", i, rank);
            return status::io;
        }
        text += part;
    }
    std::vector<std::byte> raw;
    if (!util::b64_decode(text, raw) || !decode(raw, cache_[r])) {
        util::warn("bootstrap: corrupt values from rank %d", rank);
        return status::io;
    }
    return status::ok;
}

status bootstrap::get(int rank, const char* name, std::vector<std::byte>& out) {
    if (rank < 0 || rank >= size_ || !name || !util::pmi_valid_key(name)) return status::invalid;
    ++stats_.gets;
    const std::vector<entry>* from = &mine_;
    if (rank != rank_) {
        if (epoch_ == 0) return status::invalid;  // nothing is visible before a fence
        if (!fetched_[static_cast<std::size_t>(rank)])
            if (status st = fetch_blob(rank); failed(st)) return st;
        from = &cache_[static_cast<std::size_t>(rank)];
    }
    for (const auto& e : *from)
        if (e.first == name) {
            out = e.second;
            return status::ok;
        }
    return status::invalid;
}

status bootstrap::barrier() {
    if (singleton_) return status::ok;
    ++stats_.barriers;
    std::string error;
    status st = status::ok;
    if (pmix_) {
        ++stats_.round_trips;
        st = pmix_->fence(false, error);
    } else if (pmi1_) {
        ++stats_.round_trips;
        st = pmi1_->barrier(error);
    } else {
        return kv_fence();
    }
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

}  // namespace ch4lite::dev
