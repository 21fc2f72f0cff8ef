// SPDX-License-Identifier: MIT
#include "rma/pools.hpp"

#include "rma/rma.hpp"

namespace ch4lite::rma {

namespace {
util::object_pool<op> g_ops;
util::object_pool<out_msg> g_msgs;
}  // namespace

util::object_pool<op>& op_pool() noexcept { return g_ops; }
util::object_pool<out_msg>& msg_pool() noexcept { return g_msgs; }

status pools_init() noexcept {
    if (!g_ops.initialized()) {
        const status s = g_ops.init(util::pool_config_from_env({"RMA_OP", 16, 64, 1u << 20, 3}));
        if (s != status::ok) return s;
    }
    if (!g_msgs.initialized()) {
        const status s = g_msgs.init(util::pool_config_from_env({"RMA_MSG", 16, 64, 1u << 16, 3}));
        if (s != status::ok) return s;
    }
    return status::ok;
}

uint32_t ops_in_use() noexcept { return g_ops.in_use(); }
uint32_t msgs_in_use() noexcept { return g_msgs.in_use(); }

}  // namespace ch4lite::rma
