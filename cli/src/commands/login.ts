// `nubis login|logout`: store and forget a context (URL and tokens) in the config directory.

import type { Command } from 'commander';
import { NubisError, unwrap } from '@nubis/sdk';
import { CliError, clientOf, type CommandKit, exitCodes } from '../command-kit.ts';
import { readContexts, writeContexts } from '../context.ts';

export function addLoginCommands(program: Command, kit: CommandKit): void {
  const { leaf, done, globals, io } = kit;
  leaf(program, 'login', 'store a context (URL and token) in the config directory, mode 0600')
    .requiredOption('--url <url>', 'where Nubis listens, e.g. http://localhost:8080')
    .option('--token <token>', 'an account token (else --email and --password, or NUBIS_PASSWORD)')
    .option('--email <email>', "the account's e-mail, to log in with its password")
    .option('--password <password>', 'the password (or NUBIS_PASSWORD)')
    .option('--admin-token <token>', "the server's ADMIN_TOKEN, for nubis admin …")
    .option('--name <name>', 'the context name', 'default')
    .action(async (options, command: Command) => {
      const url = String(options.url).replace(/\/+$/, '');
      let token: string | undefined = options.token;
      const password = options.password ?? io.env.NUBIS_PASSWORD;
      if (!token && options.email) {
        if (!password) throw new CliError('--email needs --password (or NUBIS_PASSWORD)', exitCodes.usage);
        const answer = await unwrap(
          clientOf(url).POST('/v1.3/account/login', {
            body: { email: options.email, password },
          }),
        );
        token = answer.token;
      }
      if (!token && !options.adminToken)
        throw new CliError('give --token, --email with --password, or --admin-token', exitCodes.usage);
      let who = 'the operator';
      if (token) {
        // Login answers a token even for a wrong password (it opens nothing): check it.
        const account = await unwrap(clientOf(url, token).GET('/v1.3/account/info')).catch((error: unknown) => {
          if (error instanceof NubisError && error.status === 401)
            throw new CliError('wrong e-mail, password or token', exitCodes.auth);
          throw error;
        });
        who = account.email;
      }
      if (options.adminToken) await unwrap(clientOf(url, options.adminToken).GET('/admin/clock'));
      const file = readContexts(io.env);
      file.contexts[options.name] = {
        url,
        ...(token ? { token } : {}),
        ...(options.adminToken ? { admin_token: options.adminToken } : {}),
      };
      file.current = options.name;
      const path = writeContexts(file, io.env);
      done(
        command,
        { context: options.name, url, email: token ? who : null, file: path },
        `logged in to ${url} as ${who} (context ${options.name}, saved in ${path})`,
      );
    });

  leaf(program, 'logout', 'forget the current context (or --context)').action((_options, command: Command) => {
    const file = readContexts(io.env);
    const name = globals(command).context ?? file.current;
    if (!name || !file.contexts[name]) throw new CliError('no such context', exitCodes.notFound);
    delete file.contexts[name];
    if (file.current === name) file.current = Object.keys(file.contexts)[0] ?? null;
    writeContexts(file, io.env);
    done(command, { removed: name }, `forgot context ${name}`);
  });
}
