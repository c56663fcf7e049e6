/**
 * The simulator's network models by name, and SimGrid's configuration keys for them.
 *
 * - `flow`: tsmpi's default: max-min sharing weighted by route latency, no cross-traffic, header-only
 *   frames of up to 64 bytes kept out of the sharing (SimGrid CM02 without cross-traffic, faster).
 * - `delay`: latency + size / narrowest bandwidth, no contention.
 * - `calibrated`: a machine measured by `tsmpi calibrate` (calibrated-model.ts), the default of
 *   such a platform file.
 * - `cm02`, `smpi`, `lv08`: SimGrid's models of those names, with SimGrid's defaults: every frame
 *   in the sharing, cross-traffic on; SMPI adds weight-S 8775 and its size-dependent latency and
 *   bandwidth factors; LV08 (SimGrid's default outside smpirun) factors 13.01 and 0.97, weight-S
 *   20537.
 *
 * `--cfg=key:value` (SimGrid's spelling, also a platform file's `<config><prop id= value=/>`)
 * changes one of them; simgridConfig() reads the keys SimGrid reads for these models and the
 * protocol thresholds of SMPI.
 */
import type { FlowModelOptions } from './flow-model.js';
import { parseSizeFactor, SMPI_BW_FACTOR, SMPI_LAT_FACTOR } from './size-factor.js';

export type NetworkKind = 'flow' | 'delay' | 'cm02' | 'smpi' | 'lv08' | 'calibrated';

export const NETWORK_KINDS: readonly NetworkKind[] = ['flow', 'delay', 'cm02', 'smpi', 'lv08', 'calibrated'];

export const NETWORK_HELP = "flow (max-min sharing, tsmpi default), delay (no contention), cm02, smpi or lv08 (SimGrid's models, cross-traffic on), calibrated (a tsmpi calibrate file's fitted costs; its default)";

export function isNetworkKind(name: string): name is NetworkKind {
  return (NETWORK_KINDS as readonly string[]).includes(name);
}

/** The flow model's settings of a named model (undefined for `delay`). */
export function flowDefaults(kind: NetworkKind): FlowModelOptions | undefined {
  switch (kind) {
    case 'delay':
    case 'calibrated':
      return undefined;
    case 'flow':
      return {};
    case 'cm02':
      return { crosstraffic: true, smallFrameBytes: 0 };
    case 'smpi':
      return { crosstraffic: true, smallFrameBytes: 0, weightS: 8775, latencyFactor: parseSizeFactor(SMPI_LAT_FACTOR, 'smpi/lat-factor'), bandwidthFactor: parseSizeFactor(SMPI_BW_FACTOR, 'smpi/bw-factor') };
    case 'lv08':
      return { crosstraffic: true, smallFrameBytes: 0, weightS: 20537, latencyFactor: 13.01, bandwidthFactor: 0.97 };
  }
}

/** What SimGrid configuration entries set. */
export interface SimgridSettings {
  /** network/model. */
  network?: NetworkKind;
  /** Flow model settings over the model's defaults. */
  flow: FlowModelOptions;
  /** smpi/send-is-detached-thresh: sends of fewer bytes are detached (eager). */
  detachedThreshold?: number;
  /** smpi/async-small-thresh. */
  asyncSmallThreshold?: number;
  /** smpi/test, smpi/iprobe (seconds a poll costs), smpi/grow-injected-times: as TSMPI_SIM_TEST, TSMPI_SIM_IPROBE, TSMPI_SIM_GROW_POLLS. */
  pollCosts?: { test?: number; iprobe?: number; grow?: boolean };
  /** Keys read but without effect here, for a warning. */
  ignored: string[];
}

/** Keys SimGrid has that change nothing in a replay here (precision, tracing, host code). */
const WITHOUT_EFFECT = [/^surf\/precision$/, /^maxmin\//, /^network\/optim$/, /^cpu\/optim$/, /^precision\//, /^tracing/, /^smpi\/(privatization|display-timing|host-speed|keep-temps|shared-malloc.*|cpu-threshold|finalization-barrier|init|list-leaks|trace-call-location|pedantic|errors-are-fatal)$/, /^contexts\//, /^exception\//];

const MODEL_NAMES: Record<string, NetworkKind> = { cm02: 'cm02', smpi: 'smpi', lv08: 'lv08', legrandvelho: 'lv08' };

function settingError(key: string, value: string, source: string, why: string): RangeError {
  return new RangeError(`${source}: ${key}:${value}: ${why}`);
}

function yesNo(key: string, value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (['yes', 'on', 'true', '1'].includes(v)) return true;
  if (['no', 'off', 'false', '0'].includes(v)) return false;
  throw settingError(key, value, source, 'is not yes or no');
}

function number(key: string, value: string, source: string, integer = false): number {
  const v = Number(value.trim());
  if (value.trim() === '' || !(v >= 0 && v < Infinity) || (integer && !Number.isInteger(v))) throw settingError(key, value, source, `is not ${integer ? 'an integer' : 'a number'} >= 0`);
  return v;
}

/**
 * Reads SimGrid configuration entries (`key:value`, later ones win), e.g. from `--cfg` flags or a
 * platform's `<config>`. Throws a RangeError naming the entry for a key tsmpi does not know or
 * a model it does not have; keys without effect here are listed in `ignored`.
 */
export function simgridConfig(entries: readonly { key: string; value: string; source: string }[]): SimgridSettings {
  const out: SimgridSettings = { flow: {}, ignored: [] };
  for (const { key, value, source } of entries) {
    switch (key) {
      case 'network/model': {
        const kind = MODEL_NAMES[value.trim().toLowerCase()];
        if (kind === undefined) throw settingError(key, value, source, 'is not a model tsmpi has (CM02, SMPI, LV08)');
        out.network = kind;
        break;
      }
      case 'network/crosstraffic':
        out.flow.crosstraffic = yesNo(key, value, source);
        break;
      case 'network/weight-S':
        out.flow.weightS = number(key, value, source);
        break;
      case 'network/TCP-gamma':
      case 'network/TCP_gamma':
        out.flow.tcpGamma = number(key, value, source);
        break;
      case 'network/latency-factor':
      case 'smpi/lat-factor':
        out.flow.latencyFactor = wrap(() => parseSizeFactor(value, key), key, value, source);
        break;
      case 'network/bandwidth-factor':
      case 'smpi/bw-factor':
        out.flow.bandwidthFactor = wrap(() => parseSizeFactor(value, key), key, value, source);
        break;
      case 'smpi/send-is-detached-thresh':
        out.detachedThreshold = number(key, value, source, true);
        break;
      case 'smpi/async-small-thresh':
        out.asyncSmallThreshold = number(key, value, source, true);
        break;
      case 'smpi/test':
        out.pollCosts = { ...out.pollCosts, test: number(key, value, source) };
        break;
      case 'smpi/iprobe':
        out.pollCosts = { ...out.pollCosts, iprobe: number(key, value, source) };
        break;
      case 'smpi/grow-injected-times':
        out.pollCosts = { ...out.pollCosts, grow: yesNo(key, value, source) };
        break;
      default:
        if (WITHOUT_EFFECT.some((re) => re.test(key))) out.ignored.push(`${key}:${value}`);
        else throw settingError(key, value, source, 'is not a setting tsmpi reads (network/model, network/crosstraffic, network/weight-S, network/TCP-gamma, network/latency-factor, network/bandwidth-factor, smpi/lat-factor, smpi/bw-factor, smpi/send-is-detached-thresh, smpi/async-small-thresh, smpi/test, smpi/iprobe, smpi/grow-injected-times)');
    }
  }
  if (out.asyncSmallThreshold !== undefined && out.detachedThreshold !== undefined && out.asyncSmallThreshold > out.detachedThreshold) {
    throw new RangeError(`smpi/async-small-thresh (${out.asyncSmallThreshold}) must not exceed smpi/send-is-detached-thresh (${out.detachedThreshold}), as SimGrid requires`);
  }
  return out;
}

function wrap<T>(parse: () => T, key: string, value: string, source: string): T {
  try {
    return parse();
  } catch (error) {
    throw settingError(key, value, source, (error as Error).message.replace(`${key}: `, ''));
  }
}
