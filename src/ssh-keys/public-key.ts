// Reads an OpenSSH public key line ("<type> <base64> [comment]") for real: the wire blob is
// decoded and checked against its prefix, validated as a key, sized, and fingerprinted as ssh-keygen -l does.

import { createHash, createPublicKey } from 'node:crypto';
import type { Key, parseKey } from 'sshpk';
import { Invalid } from '../platform/errors.ts';

/** The spec's formats, plus ssh-ed25519 (our extension, see the decisions table (docs/decisions.md)). */
export const acceptedKeyTypes = [
  'ssh-rsa',
  'ssh-dss',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-ed25519',
] as const;
export type KeyType = (typeof acceptedKeyTypes)[number];

export const RSA_MIN_BITS = 2048;
/** OpenSSH refuses larger moduli (SSHBUF_MAX_BIGNUM). */
export const RSA_MAX_BITS = 16384;

export interface PublicKey {
  type: KeyType;
  /** The key line as stored and listed: type, base64 and the comment, single-spaced. */
  text: string;
  /** OpenSSH's form: "SHA256:" and the unpadded base64 of the blob's SHA-256. */
  fingerprint: string;
  bits: number;
}

/**
 * sshpk (with its crypto helpers, some forty modules) is needed only when a key is added: it is
 * loaded then, not at start.
 */
let sshpkParseKey: Promise<typeof parseKey> | undefined;
function loadParseKey(): Promise<typeof parseKey> {
  sshpkParseKey ??= import('sshpk').then((sshpk) => sshpk.parseKey);
  return sshpkParseKey;
}

function refuse(reason: string): never {
  throw new Invalid('public_key', reason);
}

function isKeyType(value: string): value is KeyType {
  return (acceptedKeyTypes as readonly string[]).includes(value);
}

/** The first length-prefixed string of the blob: the key type the blob itself declares. */
function blobType(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return null;
  return blob.subarray(4, 4 + length).toString('latin1');
}

export async function parsePublicKey(input: string): Promise<PublicKey> {
  const line = input.trim();
  if (/[\r\n]/.test(line)) refuse('must be a single public key on one line');
  const match = /^(\S+)\s+([A-Za-z0-9+/]+={0,2})(?:\s+(.*))?$/.exec(line);
  if (!match) refuse('must be an OpenSSH public key: "<type> <base64 key> [comment]"');
  const [, type = '', base64 = '', comment] = match;
  if (!isKeyType(type)) refuse(`unsupported key type "${type}": accepted are ${acceptedKeyTypes.join(', ')}`);

  const blob = Buffer.from(base64, 'base64');
  // Node's decoder skips junk silently; a key whose base64 does not round-trip is corrupt.
  if (blob.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) refuse("the key's base64 is malformed");
  const inner = blobType(blob);
  if (inner !== type)
    refuse(inner === null ? 'the key data is truncated or malformed' : `the key data is a ${inner} key, not ${type}`);

  const parse = await loadParseKey();
  let key: Key;
  try {
    key = parse(blob, 'rfc4253');
  } catch {
    return refuse(`the ${type} key data is malformed`);
  }
  // A blob that does not re-encode to itself has extra parts, trailing bytes or non-minimal
  // integers: OpenSSH rejects those, so we do too (and the fingerprint stays ssh-keygen's).
  if (!key.toBuffer('rfc4253').equals(blob)) refuse(`the ${type} key data is not in canonical form`);
  try {
    // OpenSSL's decoder checks what sshpk does not, e.g. that an ECDSA point lies on its curve.
    createPublicKey(key.toString('pkcs8'));
  } catch {
    refuse(`the ${type} key is not a valid public key`);
  }
  if (type === 'ssh-rsa' && key.size < RSA_MIN_BITS)
    refuse(`RSA keys must have at least ${RSA_MIN_BITS} bits; this one has ${key.size}`);
  if (type === 'ssh-rsa' && key.size > RSA_MAX_BITS)
    refuse(`RSA keys may have at most ${RSA_MAX_BITS} bits; this one has ${key.size}`);

  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  const cleanComment = comment?.trim().replace(/\s+/g, ' ');
  return { type, text: [type, base64, cleanComment].filter(Boolean).join(' '), fingerprint, bits: key.size };
}
