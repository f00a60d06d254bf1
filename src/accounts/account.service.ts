// Accounts: registration, login, activation, profile update, password reset and the
// Account object. Register, login, activate and reset answer the same way whether they
// worked or not, so their answers never tell whether an e-mail is registered.

import { randomBytes } from 'node:crypto';
import type { Actor, Platform } from '../platform/context.ts';
import { Invalid, Unauthorized } from '../platform/errors.ts';
import { newToken } from '../platform/secrets.ts';
import { kickMailDelivery, queueMail } from '../mail/mail.service.ts';
import { activationMail, emailChangedMail, temporaryPasswordMail } from './account-mail.ts';
import { invalidateActors, issueToken, tokenForLogin } from '../tokens/token.service.ts';
import { accountFinance, financeOfItems, type AccountFinance } from '../billing/ledger.ts';
import {
  type AccountChanges,
  accountRepository,
  type ShownAccountRow,
  type ShownActivity,
} from './account.repository.ts';
import { blockedPortsOf, type BlockedPorts } from './port-policy.ts';
import { serverRepository } from '../servers/server.repository.ts';
import type { AccountRow } from './account.table.ts';
import { effectivePermissions, requireNotBlocked } from './permissions.ts';
import { isCountryCode } from './countries.ts';
import { transaction } from '../db/transaction.ts';

export interface RegisterInput {
  email: string;
  password: string;
  firstname: string;
  lastname: string;
  accept_tos: boolean;
  country: string;
}

/** A register or login answer: the token and the instant of the attempt (clock ms). */
export interface AuthAnswer {
  token: string;
  at: number;
}

export interface UpdateInput {
  firstname?: string;
  lastname?: string;
  country?: string;
  dark_mode?: boolean;
  email?: string;
  password?: string;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Rules the schema cannot express; one problem per bad field. */
export function checkProfile(input: {
  email?: string;
  password?: string;
  firstname?: string;
  lastname?: string;
  country?: string;
}): void {
  const problems: { field: string; reason: string }[] = [];
  if (input.email !== undefined && (!emailPattern.test(input.email) || input.email.length > 254))
    problems.push({ field: 'email', reason: 'bad value: not an e-mail address' });
  if (input.password !== undefined && (input.password.length < 8 || input.password.length > 1024))
    problems.push({ field: 'password', reason: 'bad value: must be 8 to 1024 characters' });
  // Names take any value (the spec's "(any value)"): only the documented bound applies.
  for (const field of ['firstname', 'lastname'] as const)
    if ((input[field]?.length ?? 0) > 1000) problems.push({ field, reason: 'bad value: at most 1,000 characters' });
  if (input.country !== undefined && !isCountryCode(input.country))
    problems.push({ field: 'country', reason: 'bad value: must be a two-letter ISO 3166 country code' });
  if (problems.length) throw new Invalid(problems);
}

/**
 * A hash of a random password, per server key, to verify against when there is no real
 * hash (unknown e-mail, no temporary password): every login then spends the same scrypt
 * time whether or not the e-mail is registered.
 */
const decoys = new WeakMap<Platform['secrets'], Promise<string>>();
function decoyHash(ctx: Platform): Promise<string> {
  let decoy = decoys.get(ctx.secrets);
  if (!decoy) {
    // Never shown and made once per process: drawn outside ctx.random, so a seeded instance that
    // starts over (a reset) meets the same stream as at start.
    decoy = ctx.secrets.hashPassword(randomBytes(16).toString('hex'), randomBytes(16));
    decoys.set(ctx.secrets, decoy);
    // Refused (hashing at its cap): the next login makes it again.
    decoy.catch(() => decoys.delete(ctx.secrets));
  }
  return decoy;
}

export async function register(ctx: Platform, input: RegisterInput, ip: string): Promise<AuthAnswer> {
  checkProfile(input);
  const email = input.email.trim().toLowerCase();
  const passwordHash = await ctx.secrets.hashPassword(input.password);
  const now = ctx.clock.now();
  try {
    const token = await transaction(ctx, async (trx) => {
      const activationUuid = ctx.random.uuid();
      const account = await accountRepository.insert(trx, {
        uuid: ctx.random.uuid(),
        email,
        passwordHash,
        firstname: input.firstname,
        lastname: input.lastname,
        country: input.country.toUpperCase(),
        activated: ctx.config.autoActivate,
        activationDigest: activationDigest(ctx, activationUuid),
        serversLimit: ctx.config.serversLimit,
        createdAt: now,
      });
      await accountRepository.logActivity(trx, {
        accountId: account.id,
        email,
        action: 'register',
        status: 'success',
        ip,
        at: now,
      });
      await queueMail(ctx, trx, activationMail(email, input.firstname, consoleUrl(ctx), activationUuid));
      return (await issueToken(ctx, trx, account.id, 'register')).token;
    });
    kickMailDelivery(ctx);
    return { token, at: now };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Already registered: same status and shape, a token that opens nothing, and a trace on the real account.
    const existing = await accountRepository.findByEmail(ctx.db, email);
    await accountRepository.logActivity(ctx.db, {
      accountId: existing?.id ?? null,
      email,
      action: 'register',
      status: 'rejected',
      ip,
      at: now,
    });
    return { token: newToken(ctx.random), at: now };
  }
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string; errcode?: number };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(e?.message ?? '');
}

/** The web console's address for links in mail: PUBLIC_URL, or this machine at PORT. */
export function consoleUrl(ctx: Pick<Platform, 'config'>): string {
  return (ctx.config.publicUrl ?? `http://localhost:${ctx.config.port}`).replace(/\/+$/, '');
}

export async function login(ctx: Platform, email: string, password: string, ip: string): Promise<AuthAnswer> {
  const normalized = email.trim().toLowerCase();
  const now = ctx.clock.now();
  const account = await accountRepository.findByEmail(ctx.db, normalized);
  const decoy = await decoyHash(ctx);
  // Always two verifications (the password, then the temporary password or a decoy), so the
  // time taken says nothing about whether the e-mail exists or has a reset pending.
  const tempHash =
    account?.temp_password_hash && (account.temp_password_expires_at ?? 0) > now ? account.temp_password_hash : null;
  // One call, so both checks are admitted (or refused) together under the hashing cap.
  const [primary, temporary] = await ctx.secrets.verifyPasswords(password, [
    account?.password_hash ?? decoy,
    tempHash ?? decoy,
  ]);
  const ok = account !== undefined && (primary || (tempHash !== null && temporary));
  if (!account || !ok || account.blocked) {
    const status = account?.blocked && ok ? 'blocked' : 'failed';
    await accountRepository.logActivity(ctx.db, {
      accountId: account?.id ?? null,
      email: normalized,
      action: 'login',
      status,
      ip,
      at: now,
    });
    return { token: newToken(ctx.random), at: now };
  }
  const token = await transaction(ctx, async (trx) => {
    await accountRepository.update(trx, account.id, { lastLoginAt: now });
    await accountRepository.logActivity(trx, {
      accountId: account.id,
      email: normalized,
      action: 'login',
      status: 'success',
      ip,
      at: now,
    });
    return tokenForLogin(ctx, trx, account.id);
  });
  return { token, at: now };
}

/**
 * The stored form of an activation uuid: a keyed digest, so a database dump activates nothing.
 * (Accounts registered before keep the plain uuid, which activation still finds.)
 */
function activationDigest(ctx: Platform, activationUuid: string): string {
  return ctx.secrets.tokenDigest(`activation ${activationUuid.toLowerCase()}`);
}

export async function activate(ctx: Platform, activationUuid: string): Promise<void> {
  const account =
    (await accountRepository.findByActivationUuid(ctx.db, activationDigest(ctx, activationUuid))) ??
    (await accountRepository.findByActivationUuid(ctx.db, activationUuid));
  if (account && !account.activated) {
    await accountRepository.update(ctx.db, account.id, { activated: true, updatedAt: ctx.clock.now() });
    await invalidateActors(ctx, account.id);
  }
}

export async function resetPassword(ctx: Platform, email: string): Promise<void> {
  // The temporary password is made and hashed before the look-up, so an unknown e-mail takes as long.
  const temporary = ctx.random.bytes(12).toString('base64url');
  const hash = await ctx.secrets.hashPassword(temporary);
  const account = await accountRepository.findByEmail(ctx.db, email.trim());
  if (!account || account.blocked) return;
  const now = ctx.clock.now();
  const expires = now + ctx.config.tempPasswordTtlSeconds * 1000;
  await transaction(ctx, async (trx) => {
    await accountRepository.update(trx, account.id, { tempPassword: { hash, expiresAt: expires }, updatedAt: now });
    await queueMail(ctx, trx, temporaryPasswordMail(account.email, account.firstname, temporary, expires));
  });
  kickMailDelivery(ctx);
}

/**
 * The token's account went away after the token was checked (the operator's reset or state load
 * while the request was in flight): the token names no account now, which is a 401 like any
 * unknown token (account/info and account/update document no 404).
 */
function accountGone(): Unauthorized {
  return new Unauthorized('the token names no account: it was removed');
}

export async function updateAccount(ctx: Platform, actor: Actor, input: UpdateInput): Promise<void> {
  requireNotBlocked(actor);
  checkProfile(input);
  const now = ctx.clock.now();
  // The spec: lastlogin is the "timestamp of last modification (described as last modified)".
  const changes: AccountChanges = { updatedAt: now, lastLoginAt: now };
  if (input.firstname !== undefined) changes.firstname = input.firstname;
  if (input.lastname !== undefined) changes.lastname = input.lastname;
  if (input.country !== undefined) changes.country = input.country.toUpperCase();
  if (input.dark_mode !== undefined) changes.darkMode = input.dark_mode;
  if (input.email !== undefined) changes.email = input.email.trim().toLowerCase();
  if (input.password !== undefined) {
    changes.passwordHash = await ctx.secrets.hashPassword(input.password);
    // A new password ends a pending reset: the temporary password stops working.
    changes.tempPassword = null;
  }
  let mailed = false;
  try {
    await transaction(ctx, async (trx) => {
      const before = await accountRepository.findById(trx, actor.accountId);
      if (!before) throw accountGone();
      await accountRepository.update(trx, actor.accountId, changes);
      if (changes.email !== undefined && changes.email !== before.email) {
        await queueMail(ctx, trx, emailChangedMail(before.email, before.firstname, changes.email));
        mailed = true;
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Invalid('email', 'bad value: this e-mail address is already in use');
    throw error;
  }
  if (mailed) kickMailDelivery(ctx);
}

/**
 * An account as account/info and the operator see it: its stored values and the figures derived
 * at `at` (the API layers shape it: api/v1_3 accountObject, api/v1 toLegacyAccount).
 */
export interface AccountInfo {
  account: ShownAccountRow;
  /** Balance (micro-dollars), hourly burn and when the balance runs out, at `at`. */
  finance: AccountFinance;
  /** Its servers running at `at`. */
  running: number;
  /** The newest register and login attempts, newest first. */
  activity: ShownActivity[];
  permissions: Readonly<Record<string, boolean>>;
  blockedPorts: BlockedPorts;
  /** When the figures were derived (clock ms). */
  at: number;
}

export async function accountInfo(ctx: Platform, actor: Actor): Promise<AccountInfo> {
  const now = ctx.clock.now();
  const found = await accountRepository.findForInfo(ctx.db, actor.accountId, now);
  if (!found) throw accountGone();
  const { account } = found;
  return {
    account,
    finance: financeOfItems(Number(account.settled_micros), found.items, now),
    running: found.running,
    activity: found.activity,
    permissions: effectivePermissions(account.permissions),
    blockedPorts: blockedPortsOf({ TCP: ctx.config.blockedPortsTcp, UDP: ctx.config.blockedPortsUdp }, account),
    at: now,
  };
}

/** The account as account/info shows it, with every figure derived now. */
export async function describeAccount(ctx: Platform, account: AccountRow): Promise<AccountInfo> {
  const now = ctx.clock.now();
  const [finance, running, activity] = await Promise.all([
    accountFinance(ctx, ctx.db, account.id),
    serverRepository.countRunning(ctx.db, account.id, now),
    accountRepository.recentActivity(ctx.db, account.id),
  ]);
  return {
    account,
    finance,
    running,
    activity,
    permissions: effectivePermissions(account.permissions),
    blockedPorts: blockedPortsOf({ TCP: ctx.config.blockedPortsTcp, UDP: ctx.config.blockedPortsUdp }, account),
    at: now,
  };
}
