// A report page as a person sees it: Debian's Chromium, headless, driven by puppeteer-core.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

export function chromiumMissing(): string | undefined {
  return CHROMIUM === undefined ? 'Chromium is not installed (apt-get install chromium)' : undefined;
}

export interface PageCheck {
  /** Console errors and warnings, uncaught page errors, failed requests. */
  problems: string[];
  /** Every URL the page asked for besides itself (a self-contained page asks for none). */
  requests: string[];
  charts: { id: string; points: number }[];
  /** Per chart element: its canvas size and how many sampled pixels are not blank. */
  canvases: { id: string; width: number; height: number; inked: number }[];
}

/** Opens `file` in headless Chromium, waits for it to draw, screenshots it to `png`. */
export async function openPage(file: string, png: string): Promise<PageCheck> {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--headless=new', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    const self = pathToFileURL(file).href;
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('request', (r) => {
      if (r.url() !== self && !r.url().startsWith('data:')) requests.push(r.url());
    });
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(self, { waitUntil: 'load' });
    const report = await page.evaluate(() => (globalThis as unknown as { tsmpiReport?: { charts: { id: string; points: number }[] } }).tsmpiReport);
    const canvases = await page.evaluate(() => {
      const out: { id: string; width: number; height: number; inked: number }[] = [];
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ id: string; querySelector(s: string): unknown }> } }).document;
      const charts = doc.querySelectorAll('.chart');
      for (let i = 0; i < charts.length; i++) {
        const chart = charts[i]!;
        // A chart may draw on several canvas layers: count ink over all of them.
        const layers = (chart as unknown as { querySelectorAll(s: string): ArrayLike<{ width: number; height: number; getContext(k: string): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } }> }).querySelectorAll('canvas');
        if (layers.length === 0) {
          out.push({ id: chart.id, width: 0, height: 0, inked: 0 });
          continue;
        }
        const canvas = layers[0]!;
        let inked = 0;
        for (let l = 0; l < layers.length; l++) {
          const layer = layers[l]!;
          const { data } = layer.getContext('2d').getImageData(0, 0, layer.width, layer.height);
          for (let p = 0; p < data.length; p += 4 * 97) if (data[p + 3]! > 0 && (data[p]! < 240 || data[p + 1]! < 240 || data[p + 2]! < 240)) inked++;
        }
        out.push({ id: chart.id, width: canvas.width, height: canvas.height, inked });
      }
      return out;
    });
    await page.screenshot({ path: png, fullPage: true });
    return { problems, requests, charts: report?.charts ?? [], canvases };
  } finally {
    await browser.close();
  }
}
