// The server key and what is derived from it: keyed hashes for token look-up and
// authenticated encryption for secrets that must be shown again (tokens, root passwords).
// The key lives outside the database, so a copy of the database alone yields no token.

import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Unavailable } from './errors.ts';
import { cryptoRandom, type RandomSource } from './random.ts';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export interface Secrets {
  /** HMAC-SHA256 of a token under the look-up key, hex. */
  tokenDigest(token: string): string;
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /** `salt` is for a hash no one sees (the login decoy): by default one comes from the instance's random source. */
  hashPassword(password: string, salt?: Buffer): Promise<string>;
  verifyPassword(password: string, stored: string): Promise<boolean>;
  /** Several checks of one password, admitted under the hashing cap all together or not at all. */
  verifyPasswords(password: string, stored: string[]): Promise<boolean[]>;
}

/** Where the server key lives when SECRET_KEY is not set: SECRET_KEY_FILE, or DATA_DIR/secret.key. */
export function serverKeyFile(secretKeyFile: string | null, dataDir: string): string {
  return secretKeyFile ?? join(dataDir, 'secret.key');
}

/** Loads SECRET_KEY, or the key file, creating the latter (0600, in a 0700 folder) on first start. */
export function loadServerKey(secretKey: string | null, dataDir: string, secretKeyFile: string | null = null): Buffer {
  if (secretKey) return Buffer.from(secretKey, 'utf8');
  const file = serverKeyFile(secretKeyFile, dataDir);
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * At most `limit` password hashes under way at once (scrypt runs on libuv's small thread pool, so
 * more only queue there, each holding its memory-hard work for later): one beyond the limit is
 * refused at once, 503 with Retry-After, rather than queued without bound.
 */
function hashingCap(limit: number): <T>(work: () => Promise<T>, slots?: number) => Promise<T> {
  let underWay = 0;
  return async (work, slots = 1) => {
    if (underWay + slots > limit) throw new Unavailable('too many password checks under way: retry in a moment', 1);
    underWay += slots;
    try {
      return await work();
    } finally {
      underWay -= slots;
    }
  };
}

export function createSecrets(
  serverKey: Buffer,
  passwordHashCost: number,
  passwordHashConcurrency = 16,
  random: RandomSource = cryptoRandom,
): Secrets {
  const capped = hashingCap(passwordHashConcurrency);
  const verify = async (password: string, stored: string): Promise<boolean> => {
    const [scheme, cost, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash) return false;
    const N = 2 ** Number(cost);
    const expected = Buffer.from(hash, 'base64url');
    const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
      N,
      r: Number(r),
      p: Number(p),
      maxmem: 256 * N * Number(r),
    });
    return timingSafeEqual(actual, expected);
  };
  const derive = (purpose: string) =>
    Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), `nubis ${purpose}`, 32));
  const lookupKey = derive('token lookup');
  const sealKey = derive('secret sealing');

  return {
    tokenDigest(token) {
      return createHmac('sha256', lookupKey).update(token).digest('hex');
    },
    encrypt(plain) {
      const iv = random.bytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    decrypt(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', sealKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    async hashPassword(password, salt = random.bytes(16)) {
      const params = { N: 2 ** passwordHashCost, r: 8, p: 1 };
      const hash = await capped(() =>
        scryptAsync(password, salt, 32, { ...params, maxmem: 256 * params.N * params.r }),
      );
      return [
        'scrypt',
        passwordHashCost,
        params.r,
        params.p,
        salt.toString('base64url'),
        hash.toString('base64url'),
      ].join('$');
    },
    async verifyPassword(password, stored) {
      return capped(() => verify(password, stored));
    },
    async verifyPasswords(password, stored) {
      return capped(() => Promise.all(stored.map((one) => verify(password, one))), stored.length);
    },
  };
}

/** A 256-bit random token, hex (64 characters). */
export function newToken(random: RandomSource): string {
  return random.bytes(32).toString('hex');
}

/** Constant-time comparison of two secrets of any length. */
export function secretEquals(a: string, b: string): boolean {
  const left = createHmac('sha256', 'compare').update(a).digest();
  const right = createHmac('sha256', 'compare').update(b).digest();
  return timingSafeEqual(left, right);
}
