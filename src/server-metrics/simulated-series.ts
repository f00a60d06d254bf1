// What the simulated driver shows as a server's usage: a plausible series derived from the
// server's uuid, plan and the time alone (a daily rhythm and a little noise), so the same
// window always answers the same numbers and nothing needs storing.

import type { MetricPoint } from './metric-point.ts';

/** A 32-bit hash of the text (FNV-1a): the server's own phase and noise. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A number in [0, 1) for the server at one instant (mulberry32 of its seed and the instant). */
function noise(seed: number, instant: number): number {
  let t = (seed ^ Math.imul(Math.floor(instant / 1000), 0x9e3779b1)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** One point of the series at `at` (clock ms), for a server of `memoryMb` and `diskGb` made at `createdAt`. */
export function simulatedPoint(
  server: { uuid: string; memoryMb: number; diskGb: number; createdAt: number },
  at: number,
): MetricPoint {
  const seed = hash(server.uuid);
  const phase = (seed % 1000) / 1000;
  // Busier by day than by night, each server at its own hour.
  const day = 0.5 + 0.5 * Math.sin(2 * Math.PI * (at / 86_400_000 + phase));
  const n = noise(seed, at);
  const ageDays = Math.max(0, (at - server.createdAt) / 86_400_000);
  const traffic = (1 + 4 * day) * (0.8 + 0.4 * n);
  return {
    at,
    cpu: round(Math.min(100, 3 + 25 * day + 12 * n), 1),
    memory_mb: round(server.memoryMb * (0.3 + 0.2 * day + 0.05 * n), 0),
    // The disk fills slowly from the image's share of it.
    disk_mb: round(server.diskGb * 1024 * Math.min(0.9, 0.12 + 0.002 * ageDays + 0.001 * n), 0),
    rx_bps: round(40_000 * traffic, 0),
    tx_bps: round(15_000 * traffic * (0.7 + 0.6 * noise(seed + 1, at)), 0),
  };
}
