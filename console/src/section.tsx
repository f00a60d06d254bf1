// A titled part of a page (a card): its heading names the region for assistive technology.

import type { ComponentChildren } from 'preact';

export function Section(props: { title: string; children: ComponentChildren; class?: string }) {
  const id = `s-${props.title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section class={props.class ? `card ${props.class}` : 'card'} aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
