// Contexts: where a Nubis is and which token to use, stored by `nubis login` in the user's
// config directory ($XDG_CONFIG_HOME/nubis or ~/.config/nubis), file mode 0600 because it
// holds tokens. NUBIS_URL / NUBIS_TOKEN / ADMIN_TOKEN in the environment win over the file.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Context {
  url: string;
  token?: string;
  /** The operator's ADMIN_TOKEN, for `nubis admin …`. */
  admin_token?: string;
}

export interface ContextFile {
  current: string | null;
  contexts: Record<string, Context>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'nubis');
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'config.json');
}

export function readContexts(env: NodeJS.ProcessEnv = process.env): ContextFile {
  try {
    const parsed = JSON.parse(readFileSync(configFile(env), 'utf8')) as Partial<ContextFile>;
    return { current: parsed.current ?? null, contexts: parsed.contexts ?? {} };
  } catch {
    return { current: null, contexts: {} };
  }
}

export function writeContexts(file: ContextFile, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = configFile(env);
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** The context a command uses: `--context`, else the current one, with the environment's overrides. */
export function activeContext(name: string | undefined, env: NodeJS.ProcessEnv = process.env): Context | null {
  const file = readContexts(env);
  const stored = file.contexts[name ?? file.current ?? ''] ?? null;
  if (name && !stored) return null;
  const url = env.NUBIS_URL || stored?.url;
  if (!url) return null;
  return {
    url,
    token: env.NUBIS_TOKEN || stored?.token,
    admin_token: env.ADMIN_TOKEN || stored?.admin_token,
  };
}
