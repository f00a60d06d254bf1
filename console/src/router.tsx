// Routing on the URL's hash: the console's paths never reach the server (`#/servers/<uuid>`).

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function currentPath(): string {
  return location.hash.replace(/^#/, '') || '/';
}

export function navigate(path: string): void {
  if (currentPath() !== path) location.hash = path;
}

export function useRoute(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={`#${props.to}`} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
