// Legacy v1 account: info in the legacy field names, and createkey (a new token of the account).

import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { accountInfo } from '../../accounts/account.service.ts';
import { createToken } from '../../tokens/token.service.ts';
import { envelope } from './format.ts';
import { authErrors, responses, StatusEnvelope, tags } from './schemas.ts';
import { LegacyAccount, toLegacyAccount } from './shapes.ts';

/** The name a key from createkey carries in /v1.3/account/token_list. */
const keyName = 'API key (v1 createkey)';

export function accountRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    // The same per-token budget as /v1.3/account/info: one account, one budget, whichever version asks.
    method: 'GET',
    url: '/account/info',
    config: { access: 'account', rateLimits: ['accountInfo'] },
    schema: {
      operationId: 'legacyGetAccount',
      summary: 'Show the account (legacy)',
      description: 'Account info in the legacy field names.',
      tags,
      response: responses({ 200: LegacyAccount }, authErrors),
    },
    handler: async (request) => toLegacyAccount(await accountInfo(ctx, actorOf(request))),
  });

  app.route({
    method: 'GET',
    url: '/account/createkey',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyCreateApiKey',
      summary: 'Create an API key (legacy)',
      description:
        'Creates an API key: the message is the key, a bare word. It is a token of the account (listed by /v1.3/account/token_list) and works on both versions.',
      tags,
      response: responses({ 200: StatusEnvelope }, [401, 403, 429]),
    },
    handler: async (request) => envelope((await createToken(ctx, actorOf(request), keyName)).token, 200),
  });
}
