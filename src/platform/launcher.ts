// `nubis dev --ready-json` is started by a program (a test fixture) and must end with it. Started
// through npx, it is the grandchild of that program: npx runs `sh -c nubis …`, and a signal sent to
// npx alone reaches at most the shell, which dies without passing it on (SIGTERM) or waits for its
// child (SIGINT), so the server would outlive everything that knew about it. The launcher chain —
// the wrappers (npm, npx, sh) up to the first process that is none of them — is noted at start and
// watched: once any of them is gone, or the server's own parent changes, the server stops as if
// it had been signalled itself.

import { readFileSync } from 'node:fs';

/** A process's parent and command line, from /proc (Linux); null where there is none. */
function processInfo(pid: number): { ppid: number; command: string } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const ppid = Number(/^PPid:\s+(\d+)$/m.exec(status)?.[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return Number.isInteger(ppid) ? { ppid, command } : null;
  } catch {
    return null;
  }
}

/** npm's and npx's own processes, and the shell npm runs a package's bin with. */
export function isWrapper(command: string): boolean {
  return /(^|\/)(npm|npx)(-cli\.js)?( |$)|npm-cli\.js|npx-cli\.js|^(\/bin\/|\/usr\/bin\/)?(sh|dash|bash) -c /.test(
    command,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Calls `onGone` once the process that launched this one (through any wrappers) is gone. */
export function watchLauncher(onGone: (reason: string) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const chain = [parent];
  for (let info = processInfo(parent); info && isWrapper(info.command) && info.ppid > 1; info = processInfo(info.ppid))
    chain.push(info.ppid);
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : chain.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(`the process that started it (${gone}) is gone`);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
