/* SPDX-License-Identifier: MIT
 * Stand-ins for libpsm_infinipath.so.1 (CH4LITE_PSM_STUB_VERSION 1) and
 * libpsm2.so.2 (2): every function libfabric's psm and psm2 providers import
 * (libfabric 1.17, Debian 12), each reporting "no device" (PSM_EP_NO_DEVICE,
 * PSM2_EP_NO_DEVICE: 21).
 *
 * The real libraries (and libinfinipath.so.4, which libpsm_infinipath
 * needs) calibrate a cycle counter in their constructors: 100 ms of
 * usleep(125) each, 0.2 s per process before libfabric can be used. Their
 * providers need a TrueScale (qib) or Omni-Path (hfi1) adapter. When the
 * host has none, the ofi netmod loads these stand-ins first under the real
 * sonames (docs/netmod-ofi.md, "Loading libfabric"), so libfabric binds to
 * them and its psm and psm2 providers find no device, as they would with
 * the real libraries. Callers pass arguments these functions ignore; on the
 * platform ABIs ch4lite supports (x86-64, AArch64) that is harmless.
 */
#include <stddef.h>
#include <stdint.h>

#define NO_DEVICE 21

#define INT_STUB(name) \
    int name(void);    \
    int name(void) { return NO_DEVICE; }

#if CH4LITE_PSM_STUB_VERSION == 1
#define P(x) psm_##x
#else
#define P(x) psm2_##x
#endif

const char* P(error_get_string)(int err);
const char* P(error_get_string)(int err) {
    (void)err;
    return "no PSM device (ch4lite stand-in library)";
}
void* P(epaddr_getctxt)(void* epaddr);
void* P(epaddr_getctxt)(void* epaddr) {
    (void)epaddr;
    return NULL;
}

INT_STUB(P(am_get_parameters))
INT_STUB(P(am_reply_short))
INT_STUB(P(am_request_short))
INT_STUB(P(ep_close))
INT_STUB(P(ep_connect))
INT_STUB(P(ep_open))
INT_STUB(P(ep_open_opts_get_defaults))
INT_STUB(P(epaddr_setctxt))
INT_STUB(P(error_register_handler))
INT_STUB(P(finalize))
INT_STUB(P(init))
INT_STUB(P(mq_cancel))
INT_STUB(P(mq_init))
INT_STUB(P(mq_ipeek))

#if CH4LITE_PSM_STUB_VERSION == 1
INT_STUB(psm_am_register_handlers)
INT_STUB(psm_ep_epid_lookup)
INT_STUB(psm_ep_num_devunits)
INT_STUB(psm_mq_finalize)
INT_STUB(psm_mq_iprobe)
INT_STUB(psm_mq_irecv)
INT_STUB(psm_mq_isend)
INT_STUB(psm_mq_send)
INT_STUB(psm_mq_test)
#else
uint64_t psm2_get_capability_mask(uint64_t mask);
uint64_t psm2_get_capability_mask(uint64_t mask) {
    (void)mask;
    return 0;
}
INT_STUB(psm2_am_get_source)
INT_STUB(psm2_am_register_handlers_2)
INT_STUB(psm2_ep_disconnect2)
INT_STUB(psm2_ep_epid_lookup2)
INT_STUB(psm2_epaddr_to_epid)
INT_STUB(psm2_info_query)
INT_STUB(psm2_mq_improbe2)
INT_STUB(psm2_mq_imrecv)
INT_STUB(psm2_mq_iprobe2)
INT_STUB(psm2_mq_irecv2)
INT_STUB(psm2_mq_isend2)
INT_STUB(psm2_mq_send2)
INT_STUB(psm2_mq_test2)
INT_STUB(psm2_mq_wait2)
INT_STUB(psm2_poll)
#endif
