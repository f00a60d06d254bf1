// The first-boot script's outcome (script_url): what the guest reported (stage, exit status, the
// last lines of its output), stored on the server as JSON, and how the API shows it.

import { isoSeconds } from '../platform/clock.ts';

/** What the guest wrote when the script ended: it could not be fetched, or it ran and exited. */
export interface ScriptReport {
  stage: 'fetch' | 'run';
  exitStatus: number;
  /** The last lines of its output (stdout and stderr together), at most SCRIPT_OUTPUT_LIMIT characters. */
  output: string;
}

export interface StoredScriptOutcome extends ScriptReport {
  /** Clock ms when Nubis read the report from the engine. */
  reportedAt: number;
}

/** Lines and characters of the output kept: the end of it, where a failure says why. */
export const SCRIPT_OUTPUT_LINES = 20;
export const SCRIPT_OUTPUT_LIMIT = 4000;

/** The API's view (Server object `info.script`, an extension). */
export interface ScriptView {
  /** pending: not reported yet; succeeded / failed: as reported; not_run: this driver runs no script. */
  state: 'pending' | 'succeeded' | 'failed' | 'not_run';
  /** fetch: the script could not be downloaded; run: it ran. Null until reported. */
  stage: 'fetch' | 'run' | null;
  exit_status: number | null;
  output: string | null;
  reported: string | null;
}

/** The last lines of a script's output, bounded. */
export function outputTail(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const tail = lines.slice(-SCRIPT_OUTPUT_LINES).join('\n');
  return tail.length > SCRIPT_OUTPUT_LIMIT ? tail.slice(-SCRIPT_OUTPUT_LIMIT) : tail;
}

/** Reads the guest's status file (`stage=run` and `exit=0` lines); null when it is not one. */
export function parseScriptStatus(status: string, output: string): ScriptReport | null {
  const fields = Object.fromEntries(
    status
      .split('\n')
      .map((line) => line.trim().split('='))
      .filter((pair) => pair.length === 2),
  ) as Record<string, string>;
  const exitStatus = Number(fields.exit);
  if (!Number.isInteger(exitStatus) || (fields.stage !== 'fetch' && fields.stage !== 'run')) return null;
  return { stage: fields.stage, exitStatus, output: outputTail(output) };
}

export function parseStoredOutcome(stored: string | null): StoredScriptOutcome | null {
  if (!stored) return null;
  try {
    return JSON.parse(stored) as StoredScriptOutcome;
  } catch {
    return null;
  }
}

/** The view of a server's script: null without a script_url. */
export function scriptView(
  scriptUrl: string | null,
  stored: string | null,
  engineRunsScripts: boolean,
): ScriptView | null {
  if (!scriptUrl) return null;
  if (!engineRunsScripts) return { state: 'not_run', stage: null, exit_status: null, output: null, reported: null };
  const outcome = parseStoredOutcome(stored);
  if (!outcome) return { state: 'pending', stage: null, exit_status: null, output: null, reported: null };
  return {
    state: outcome.stage === 'run' && outcome.exitStatus === 0 ? 'succeeded' : 'failed',
    stage: outcome.stage,
    exit_status: outcome.exitStatus,
    output: outcome.output,
    reported: isoSeconds(outcome.reportedAt),
  };
}
