// v1.3 account management: info, register, login, activate, update, reset.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf, asBuilt } from '../../http/api-app.ts';
import {
  accountInfo,
  activate,
  type AccountInfo,
  type AuthAnswer as DomainAuthAnswer,
  login,
  register,
  resetPassword,
  updateAccount,
} from '../../accounts/account.service.ts';
import { isoOrNull, isoSeconds, lastInstantMs } from '../../platform/clock.ts';
import { toCents, toDollars } from '../../platform/money.ts';
import { accepted } from './format.ts';
import { Account, authErrors, responses, SuccessObject, Timestamp } from './schemas.ts';

const AuthAnswer = Type.Object({ token: Type.String(), timestamp: Timestamp });

function authAnswer(answer: DomainAuthAnswer): Static<typeof AuthAnswer> {
  return { token: answer.token, timestamp: isoSeconds(answer.at) };
}

/** The spec's Account object (also the operator's, with `blocked`: api/admin). */
export function accountObject(info: AccountInfo): Static<typeof Account> {
  const { account, finance, at } = info;
  // Seconds until the balance reaches zero at the current hourly burn; null when nothing is billed.
  // A balance that lasts past the last timestamp the API can write (a large credit over a tiny
  // burn) never runs out in any date it can show: both fields are null then too.
  const secondsDue = finance.secondsDue;
  const dueAt = secondsDue === null ? null : at + secondsDue * 1000;
  const writableDue = dueAt !== null && dueAt <= lastInstantMs;
  return {
    id: account.id,
    uuid: account.uuid,
    email: account.email,
    profile: {
      firstname: account.firstname,
      lastname: account.lastname,
      country: account.country,
      dark_mode: account.dark_mode === 1,
    },
    account_type: account.account_type,
    balance: toCents(finance.balanceMicros),
    activated: account.activated === 1,
    smtp: account.smtp === 1,
    referrals: { count: account.referrals_count, amount: toCents(account.referrals_amount_micros) },
    servers: { limit: account.servers_limit, running: info.running },
    registerdate: isoSeconds(account.created_at),
    lastlogin: isoOrNull(account.last_login_at),
    billing: {
      secondsdue: writableDue ? secondsDue : null,
      duedate: writableDue ? isoSeconds(dueAt) : null,
      usage: toDollars(finance.burnMicrosPerHour),
    },
    permissions: info.permissions,
    blocked_ports: info.blockedPorts,
    activity: info.activity.map((entry) => ({
      ip_address: entry.ip_address,
      timestamp: isoSeconds(entry.created_at),
      status: `${entry.action} ${entry.status}`,
    })),
  };
}

const tags = ['v1.3 account'];
const Email = Type.String({
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
  description: 'an e-mail address',
});
const Password = Type.String({ minLength: 8, maxLength: 1024, description: '8 to 1024 characters' });
const Country = Type.String({ format: 'country-code', description: 'a two-letter ISO 3166 country code' });
// The spec: "Register requires firstname and lastname to be set (any value)": present, any text
// (blank too), up to a generous bound.
const PersonName = Type.String({
  maxLength: 1000,
  description: 'any value (blank included), at most 1,000 characters',
});

export function accountRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/account/info',
    config: { access: 'account', rateLimits: ['accountInfo'] },
    schema: {
      operationId: 'getAccount',
      summary: 'Show the account',
      description:
        "The Account object of the token's account: profile, balance, limits, billing outlook, permissions and recent activity.",
      tags,
      response: responses({ 200: Account }, [401, 403, 429]),
    },
    serializerCompiler: asBuilt,
    handler: async (request) => accountObject(await accountInfo(ctx, actorOf(request))),
  });

  app.route({
    method: 'POST',
    url: '/account/register',
    config: { access: 'public', rateLimits: ['register'] },
    schema: {
      operationId: 'registerAccount',
      summary: 'Register an account',
      description:
        'Creates an account and answers a token; an activation uuid is mailed. Always 201: the status never tells whether the e-mail was free (a taken e-mail gets a mail instead). Public: no token needed.',
      tags,
      body: Type.Object({
        email: Email,
        password: Password,
        firstname: PersonName,
        lastname: PersonName,
        accept_tos: Type.Literal(true, { description: 'must be true' }),
        country: Country,
      }),
      response: responses({ 201: AuthAnswer }, [400, 429]),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return authAnswer(await register(ctx, request.body, request.ip));
    },
  });

  app.route({
    method: 'POST',
    url: '/account/login',
    config: { access: 'public', rateLimits: ['loginAddress', 'login'] },
    schema: {
      operationId: 'login',
      summary: 'Log in',
      description:
        "Answers the account's newest token, creating one when it has none. Always 200 for well-formed input, so the answer never tells whether the e-mail exists. Public: no token needed.",
      tags,
      body: Type.Object({ email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 1024 }) }),
      response: responses({ 200: AuthAnswer }, [400, 429]),
    },
    handler: async (request) => authAnswer(await login(ctx, request.body.email, request.body.password, request.ip)),
  });

  app.route({
    method: 'PUT',
    url: '/account/activate',
    config: { access: 'public', rateLimits: ['activate'] },
    schema: {
      operationId: 'activateAccount',
      summary: 'Activate an account',
      description:
        'Activates the account with the activation uuid from the registration mail. Always 202, whether or not the uuid matched. Public: no token needed.',
      tags,
      body: Type.Object({ uuid: Type.String({ maxLength: 64 }) }),
      response: responses({ 202: SuccessObject }, [400, 429]),
    },
    handler: async (request, reply) => {
      await activate(ctx, request.body.uuid);
      return accepted(reply);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/account/update',
    config: { access: 'account', rateLimits: ['accountUpdate'] },
    schema: {
      operationId: 'updateAccount',
      summary: 'Update the account',
      description: "Changes profile fields, the e-mail or the password of the token's account.",
      tags,
      body: Type.Object({
        firstname: Type.Optional(PersonName),
        lastname: Type.Optional(PersonName),
        country: Type.Optional(Country),
        // No schema default: an update that leaves dark_mode out must not reset it (new accounts start with true).
        dark_mode: Type.Optional(Type.Boolean()),
        email: Type.Optional(Email),
        password: Type.Optional(Password),
      }),
      response: responses({ 202: SuccessObject }, authErrors),
    },
    handler: async (request, reply) => {
      await updateAccount(ctx, actorOf(request), request.body);
      return accepted(reply);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/account/reset',
    config: { access: 'public', rateLimits: ['reset'] },
    schema: {
      operationId: 'resetPassword',
      summary: 'Mail a temporary password',
      description:
        'Mails a temporary password that works beside the current one. Always 202, whether or not the e-mail is registered. Public: no token needed.',
      tags,
      body: Type.Object({ email: Type.String({ maxLength: 254 }) }),
      response: responses({ 202: SuccessObject }, [400, 429]),
    },
    handler: async (request, reply) => {
      await resetPassword(ctx, request.body.email);
      return accepted(reply);
    },
  });
}
