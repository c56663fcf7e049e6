/**
 * Per-message CPU costs of tsmpi itself on Node, for `tsmpi sim --message-overhead node`: what a
 * rank spends sending plus receiving one small frame, as `tsmpi calibrate` measured them on the
 * project machine (2-core VM, Node 20; medians of two calibrations, send + receive of an 8-byte
 * frame): between processes (TCP) 7.45 and 8.25 us, inside a process (rings) 0.65 and 0.57 us.
 * A calibrated platform (`--platform` from `tsmpi calibrate`) carries the costs of its own
 * machine per size; these are for the made-up platforms.
 */
export const NODE_MESSAGE_OVERHEAD = 7.9e-6;
export const NODE_LOCAL_MESSAGE_OVERHEAD = 0.6e-6;
