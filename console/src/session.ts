// Where the console keeps its tokens: sessionStorage (gone when the tab closes, never sent
// to anyone by the browser on its own), or memory when storage is unavailable. Never a cookie.

type Listener = () => void;

const memory = new Map<string, string>();
const listeners = new Set<Listener>();
let notice: string | null = null;

function read(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    if (value === null) memory.delete(key);
    else memory.set(key, value);
  }
  for (const listener of listeners) listener();
}

export const session = {
  token: () => read('nubis.token'),
  operator: () => read('nubis.operator'),
  signIn: (token: string) => write('nubis.token', token),
  signOut: () => write('nubis.token', null),
  operatorIn: (token: string) => write('nubis.operator', token),
  operatorOut: () => write('nubis.operator', null),
  /** A 401 on the account's own token: it was removed or expired; ask for a new login. */
  expired: () => {
    notice = 'Your session ended; log in again.';
    write('nubis.token', null);
  },
  /** A message for the login page, read once. */
  takeNotice: () => {
    const text = notice;
    notice = null;
    return text;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
