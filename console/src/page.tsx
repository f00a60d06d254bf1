// A page: its title (also the document's), its heading, which takes the focus, and its actions.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Page(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Nubis`;
  }, [props.title]);
  // A new page takes the focus to its heading, so keyboard and screen-reader users start at
  // the top of what changed rather than on the link that led there.
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions && <div class="row">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}
