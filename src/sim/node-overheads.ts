/**
 * Per-message CPU costs of tsmpi itself on Node, for `tsmpi sim --message-overhead node`: what a
 * rank spends sending plus receiving one small frame, as `tsmpi calibrate` measured them on the
 * project machine (2-core VM, Node 20; two calibrations, `tsmpi calibrate -o FILE`, send + receive
 * of an 8-byte frame from the fitted `send` and `recv` lines): between processes (TCP) 7.39 and
 * 7.39 us, inside a process (rings) 0.57 and 0.49 us.
 * A calibrated platform (`--platform` from `tsmpi calibrate`) carries the costs of its own
 * machine per size; these are for the made-up platforms.
 */
export const NODE_MESSAGE_OVERHEAD = 7.4e-6;
export const NODE_LOCAL_MESSAGE_OVERHEAD = 0.53e-6;
