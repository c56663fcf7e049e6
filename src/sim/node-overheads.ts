/**
 * Per-message CPU costs of tsmpi itself on Node, for `tsmpi sim --message-overhead node`: what a
 * rank spends sending plus receiving one small frame, as `tsmpi calibrate` measured them on the
 * project machine (2-core VM, Node 20; two calibrations, `tsmpi calibrate -o FILE`, send + receive
 * of an 8-byte frame from the fitted `send` and `recv` lines, 2026-12-03): between processes (TCP)
 * 5.84 and 6.19 us, inside a process (rings) 0.44 and 0.40 us.
 * A calibrated platform (`--platform` from `tsmpi calibrate`) carries the costs of its own
 * machine per size; these are for the made-up platforms.
 */
export const NODE_MESSAGE_OVERHEAD = 6.0e-6;
export const NODE_LOCAL_MESSAGE_OVERHEAD = 0.42e-6;
