// `nubis context`: list the stored contexts and choose the current one.

import type { Command } from 'commander';
import { CliError, type CommandKit, exitCodes } from '../command-kit.ts';
import { readContexts, writeContexts } from '../context.ts';

export function addContextCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, printRows, done, io } = kit;
  const contexts = group(program, 'context', 'stored contexts');
  leaf(contexts, 'list', 'list the stored contexts').action((_options, command: Command) => {
    const file = readContexts(io.env);
    const rows = Object.entries(file.contexts).map(([name, entry]) => ({
      current: name === file.current ? '*' : '',
      name,
      url: entry.url,
      token: entry.token ? 'yes' : 'no',
      operator: entry.admin_token ? 'yes' : 'no',
    }));
    printRows(command, { current: file.current, contexts: rows.map(({ current: _c, ...row }) => row) }, rows, [
      { header: '', value: 'current' },
      { header: 'NAME', value: 'name' },
      { header: 'URL', value: 'url' },
      { header: 'TOKEN', value: 'token' },
      { header: 'OPERATOR', value: 'operator' },
    ]);
  });
  leaf(contexts, 'use <name>', 'make a stored context the current one').action(
    (name: string, _options, command: Command) => {
      const file = readContexts(io.env);
      if (!file.contexts[name]) throw new CliError(`no context named ${name}`, exitCodes.notFound);
      file.current = name;
      writeContexts(file, io.env);
      done(command, { current: name }, `now using context ${name}`);
    },
  );
}
