/**
 * tsmpi: MPI-style parallel computing for TypeScript.
 *
 * @example
 * ```ts
 * import { init, Op } from 'tsmpi';
 * const comm = await init();
 * const sum = await comm.allreduce(comm.rank + 1, Op.sum);
 * if (comm.rank === 0) console.log(`1 + ... + ${comm.size} = ${sum}`);
 * ```
 * @module
 */
export { init, finalize, abort, wtime, wtick, processorName, isInitialized, isFinalized, getVersion, getLibraryVersion, jobInfo, communicationState, type CommunicationState, type RailState } from './bootstrap/init.js';
export type { JobInfo } from './bootstrap/job-info.js';
export { Session } from './bootstrap/session.js';
// Installs comm.abort().
import './bootstrap/communicator-abort.js';
export { Communicator, ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB, type Concatenated, type ReceiveArray } from './comm/communicator.js';
export { Group, GROUP_EMPTY, IDENT, CONGRUENT, SIMILAR, UNEQUAL, type Comparison, type RankRange } from './comm/group.js';
export { Info, MAX_INFO_KEY, MAX_INFO_VAL } from './comm/info.js';
export { Errhandler, ERRHANDLER_NULL, ERRORS_RETURN, ERRORS_ARE_FATAL, ERRORS_ABORT, type ErrhandlerFunction } from './comm/errhandler.js';
export { KEYVAL_INVALID, ATTR_TAG_UB, ATTR_HOST, ATTR_IO, ATTR_WTIME_IS_GLOBAL, ATTR_APPNUM, ATTR_UNIVERSE_SIZE, type AttributeCopy, type AttributeDelete } from './comm/attributes.js';
export { Message, MESSAGE_NULL, MESSAGE_NO_PROC } from './comm/message.js';
export { COMM_TYPE_SHARED, COMM_TYPE_HW_GUIDED, COMM_TYPE_HW_UNGUIDED, COMM_TYPE_RESOURCE_GUIDED, type SplitType } from './comm/placement.js';
export { BSEND_OVERHEAD, BUFFER_AUTOMATIC, type AttachedBuffer } from './comm/send-buffer.js';
export { attachBuffer, detachBuffer, flushBuffer, iflushBuffer } from './bootstrap/send-buffer-api.js';
export { allocMem, freeMem, type TypedArrayType } from './comm/alloc-mem.js';
export { Win, MODE_NOCHECK, MODE_NOSTORE, MODE_NOPUT, MODE_NOPRECEDE, MODE_NOSUCCEED, type LockType, type WindowFlavor } from './comm/window/win.js';
export { Request, REQUEST_NULL, waitAll, waitAny, waitSome, testAll, testAny, testSome, getStatusAny, getStatusAll, getStatusSome, type Some } from './comm/request.js';
export { PersistentRequest, startAll } from './comm/persistent-request.js';
export { PartitionedSend, PartitionedRecv } from './comm/partitioned.js';
export { Intercommunicator, ROOT } from './comm/intercommunicator.js';
export { Status, UNDEFINED, SUCCESS, type ElementKind } from './comm/status.js';
export { CartCommunicator, DistGraphCommunicator, GraphCommunicator, computeDims, type CartShift, type DistGraphEdgeOptions, type DistGraphOptions } from './comm/topology/index.js';
export { Op, type ReduceOp, type BuiltinOp, type AnyOp, type ValueIndex } from './comm/ops.js';
export { TsmpiError, ErrorCode, isTsmpiError, type ErrorCodeValue, type TsmpiErrorData } from './errors.js';
export type { TypedArray, BufferLike } from './comm/codec.js';
export type { Outgoing, Incoming, ExchangeOptions } from './batch/exchange.js';
export type { ConveyorOptions } from './batch/conveyor.js';
// Also installs comm.exchange() and comm.conveyor().
export { exchange, Conveyor } from './batch/communicator-methods.js';
export type { PlannerName } from './policy/batch/types.js';
export type { Clock, TimerHandle } from './clock.js';
export { TaskPool, TaskHandle, TaskError, type SettledTask, type TaskStatus, type TaskPoolOptions, type SubmitOptions, type PoolStats, type PoolMode, type TaskHandlers, type TaskArg, type TaskResult, type TaskContext, type TaskHandler } from './balance/task-pool.js';
export { DiffusionBalancer, type DiffusionOptions, type RebalanceStep } from './balance/diffusion-balancer.js';
export type { SpeedModelName } from './policy/balance/speed-model.js';
