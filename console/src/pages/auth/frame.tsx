// The frame of the signed-out pages (a card with the brand and the page's title), and the
// address a sign-up or reset was made for, which the next page says back.

import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

export function AuthFrame(props: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Nubis`;
  }, [props.title]);
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Nubis</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}

/** The e-mail address last signed up or reset with in this tab: the log-in form starts with it. */
export const pending = { email: '' };
