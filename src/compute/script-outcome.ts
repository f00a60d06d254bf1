// The first-boot script's outcome (script_url): what the guest reported (stage, exit status, the
// last lines of its output), stored on the server as JSON, and the state it puts the script in.

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

/** Where a server's script stands (the Server object's `info.script`, an extension, shows it). */
export interface ScriptState {
  /** pending: not reported yet; succeeded / failed: as reported; not_run: this driver runs no script. */
  state: 'pending' | 'succeeded' | 'failed' | 'not_run';
  /** What the guest reported; null until it has (always, when the driver runs no script). */
  outcome: StoredScriptOutcome | null;
}

/** The `server.script` event's view of an outcome (compute/script-reports.ts). */
export interface ScriptView {
  state: ScriptState['state'];
  /** fetch: the script could not be downloaded; run: it ran. Null until reported. */
  stage: 'fetch' | 'run' | null;
  exit_status: number | null;
  output: string | null;
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

// Shared, so a list of servers with scripts not yet reported allocates nothing for them.
const notRun: ScriptState = Object.freeze({ state: 'not_run', outcome: null });
const pending: ScriptState = Object.freeze({ state: 'pending', outcome: null });

/** Where a server's script stands: null without a script_url. */
export function scriptState(
  scriptUrl: string | null,
  stored: string | null,
  engineRunsScripts: boolean,
): ScriptState | null {
  if (!scriptUrl) return null;
  if (!engineRunsScripts) return notRun;
  const outcome = parseStoredOutcome(stored);
  if (!outcome) return pending;
  return { state: outcome.stage === 'run' && outcome.exitStatus === 0 ? 'succeeded' : 'failed', outcome };
}

/** The event's view of a server's script: null without a script_url. */
export function scriptView(
  scriptUrl: string | null,
  stored: string | null,
  engineRunsScripts: boolean,
): ScriptView | null {
  const script = scriptState(scriptUrl, stored, engineRunsScripts);
  if (!script) return null;
  const { outcome } = script;
  return {
    state: script.state,
    stage: outcome?.stage ?? null,
    exit_status: outcome?.exitStatus ?? null,
    output: outcome?.output ?? null,
  };
}
