// The console's two themes keep their contrast: every text colour against the backgrounds it is
// drawn on at 4.5:1 or more (WCAG AA), and form controls' borders at 3:1 (WCAG 1.4.11), read
// from the stylesheet itself so a colour change that breaks either fails here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const css = readFileSync(new URL('../console/src/styles.css', import.meta.url), 'utf8');

function theme(selector: string): Record<string, string> {
  const start = css.indexOf(selector);
  assert.ok(start >= 0, `no ${selector} block`);
  const block = css.slice(start, css.indexOf('}', start));
  return Object.fromEntries([...block.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]]));
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

const textPairs: [string, string][] = [
  ['text', 'bg'],
  ['text', 'surface'],
  ['muted', 'bg'],
  ['muted', 'surface'],
  ['accent', 'bg'],
  ['accent', 'surface'],
  ['accent-text', 'accent'],
  ['danger', 'surface'],
  ['danger-text', 'danger'],
  ['ok', 'surface'],
  ['badge-run-text', 'badge-run'],
  ['badge-stop-text', 'badge-stop'],
  ['badge-busy-text', 'badge-busy'],
];

for (const selector of ['[data-theme="light"]', '[data-theme="dark"]']) {
  test(`${selector}: text at 4.5:1, control borders at 3:1`, () => {
    const colours = theme(selector);
    for (const [fore, back] of textPairs) {
      const ratio = contrast(colours[fore], colours[back]);
      assert.ok(ratio >= 4.5, `${fore} on ${back}: ${ratio.toFixed(2)}:1`);
    }
    for (const back of ['bg', 'surface']) {
      const ratio = contrast(colours.control, colours[back]);
      assert.ok(ratio >= 3, `control border on ${back}: ${ratio.toFixed(2)}:1`);
    }
  });
}

test('the contrast formula gives the known extremes', () => {
  assert.equal(contrast('#000000', '#ffffff').toFixed(1), '21.0');
  assert.equal(contrast('#777777', '#777777'), 1);
});
