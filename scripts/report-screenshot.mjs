#!/usr/bin/env node
// The README's picture of a report (docs/report.png): examples/heat.ts on 4 ranks with --trace,
// `tsmpi report`, then headless Chromium (Debian's) draws it.
//   node scripts/report-screenshot.mjs [out.png]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const out = process.argv[2] ?? 'docs/report.png';
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-shot-'));
const run = (args) => {
  const r = spawnSync(process.execPath, ['dist/cli/main.js', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsmpi ${args.join(' ')} failed:\n${r.stderr}`);
};
try {
  run(['run', '-n', '4', '--trace', join(dir, 'heat.json'), 'examples/heat.ts']);
  run(['report', join(dir, 'heat.json'), '-o', join(dir, 'heat.html')]);
  const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless=new', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 900 });
  await page.goto(pathToFileURL(join(dir, 'heat.html')).href, { waitUntil: 'load' });
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1100, height: 900 } });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
