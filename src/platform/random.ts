// The one source of every value Nubis makes up: uuids, tokens, passwords, salts, sealing nonces,
// addresses, request ids, fault dice. Unseeded it is the platform's cryptographic generator.
// Seeded (NUBIS_SEED, emulators only) it is a keystream derived from the seed, so the same
// requests in the same order give the same answers run after run; nothing it makes is secret.

import { createCipheriv, createHash, randomBytes, randomUUID, type Cipheriv } from 'node:crypto';

export interface RandomSource {
  /** True when every value follows from a seed (and so is predictable). */
  readonly seeded: boolean;
  bytes(length: number): Buffer;
  /** A version 4 uuid, lower case. */
  uuid(): string;
  /** A number in [0, 1), for choices that are no secret (an address to try, a fault's dice). */
  fraction(): number;
  /** Seeded: back to the seed's first value, as at start. Unseeded: nothing. */
  rewind(): void;
}

/** The cryptographic generator: what every instance without a seed uses. */
export const cryptoRandom: RandomSource = {
  seeded: false,
  bytes: (length) => randomBytes(length),
  uuid: () => randomUUID(),
  // Unseeded, the engine's generator: fast, and these choices protect nothing.
  fraction: () => Math.random(),
  rewind: () => {},
};

/** A key of `purpose` derived from the seed (the server key, the stream's key). */
export function seedKey(seed: string, purpose: string): Buffer {
  return createHash('sha256').update(`nubis seed\0${purpose}\0${seed}`).digest();
}

/**
 * The AES-256-CTR keystream under a key derived from the seed: fast, and every byte depends
 * only on the seed and how many bytes came before it.
 */
export function seededRandom(seed: string): RandomSource {
  const key = seedKey(seed, 'random stream');
  let stream: Cipheriv;
  const rewind = () => {
    stream = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  };
  rewind();
  const bytes = (length: number) => stream.update(Buffer.alloc(length));
  return {
    seeded: true,
    bytes,
    uuid() {
      const b = bytes(16);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const hex = b.toString('hex');
      return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
    },
    fraction: () => bytes(6).readUIntBE(0, 6) / 2 ** 48,
    rewind,
  };
}

const dayMs = 86_400_000;

/** Where a seeded virtual clock starts: midnight UTC of a day of 2030 that the seed picks. */
export function seededClockStart(seed: string): number {
  return Date.UTC(2030, 0, 1) + (seedKey(seed, 'clock start').readUInt32BE(0) % 365) * dayMs;
}
