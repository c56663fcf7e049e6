import assert from 'node:assert/strict';
import { isIPv4 as netIsIPv4 } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { isIPv4 } from '../../src/transport/ipv4.ts';

test('isIPv4 agrees with node:net on addresses, near misses and arbitrary text', () => {
  const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.integer({ min: 256, max: 999 }).map(String), fc.constantFrom('00', '01', '007', '', '-1', '1a', ' 1'));
  const quadLike = fc.array(octet, { minLength: 2, maxLength: 6 }).map((parts) => parts.join('.'));
  fc.assert(fc.property(fc.oneof(quadLike, fc.string()), (text) => assert.equal(isIPv4(text), netIsIPv4(text), JSON.stringify(text))), { numRuns: 5000 });
  for (const yes of ['0.0.0.0', '127.0.0.1', '198.18.0.1', '255.255.255.255']) assert.equal(isIPv4(yes), true, yes);
  for (const no of ['256.0.0.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', 'eth0', '', '::1']) assert.equal(isIPv4(no), false, no);
});
