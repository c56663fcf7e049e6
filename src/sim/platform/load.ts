/**
 * Reads a platform file: `.json` through {@link platformFromJson}, `.xml` (SimGrid) through
 * {@link platformFromSimGridXml}; any other name is read as XML when it starts with `<`. A JSON
 * file written by `tsmpi calibrate` is a calibrated machine (calibration.ts).
 */
import { readFileSync } from 'node:fs';
import { classCosts, isCalibration, readCalibration, type MachineCalibration } from './calibration.js';
import { platformFromJson } from './json.js';
import { configError, type Platform } from './platform.js';
import { crossbar } from './topologies.js';

export async function loadPlatformFile(path: string): Promise<Platform> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(`${path}: cannot read the platform file (${(err as Error).message})`, 'check the path given for the platform');
  }
  if (path.endsWith('.xml') || (!path.endsWith('.json') && text.trimStart().startsWith('<'))) {
    // The XML parser loads only for SimGrid platforms.
    const { platformFromSimGridXml } = await import('./simgrid-xml.js');
    return platformFromSimGridXml(text, path);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw configError(`${path}: not valid JSON (${(err as Error).message})`, 'fix the JSON syntax, or give a SimGrid .xml platform');
  }
  if (isCalibration(value)) return platformFromCalibration(readCalibration(value, path), path);
  return platformFromJson(value, path);
}

/**
 * The hosts of a calibrated machine: `hosts.count` such machines on a crossbar whose links carry
 * the TCP figures between hosts (the calibrated model uses the fitted costs themselves).
 */
export function platformFromCalibration(calibration: MachineCalibration, source: string): Platform {
  const tcp = classCosts(calibration, 'inter-host') ?? classCosts(calibration, 'intra-process')!;
  const big = tcp.measured.at(-1);
  const bandwidth = big !== undefined && big.streamPeriod > 0 ? big.bytes / big.streamPeriod : 1.25e9;
  const latency = tcp.measured[0]?.oneWay ?? 1e-6;
  const { count, cores, speed, prefix } = calibration.hosts;
  return crossbar({ hosts: count, cores, speed, ...(prefix !== undefined ? { prefix } : {}), bandwidth, latency: latency / 2, source, calibration });
}
