/**
 * Reads a platform file: `.json` through {@link platformFromJson}, `.xml` (SimGrid) through
 * {@link platformFromSimGridXml}; any other name is read as XML when it starts with `<`.
 */
import { readFileSync } from 'node:fs';
import { platformFromJson } from './json.js';
import { configError, type Platform } from './platform.js';

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
  return platformFromJson(value, path);
}
