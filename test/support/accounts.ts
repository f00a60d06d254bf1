// Fixtures that act as a user would: register, read the activation mail, activate, get credit.

import { randomBytes } from 'node:crypto';
import type { TestInstance } from './instance.ts';

export interface TestAccount {
  email: string;
  password: string;
  token: string;
  id: number;
  uuid: string;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

export async function activationUuidFromMail(nubis: TestInstance, email: string): Promise<string> {
  const outbox = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(email)}`);
  const mail = outbox.body.messages.find((m: { subject: string }) => /activate/i.test(m.subject));
  const match = /Activation uuid: ([0-9a-f-]{36})/.exec(mail?.text ?? '');
  if (!match) throw new Error(`no activation mail for ${email}`);
  return match[1]!;
}

/** A registered account; activated and credited unless told otherwise. */
export async function createAccount(
  nubis: TestInstance,
  options: { activate?: boolean; credit?: string | number; email?: string } = {},
): Promise<TestAccount> {
  const email = options.email ?? uniqueEmail();
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const registered = await nubis.request('POST', '/v1.3/account/register', {
    body: { email, password, firstname: 'Test', lastname: 'User', accept_tos: true, country: 'NL' },
  });
  if (registered.status !== 201)
    throw new Error(`register failed: ${registered.status} ${JSON.stringify(registered.body)}`);
  const token = registered.body.token as string;
  if (options.activate !== false) {
    const uuid = await activationUuidFromMail(nubis, email);
    const activated = await nubis.request('PUT', '/v1.3/account/activate', { body: { uuid } });
    if (activated.status !== 202) throw new Error(`activate failed: ${activated.status}`);
  }
  const info = await nubis.request('GET', '/v1.3/account/info', { token });
  if (info.status !== 200) throw new Error(`account info failed: ${info.status} ${JSON.stringify(info.body)}`);
  const credit = options.credit ?? (options.activate === false ? 0 : 100);
  if (Number(credit) !== 0) {
    const credited = await nubis.admin('POST', `/admin/accounts/${info.body.id}/credit`, {
      amount: credit,
      note: 'test credit',
    });
    if (credited.status !== 201) throw new Error(`credit failed: ${credited.status} ${JSON.stringify(credited.body)}`);
  }
  return { email, password, token, id: info.body.id, uuid: info.body.uuid };
}

/** The register body of a fresh account; override any field. */
export function registerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email: uniqueEmail(),
    password: `pw-${randomBytes(8).toString('hex')}`,
    firstname: 'Test',
    lastname: 'User',
    accept_tos: true,
    country: 'NL',
    ...overrides,
  };
}

/** Logs in and answers the token (login always answers 200; a failed login's token opens nothing). */
export async function login(nubis: TestInstance, email: string, password: string): Promise<string> {
  const result = await nubis.request('POST', '/v1.3/account/login', { body: { email, password } });
  if (result.status !== 200) throw new Error(`login answered ${result.status} ${JSON.stringify(result.body)}`);
  return result.body.token as string;
}

/** True when the token authenticates (account/info answers 200). */
export async function tokenWorks(nubis: TestInstance, token: string): Promise<boolean> {
  const result = await nubis.request('GET', '/v1.3/account/info', { token });
  if (result.status !== 200 && result.status !== 401) throw new Error(`account/info answered ${result.status}`);
  return result.status === 200;
}

/** The mails sent to an address, newest first. */
export async function mailsTo(
  nubis: TestInstance,
  email: string,
): Promise<
  {
    id: number;
    to: string;
    subject: string;
    text: string;
    created: string;
    delivered: boolean;
    attempts: number;
    last_error: string | null;
  }[]
> {
  const outbox = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(email)}`);
  if (outbox.status !== 200) throw new Error(`outbox answered ${outbox.status}`);
  return outbox.body.messages;
}

/** The temporary password of the newest reset mail to an address. */
export async function tempPasswordFromMail(nubis: TestInstance, email: string): Promise<string> {
  const mail = (await mailsTo(nubis, email)).find((m) => /temporary/i.test(m.subject));
  const match = /^Temporary password: (\S+)$/m.exec(mail?.text ?? '');
  if (!match) throw new Error(`no reset mail for ${email}`);
  return match[1]!;
}
