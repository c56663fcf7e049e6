import { TSMPI_VERSION } from '../version-number.js';

/** The version in package.json (kept equal to TSMPI_VERSION by a unit test). */
export function packageVersion(): string {
  return TSMPI_VERSION;
}
