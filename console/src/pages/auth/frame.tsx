// The frame of the signed-out pages (a card with the brand and the page's title), their e-mail
// field, and the address a sign-up or reset was made for, which the next page says back.

import type { ComponentChildren } from 'preact';
import type { FieldErrors } from '../../api.ts';
import { Field } from '../../forms.tsx';
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

/** The e-mail field of the signed-out forms; `signIn` offers the saved user name. */
export function EmailField(props: {
  value: string;
  onValue: (value: string) => void;
  errors: FieldErrors;
  signIn?: boolean;
}) {
  return (
    <Field
      label="Email"
      name="email"
      type="email"
      autocomplete={props.signIn ? 'username' : 'email'}
      value={props.value}
      onValue={props.onValue}
      errors={props.errors}
      required
    />
  );
}
