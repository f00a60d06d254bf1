// Routing on the URL's hash: the console's paths never reach the server (`#/servers/<uuid>`).

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function currentPath(): string {
  return location.hash.replace(/^#/, '') || '/';
}

export function navigate(path: string): void {
  if (currentPath() !== path) location.hash = path;
}

/** The address becomes `path` in place: no history entry, no hashchange, the caller renders it now. */
export function redirect(path: string): void {
  if (currentPath() !== path) history.replaceState(history.state, '', `#${path}`);
}

/** Paths of the signed-out pages: a signed-in tab on one of them is sent to the servers. */
export function isAuthPath(path: string): boolean {
  const first = path.split('/').filter(Boolean)[0];
  return first === undefined || first === 'login' || first === 'signup' || first === 'reset';
}

/** The path now; every hashchange renders again (even to a path a redirect had already left). */
export function useRoute(): string {
  const [, setChanges] = useState(0);
  useEffect(() => {
    const onChange = () => setChanges((n) => n + 1);
    addEventListener('hashchange', onChange);
    // A hashchange between the first render and this subscription would otherwise be lost.
    onChange();
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return currentPath();
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={`#${props.to}`} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
