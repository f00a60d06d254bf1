// The operator API (not in the spec): accounts, credits, the mail outbox, the clock and a
// full reset. Enabled only when ADMIN_TOKEN is set.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { advanceClock } from '../../sweeps/catch-up.ts';
import {
  clockState,
  accountTransactions,
  creditAccount,
  findAccounts,
  type OperatorAccount,
  patchAccount,
  showAccount,
} from '../../accounts/operator.service.ts';
import { listOutbox, type OutboxMessage as DomainOutboxMessage } from '../../mail/mail.service.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { resetState } from '../../state/reset.service.ts';
import { Account, responses, Timestamp, PageMeta } from '../v1_3/schemas.ts';
import { transactionObject } from '../v1_3/billing.routes.ts';
import type { Transaction } from '../../billing/transaction.service.ts';
import { accountObject } from '../v1_3/account.routes.ts';
import { adminErrors, tags } from './format.ts';

/** The v1.3 Account object plus what only the operator sees. */
const AdminAccount = Type.Object(
  { ...Account.properties, blocked: Type.Boolean() },
  { $id: 'AdminAccount', description: 'the Account object plus what only the operator sees' },
);

function adminAccountObject(account: OperatorAccount): Static<typeof AdminAccount> {
  return { ...accountObject(account), blocked: account.blocked };
}
const OutboxMessage = Type.Object({
  id: Type.Integer(),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  created: Timestamp,
  delivered: Type.Boolean({ description: 'delivered over SMTP (always false without SMTP_URL)' }),
  attempts: Type.Integer({ description: 'SMTP delivery attempts so far' }),
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'why the last SMTP attempt failed',
  }),
  attachment: Type.Union([Type.String(), Type.Null()], {
    description: 'the file name of the invoice document sent with it, or null',
  }),
});

function outboxMessageObject(message: DomainOutboxMessage): Static<typeof OutboxMessage> {
  return {
    id: message.id,
    to: message.to,
    subject: message.subject,
    text: message.text,
    created: isoSeconds(message.createdAt),
    delivered: message.delivered,
    attempts: message.attempts,
    last_error: message.lastError,
    attachment: message.attachment,
  };
}

const AccountRef = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 254, description: 'id, uuid or e-mail' }),
});
export const AdminTransaction = Type.Object(
  {
    id: Type.String(),
    ptype: Type.String(),
    pstatus: Type.String(),
    amount: Type.Number(),
    fee: Type.Number(),
    taxrate: Type.Number(),
    note: Type.Union([Type.String(), Type.Null()]),
    reference: Type.Union([Type.String(), Type.Null()]),
    ts_created: Timestamp,
    ts_last_changed: Timestamp,
  },
  { $id: 'AdminTransaction', description: 'a transaction with its operator note' },
);

/** A transaction as the operator sees it: the v1.3 object and its note. */
export function adminTransactionObject(transaction: Transaction): Static<typeof AdminTransaction> {
  return { ...transactionObject(transaction), note: transaction.note };
}

export function operatorRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/accounts',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListAccounts',
      summary: 'List accounts',
      description: 'Accounts (the first 1000 by id), or the one with this e-mail.',
      tags,
      querystring: Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) }),
      response: responses({ 200: Type.Object({ accounts: Type.Array(AdminAccount) }) }, adminErrors),
    },
    handler: async (request) => ({ accounts: (await findAccounts(ctx, request.query.email)).map(adminAccountObject) }),
  });

  app.route({
    method: 'GET',
    url: '/accounts/:account',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminGetAccount',
      summary: 'Show an account',
      description: 'One account by id, uuid or e-mail, as the list shows it (404 when none matches).',
      params: AccountRef,
      response: responses({ 200: AdminAccount }, adminErrors),
    },
    handler: async (request) => adminAccountObject(await showAccount(ctx, request.params.account)),
  });

  app.route({
    method: 'PATCH',
    url: '/accounts/:account',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminUpdateAccount',
      summary: 'Update an account',
      description:
        "Changes an account's flags, server limit, blocked ports or permissions; answers the account. Its running servers follow a change of `smtp` or `blocked_ports` within one reconciliation (real driver).",
      tags,
      params: AccountRef,
      body: Type.Object({
        activated: Type.Optional(Type.Boolean()),
        servers_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
        smtp: Type.Optional(Type.Boolean({ description: 'true lifts TCP 25, 465 and 587 from blocked_ports' })),
        blocked_ports: Type.Optional(
          Type.Union(
            [
              Type.Object({
                TCP: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { maxItems: 100 }),
                UDP: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { maxItems: 100 }),
              }),
              Type.Null(),
            ],
            {
              description:
                "the account's own blocked ports (its servers' egress to them is dropped); null: the deployment's default (BLOCKED_PORTS_TCP, BLOCKED_PORTS_UDP)",
            },
          ),
        ),
        blocked: Type.Optional(Type.Boolean()),
        permissions: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
      }),
      response: responses({ 200: AdminAccount }, adminErrors),
    },
    handler: async (request) => adminAccountObject(await patchAccount(ctx, request.params.account, request.body)),
  });

  app.route({
    method: 'POST',
    url: '/accounts/:account/credit',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminCreditAccount',
      summary: 'Credit an account',
      description: "Adds money (a negative amount debits); it appears in the account's transaction list.",
      tags,
      params: AccountRef,
      body: Type.Object({
        // A balance stays within a billion dollars either way (platform/money.ts).
        amount: Type.Union([Type.Number({ minimum: -2e9, maximum: 2e9 }), Type.String({ maxLength: 32 })], {
          description: 'USD, up to 6 decimals',
        }),
        note: Type.Optional(Type.String({ maxLength: 500 })),
      }),
      response: responses({ 201: AdminTransaction }, adminErrors),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return adminTransactionObject(
        await creditAccount(ctx, request.params.account, request.body.amount, request.body.note),
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/accounts/:account/transactions',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListAccountTransactions',
      summary: "List an account's transactions",
      description:
        "The account's 100 newest transactions, newest first, with the operator's notes; `meta.total` counts all.",
      tags,
      params: AccountRef,
      response: responses(
        {
          200: Type.Object({
            transactions: Type.Array(AdminTransaction),
            meta: PageMeta,
          }),
        },
        adminErrors,
      ),
    },
    handler: async (request) => {
      const { transactions, meta } = await accountTransactions(ctx, request.params.account);
      return { transactions: transactions.map(adminTransactionObject), meta };
    },
  });

  app.route({
    method: 'GET',
    url: '/outbox',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListOutbox',
      summary: 'List sent mail',
      description: 'Every mail the server sent, newest first (at most 1000), optionally only those to one address.',
      tags,
      querystring: Type.Object({ to: Type.Optional(Type.String({ maxLength: 254 })) }),
      response: responses(
        {
          200: Type.Object({
            messages: Type.Array(OutboxMessage),
          }),
        },
        adminErrors,
      ),
    },
    handler: async (request) => ({ messages: (await listOutbox(ctx, request.query.to)).map(outboxMessageObject) }),
  });

  app.route({
    method: 'GET',
    url: '/clock',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminGetClock',
      summary: 'Show the clock',
      description: "The server's clock: every timestamp it writes comes from it.",
      tags,
      response: responses(
        { 200: Type.Object({ now: Timestamp, mode: Type.String({ enum: ['system', 'virtual'] }) }) },
        adminErrors,
      ),
    },
    handler: async () => {
      const { now, mode } = clockState(ctx);
      return { now: isoSeconds(now), mode };
    },
  });

  app.route({
    method: 'POST',
    url: '/clock/advance',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminAdvanceClock',
      summary: 'Advance the virtual clock',
      description: 'Moves the virtual clock forward; there is no way back. 409 unless CLOCK=virtual.',
      tags,
      body: Type.Object(
        {
          seconds: Type.Number({
            minimum: 0,
            maximum: 10 * 365 * 86400,
            description:
              'how far to move the clock, at most ten years and never past 9999-12-31T23:59:59Z (400); it never moves back',
            examples: [3600],
          }),
        },
        { examples: [{ seconds: 3600 }] },
      ),
      response: responses({ 200: Type.Object({ now: Timestamp }) }, [...adminErrors, 409]),
    },
    handler: async (request) => ({ now: isoSeconds((await advanceClock(ctx, request.body.seconds)).now) }),
  });

  app.route({
    method: 'POST',
    url: '/reset',
    config: { access: 'emulator' },
    schema: {
      operationId: 'adminReset',
      summary: 'Delete every account',
      description:
        'Deletes every account and resource; the catalog and the clock stay. With NUBIS_SEED the instance starts over as at start: ids from 1, the clock and every generated value from the seed again, the emulator account made again.',
      tags,
      response: responses({ 200: Type.Object({ reset: Type.Boolean() }) }, adminErrors),
    },
    handler: async () => {
      await resetState(ctx);
      return { reset: true };
    },
  });
}
